package trust_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/helios-agents/helios/cmd/helios/internal/trust"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: M798 (an untrusted config's permissions applied). A work dir's
// config is applied only once trusted: its permissions too (the user's
// ~/.helios/settings.json apply either way, in the assembly).
func TestReadWorkDirPermissionsOnlyWhenTrusted(t *testing.T) {
	work := t.TempDir()
	cfg := filepath.Join(work, "helios.config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"permissions": {"allow": ["Bash"], "defaultMode": "acceptEdits"}}`), 0o644))
	store := trust.NewStore(filepath.Join(t.TempDir(), trust.FileName))

	found, err := trust.ReadWorkDir(work, store)
	require.NoError(t, err)
	assert.Equal(t, cfg, found.Ignored)
	assert.Empty(t, found.Config.Permissions.Allow, "an untrusted config's allow rules were applied")
	assert.Empty(t, found.Config.Permissions.DefaultMode, "an untrusted config's mode was applied")

	_, err = store.Trust(cfg)
	require.NoError(t, err)
	found, err = trust.ReadWorkDir(work, store)
	require.NoError(t, err)
	assert.Equal(t, []string{"Bash"}, found.Config.Permissions.Allow)
}
