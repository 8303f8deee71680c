package workfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/workfs"
)

// MakeStateDirs makes what is missing and leaves what exists, a file named
// like a state folder included.
func TestWorkFSMakeStateDirs(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(base, ".agents"), []byte("a file"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(base, ".helios", "skills", "mine"), 0o755))
	f, err := workfs.New(base)
	require.NoError(t, err)
	defer f.Close()

	require.NoError(t, f.MakeStateDirs())
	assert.DirExists(t, filepath.Join(base, ".helios", "skills", "mine"))
	data, err := os.ReadFile(filepath.Join(base, ".agents"))
	require.NoError(t, err)
	assert.Equal(t, "a file", string(data))
	require.NoError(t, os.Remove(filepath.Join(base, ".agents")))

	require.NoError(t, f.MakeStateDirs())
	assert.DirExists(t, filepath.Join(base, ".agents", "skills"))
}
