package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: `helios agents list --json` lists the project's definitions with
// their scope, and warns about a file without a description and an
// unknown tool, naming the file and the field.
func TestAgentsListJSON(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	dir := filepath.Join(work, ".claude", "agents")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "reviewer.md"), []byte("---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep\nskills: [go]\n---\nYou review.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nodesc.md"), []byte("---\nname: nodesc\n---\n"), 0o644))
	res := helios(t, home, work, "--json", "agents", "list")
	require.Equal(t, 0, res.code, res.stderr)
	var got agentsJSON
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &got), res.stdout)
	require.Len(t, got.Agents, 1)
	assert.Equal(t, agentJSON{Name: "reviewer", Description: "Reviews diffs.", Source: "project", Path: filepath.Join(dir, "reviewer.md"),
		Tools: []string{"Read", "Grep"}, Skills: []string{"go"}}, got.Agents[0])
	require.Len(t, got.Warnings, 2)
	assert.Contains(t, got.Warnings[0], "nodesc.md: agent skipped: description: missing or empty")
	assert.Contains(t, got.Warnings[1], `reviewer.md: tools: unknown tool "Grep"`)
}
