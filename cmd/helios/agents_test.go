package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects: `helios agents list --json` lists the project's definitions with
// their scope, and warns about a file without a description and an
// unknown tool, naming the file and the field; Grep is a builtin, not
// unknown.
func TestAgentsListJSON(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	dir := filepath.Join(work, ".claude", "agents")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "reviewer.md"), []byte("---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep, NotebookEdit\nskills: [go]\n---\nYou review.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nodesc.md"), []byte("---\nname: nodesc\n---\n"), 0o644))
	res := helios(t, home, work, "--json", "agents", "list")
	require.Equal(t, 0, res.code, res.stderr)
	var got agentsJSON
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &got), res.stdout)
	require.Len(t, got.Agents, 1)
	assert.Equal(t, agentJSON{Name: "reviewer", Description: "Reviews diffs.", Source: "project", Path: filepath.Join(dir, "reviewer.md"),
		Tools: []string{"Read", "Grep", "NotebookEdit"}, Skills: []string{"go"}}, got.Agents[0])
	require.Len(t, got.Warnings, 2)
	assert.Contains(t, got.Warnings[0], "nodesc.md: agent skipped: description: missing or empty")
	assert.Contains(t, got.Warnings[1], `reviewer.md: tools: unknown tool "NotebookEdit"`)
}

// Protects: `sessions show` prints a subagent's session under the Agent
// result that names it, the child naming its parent, and the parent's token
// total includes the child's.
func TestSessionsShowSubagentTree(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude/agents/helper.md"), "---\nname: helper\ndescription: Helps.\n---\nYou help.")
	call, _ := json.Marshal(map[string]string{"subagent_type": "helper", "description": "d", "prompt": "help me"})
	srv := modeltest.NewServer(t, modeltest.Call(kernel.AgentToolName, string(call)), modeltest.Say("CHILD-ANSWER"), modeltest.Say("PARENT-DONE"))
	writeRunConfig(t, dir, srv.URL(), filepath.Join(home, "sessions"))
	cfg := filepath.Join(dir, "helios.config.json")
	run := helios(t, home, dir, "--config", cfg, "run", "go")
	require.Equal(t, 0, run.code, run.stderr)
	assert.Contains(t, run.stdout, "PARENT-DONE")

	list := helios(t, home, dir, "--config", cfg, "--json", "sessions", "list")
	var infos struct {
		Sessions []struct{ ID, Title string }
	}
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &infos))
	require.Len(t, infos.Sessions, 2, "the parent and its child")
	parent := ""
	for _, s := range infos.Sessions {
		if s.Title == "go" {
			parent = s.ID
		}
	}
	require.NotEmpty(t, parent, "%+v", infos)
	show := helios(t, home, dir, "--config", cfg, "sessions", "show", parent)
	require.Equal(t, 0, show.code, show.stderr)
	assert.Contains(t, show.stdout, "└ subagent helper: session ")
	assert.Contains(t, show.stdout, "(subagent session of "+parent)
	assert.Contains(t, show.stdout, "CHILD-ANSWER")
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	in := 0
	for _, r := range reqs {
		in += r.Usage.PromptTokens
	}
	assert.Contains(t, show.stdout, "tokens: "+thousands(in)+" in", "the total holds the child's requests")
}
