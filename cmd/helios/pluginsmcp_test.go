package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects: a real MCP server inside a plugin (the MCP project's reference
// server, HELIOS_TEST_MCP_EVERYTHING) installed with `helios plugins
// install --yes` from a git server runs in `helios run`: the model is
// offered its tools as mcp__plugin_<plugin>_<server>__<tool> and a call
// reaches it. The plugin is named as github/awesome-copilot's is, so the
// server's name (plugin_awesome-copilot_awesome-copilot, 38 characters) is
// over the 32 a configured server may have; it starts through a script it
// ships, named with ${CLAUDE_PLUGIN_ROOT}.
func TestPluginsRealMCPServerInsideAPlugin(t *testing.T) {
	entry := os.Getenv("HELIOS_TEST_MCP_EVERYTHING")
	if entry == "" {
		t.Skip("HELIOS_TEST_MCP_EVERYTHING is unset: install the reference server (npm install @modelcontextprotocol/server-everything@2026.8.31 in a folder) and set it to that folder's node_modules/@modelcontextprotocol/server-everything/dist/index.js (.ci/run does)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the reference server is a node program")
	}
	home, work, cfgDir := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	repo := gittest.New(t, "awesome-copilot")
	repo.Commit(map[string]gittest.File{
		".claude-plugin/plugin.json": gittest.Text(`{"name": "awesome-copilot", "description": "The reference server."}`),
		".mcp.json":                  gittest.Text(`{"mcpServers": {"awesome-copilot": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/server.mjs", "stdio"]}}}`),
		"server.mjs":                 gittest.Text("await import(" + strconv.Quote("file://"+entry) + ");\n"),
		"skills/ref/SKILL.md":        gittest.Text("---\nname: ref\ndescription: Uses the reference server.\n---\nCall its echo.\n"),
	})
	url := gittest.ServeRepo(t, repo)

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "plugins", "install", url, "--yes"}, &out, &errOut)
	require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "installed awesome-copilot")

	server := "plugin_awesome-copilot_awesome-copilot"
	srv := modeltest.NewServer(t, modeltest.Call("mcp__"+server+"__echo", `{"message": "through the plugin"}`), modeltest.Say("done"))
	cfg := filepath.Join(cfgDir, "helios.config.json")
	writeFile(t, cfg, `{"skills": {"userRoots": []}, "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(home, "sessions")+`"}}`)
	out.Reset()
	errOut.Reset()
	code = run(context.Background(), []string{"--work-dir", work, "--config", cfg, "run", "use the reference server"}, &out, &errOut)
	require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
	assert.NotContains(t, errOut.String(), "plugin awesome-copilot: mcp server")

	reqs := srv.Requests()
	require.Len(t, reqs, 2, errOut.String())
	var names []string
	for _, tl := range reqs[0].Tools {
		if strings.HasPrefix(tl.Name, "mcp__") {
			names = append(names, tl.Name)
		}
	}
	assert.Contains(t, names, "mcp__"+server+"__echo")
	assert.Contains(t, names, "mcp__"+server+"__get-sum")
	for _, n := range names {
		assert.True(t, strings.HasPrefix(n, "mcp__"+server+"__"), "every tool in the plugin's namespace: %s", n)
		assert.LessOrEqual(t, len(n), 64, n)
	}
	var results []string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	require.Len(t, results, 1)
	assert.Contains(t, results[0], "through the plugin", "the call reached the reference server")
}
