package assembly_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
)

// C20: a stdio server whose config names no environment gets the
// allowlisted one (PATH, HOME…), not Helios's whole environment: not a
// variable outside the allowlist, not a HELIOS_* secret. The server is this
// test binary (TestMain), started through a shell that sets only
// MCPTEST_SERVE.
func TestMCPServerWithoutEnvGetsTheAllowlist(t *testing.T) {
	t.Setenv("ASSEMBLY_ENV_PROBE", "not-allowlisted")
	t.Setenv("HELIOS_ENV_PROBE_SECRET", "sk-never-passed")
	dir := t.TempDir()
	path := filepath.Join(dir, "helios.config.json")
	cfg, err := json.Marshal(map[string]any{
		"skills": map[string]any{"userRoots": []string{}},
		"tools":  map[string]any{"sandbox": map[string]any{"mode": "off"}},
		"mcp": map[string]any{"servers": map[string]any{
			"t": map[string]any{"command": "/bin/sh", "args": []string{"-c", `MCPTEST_SERVE=stdio exec "$0"`, os.Args[0]}},
		}},
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, cfg, 0o644))
	k, err := assembly.Load(t.Context(), path, assembly.Options{WorkDir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })

	tools, err := mcpServers(t, k)["t"].Tools(t.Context())
	require.NoError(t, err)
	var env string
	for _, tl := range tools {
		if tl.Name == "mcp__t__env" {
			res, err := tl.Call(t.Context(), json.RawMessage(`{}`))
			require.NoError(t, err)
			env = res.Content
		}
	}
	lines := strings.Split(env, "\n")
	assert.Contains(t, lines, "PATH="+os.Getenv("PATH"), "the allowlist reaches a server that names no env")
	assert.Contains(t, lines, "MCPTEST_SERVE=stdio")
	assert.NotContains(t, env, "ASSEMBLY_ENV_PROBE", "a variable outside the allowlist stays out")
	assert.NotContains(t, env, "sk-never-passed")
	assert.NotContains(t, env, "HELIOS_")
}
