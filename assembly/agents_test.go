package assembly_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
)

// Protects: the "agents" key reaches the kernel: the project's and
// agents.dirs' definitions are offered; enabled false offers none; bad
// numbers are config errors naming the key.
func TestAgentsConfig(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(filepath.Join(dir, ".claude/agents/rev.md"), "---\nname: rev\ndescription: Reviews.\n---\nYou review.")
	write(filepath.Join(dir, "more/docs.md"), "---\nname: docs\ndescription: Writes docs.\n---\n")

	cfg, err := assembly.ParseConfig("c.json", []byte(`{"agents": {"maxConcurrent": 2, "dirs": ["more"], "models": {"fast": "small-model"}}}`))
	require.NoError(t, err)
	cfg.Sessions.Dir = t.TempDir()
	k, err := assembly.Build(t.Context(), cfg, assembly.Options{BaseDir: dir, WorkDir: dir})
	require.NoError(t, err)
	defer k.Close()
	defs, warns := k.Agents(t.Context())
	assert.Empty(t, warns)
	require.Len(t, defs, 2)
	assert.Equal(t, "rev", defs[0].Name)
	assert.Equal(t, "project", defs[0].Source)
	assert.Equal(t, "docs", defs[1].Name)

	cfg, err = assembly.ParseConfig("c.json", []byte(`{"agents": {"enabled": false}}`))
	require.NoError(t, err)
	cfg.Sessions.Dir = t.TempDir()
	k2, err := assembly.Build(t.Context(), cfg, assembly.Options{BaseDir: dir, WorkDir: dir})
	require.NoError(t, err)
	defer k2.Close()
	defs, _ = k2.Agents(t.Context())
	assert.Empty(t, defs)

	_, err = assembly.ParseConfig("c.json", []byte(`{"agents": {"maxDepth": -1, "models": {"x": ""}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "agents.maxDepth")
	assert.Contains(t, err.Error(), "agents.models.x: empty model name")
}
