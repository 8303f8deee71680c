package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects (C18 "--config is explicit and trusted"): a config passed with
// --config is applied without a trust record, wherever it lies, and the
// work dir's own untrusted config is then neither applied nor announced:
// the explicit choice replaces the lookup.
func TestExplicitConfigIsTrusted(t *testing.T) {
	home, work, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.WriteFile(filepath.Join(work, "helios.config.json"), []byte(`{"mcpServers": {"found": {"command": "found-mcp"}}}`), 0o644))
	explicit := filepath.Join(elsewhere, "team.json")
	require.NoError(t, os.WriteFile(explicit, []byte(`{"mcpServers": {"chosen": {"command": "chosen-mcp"}}}`), 0o644))

	var out, errOut bytes.Buffer
	run(context.Background(), []string{"--work-dir", work, "--config", explicit, "--json", "mcp", "list"}, &out, &errOut)
	var j mcpListJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &j), "stdout %s; stderr %s", out.String(), errOut.String())
	assert.Empty(t, j.Untrusted, "the explicit config was judged by the trust store")
	require.Len(t, j.Servers, 1, out.String())
	assert.Equal(t, "chosen", j.Servers[0].Name)
	assert.NotContains(t, errOut.String(), "ignoring")
	assert.NotContains(t, errOut.String(), "trust")
}
