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

// `helios mcp list` under a work-dir config the user has not trusted says
// so, and how to trust it, and exits 1: the servers are configured, not
// absent, and none of them started.
func TestMCPListUntrustedConfig(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	config := filepath.Join(work, "helios.config.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"mcpServers": {"gh": {"command": "gh-mcp"}}}`), 0o644))

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "mcp", "list"}, &out, &errOut)
	assert.Equal(t, exitFail, code, "stdout %s; stderr %s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "No MCP server started: "+config+" is not trusted")
	assert.Contains(t, out.String(), "trust it with: helios trust "+work)
	assert.NotContains(t, out.String(), "No MCP servers configured")

	out.Reset()
	code = run(context.Background(), []string{"--work-dir", work, "--json", "mcp", "list"}, &out, &errOut)
	assert.Equal(t, exitFail, code)
	var j mcpListJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &j), out.String())
	assert.Equal(t, config, j.Untrusted)
	assert.Empty(t, j.Servers)

	// Passed with --config, the file is the user's explicit choice: its
	// server is listed (down: there is no gh-mcp on PATH).
	out.Reset()
	code = run(context.Background(), []string{"--work-dir", work, "--config", config, "--json", "mcp", "list"}, &out, &errOut)
	j = mcpListJSON{}
	require.NoError(t, json.Unmarshal(out.Bytes(), &j), out.String())
	assert.Empty(t, j.Untrusted)
	require.Len(t, j.Servers, 1)
	assert.Equal(t, "gh", j.Servers[0].Name)
	assert.Equal(t, exitFail, code, "its server is down")
}

// One unset variable in one server's header costs that server only: a
// command that starts the kernel runs, and says once on stderr which server
// is off and why.
func TestUnsetMCPVariableWarnsOnce(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.Unsetenv("CMD_HELIOS_TEST_NEVER_SET"))
	config := filepath.Join(work, "cfg.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"skills": {"userRoots": []}, "mcpServers": {
  "github": {"type": "http", "url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${CMD_HELIOS_TEST_NEVER_SET}"}}}}`), 0o644))

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "--config", config, "skills", "list"}, &out, &errOut)
	assert.Equal(t, 0, code, "stderr %s", errOut.String())
	assert.Equal(t, "helios: warning: MCP server \"github\" is off: mcpServers.github.headers.Authorization: ${CMD_HELIOS_TEST_NEVER_SET} is unset\n", errOut.String())

	out.Reset()
	errOut.Reset()
	code = run(context.Background(), []string{"--work-dir", work, "--config", config, "mcp", "list"}, &out, &errOut)
	assert.Equal(t, 0, code, "a server off is not a server down")
	assert.Contains(t, out.String(), "disabled github (http: https://example.invalid/mcp)\n         mcpServers.github.headers.Authorization: ${CMD_HELIOS_TEST_NEVER_SET} is unset\n")
}
