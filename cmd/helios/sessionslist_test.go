package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects: `sessions list` shows a subagent's session under its parent,
// not as a session of its own; --json carries "parent".
func TestSessionsListChildUnderParent(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude/agents/helper.md"), "---\nname: helper\ndescription: Helps.\n---\nYou help.")
	call, _ := json.Marshal(map[string]string{"subagent_type": "helper", "description": "d", "prompt": "help me"})
	srv := modeltest.NewServer(t, modeltest.Call(kernel.AgentToolName, string(call)), modeltest.Say("CHILD-ANSWER"), modeltest.Say("PARENT-DONE"))
	writeRunConfig(t, dir, srv.URL(), filepath.Join(home, "sessions"))
	cfg := filepath.Join(dir, "helios.config.json")
	run := helios(t, home, dir, "--config", cfg, "run", "go")
	require.Equal(t, 0, run.code, run.stderr)

	list := helios(t, home, dir, "--config", cfg, "--json", "sessions", "list")
	require.Equal(t, 0, list.code, list.stderr)
	var infos struct{ Sessions []session.Info }
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &infos))
	require.Len(t, infos.Sessions, 2)
	var parent, child session.Info
	for _, s := range infos.Sessions {
		if s.Title == "go" {
			parent = s
		} else {
			child = s
		}
	}
	assert.Empty(t, parent.Parent)
	assert.Equal(t, parent.ID, child.Parent, "the child names its parent: %+v", infos.Sessions)
	assert.Contains(t, list.stdout, `"parent": "`+parent.ID+`"`)

	text := helios(t, home, dir, "--config", cfg, "sessions", "list")
	require.Equal(t, 0, text.code, text.stderr)
	lines := strings.Split(strings.TrimSpace(text.stdout), "\n")
	require.Len(t, lines, 3, text.stdout)
	assert.True(t, strings.HasPrefix(lines[1], parent.ID), "the parent at the top: %q", lines[1])
	assert.True(t, strings.HasPrefix(lines[2], "└ "+child.ID), "the child right under it: %q", lines[2])
}

// Protects: the tree of `sessions list`: children under their parent, in
// list order, nested; a child whose parent is not listed stays at the top;
// parents naming each other lose no session.
func TestSessionRows(t *testing.T) {
	infos := []session.Info{
		{ID: "c1", Parent: "p"}, {ID: "orphan", Parent: "gone"}, {ID: "p"}, {ID: "g", Parent: "c1"}, {ID: "q"},
		{ID: "x", Parent: "y"}, {ID: "y", Parent: "x"},
	}
	var got []string
	for _, r := range sessionRows(infos) {
		got = append(got, strings.Repeat(">", r.depth)+r.ID)
	}
	assert.Equal(t, []string{"orphan", "p", ">c1", ">>g", "q", "x", "y"}, got)
}
