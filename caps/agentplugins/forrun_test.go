package agentplugins_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/agentplugins"
)

// Protects: a run neither walks nor parses a plugin's agents (the cost of a
// large marketplace at start), while Describe still parses each one and
// warns about one that cannot load.
func TestDescribeForRunListsAgentsUnparsed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "crew")
	write(t, dir, map[string]string{
		"agents/good.md": "---\nname: good\ndescription: helps\n---\nYou help.\n",
		"agents/bad.md":  "---\nname: bad\n---\nNo description.\n",
	})
	m, _, err := agentplugins.ReadPlugin(dir)
	require.NoError(t, err)

	full, ws := agentplugins.Describe(dir, m)
	assert.Contains(t, warnings(ws), `plugin crew: agents agents/bad.md: no "description" in the frontmatter`)
	require.Len(t, full.AgentDefs, 1)
	assert.Equal(t, "good", full.AgentDefs[0].Name)

	lazy, ws := agentplugins.DescribeForRun(dir, m)
	assert.Empty(t, ws)
	assert.Empty(t, lazy.Agents)
	assert.Empty(t, lazy.AgentDefs)

	writeState(t, root, `{"version": 1, "plugins": {"crew": {"source": "x", "enabled": true}}}`)
	got, ws := agentplugins.LoadInstalledForRun(root, agentplugins.ScopeUser)
	assert.Empty(t, ws)
	require.Len(t, got, 1)
	assert.Empty(t, got[0].Parts.Agents, "a run reads no agent")
	assert.Empty(t, got[0].Parts.AgentDefs)
	got, ws = agentplugins.LoadInstalled(root, agentplugins.ScopeUser)
	assert.Contains(t, warnings(ws), "agents/bad.md")
	require.Len(t, got, 1)
	assert.Len(t, got[0].Parts.AgentDefs, 1)
}

// Protects: the cheaper symlink check (a component Lstat, a walk following
// no link) still refuses a symlink out at any depth: a linked folder in the
// middle of a declared path, a linked command file inside a folder.
func TestSymlinkOutBelowTheRoot(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, map[string]string{"cmds/steal.md": "steal\n", "secret.md": "secret\n"})
	dir := filepath.Join(t.TempDir(), "deep")
	write(t, dir, map[string]string{
		"plugin.json":         `{"name": "deep", "commands": ["./via/cmds"]}`,
		"commands/ok.md":      "fine\n",
		"commands/sub/ok2.md": "fine\n",
	})
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "via")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "commands", "sub", "leak.md")))

	_, _, err := agentplugins.ReadPlugin(dir)
	require.ErrorIs(t, err, agentplugins.ErrOutside, "a linked folder in the middle of a declared path")
	assert.Contains(t, err.Error(), `plugin deep: commands path "./via/cmds": symlink to `+filepath.Join(outside, "cmds"))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{"name": "deep"}`), 0o644))
	m, _, err := agentplugins.ReadPlugin(dir)
	require.NoError(t, err)
	p, ws := agentplugins.DescribeForRun(dir, m)
	assert.Contains(t, warnings(ws), "plugin deep: commands commands/sub/leak.md: symlink to "+filepath.Join(outside, "secret.md"))
	assert.ElementsMatch(t, []string{filepath.Join(dir, "commands", "ok.md"), filepath.Join(dir, "commands", "sub", "ok2.md")}, p.Commands)

	// A declared folder that is itself a link out, given to Describe as it
	// is (ReadPlugin refuses it before): walked never.
	p, ws = agentplugins.DescribeForRun(dir, agentplugins.Manifest{Name: "deep", Commands: []string{"via/cmds"}})
	assert.Contains(t, warnings(ws), "plugin deep: commands via/cmds: symlink to "+filepath.Join(outside, "cmds"))
	assert.Empty(t, p.Commands)
}

func writeState(t *testing.T, root, state string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(root, agentplugins.StateFile), []byte(state), 0o644))
}
