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
