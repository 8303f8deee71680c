package assembly_test

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/mcpclient"
	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/kernel"
)

// syncBuffer is a log that the servers' goroutines write while the test
// reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// mcpServers returns the kernel's MCP servers by name, each waited for.
func mcpServers(t *testing.T, k *kernel.Kernel) map[string]*mcpclient.Server {
	t.Helper()
	out := map[string]*mcpclient.Server{}
	for _, c := range k.Capabilities() {
		if s, ok := c.(*mcpclient.Server); ok {
			require.NoError(t, s.Wait(t.Context()))
			out[s.Status().Name] = s
		}
	}
	return out
}

// A .mcp.json pasted as it is (Claude Code's and Cursor's mcpServers, with
// their server shape) runs beside mcp.servers; a server whose ${VAR} is
// unset is off with one warning naming it and the variable, and the others
// run.
func TestMCPServersAsPasted(t *testing.T) {
	hs := httptest.NewServer(mcptest.New(false).HTTPHandler())
	t.Cleanup(hs.Close)
	sse := httptest.NewServer(mcptest.New(false).SSEHandler())
	t.Cleanup(sse.Close)
	for _, v := range []string{"ASSEMBLY_TEST_NEVER_SET", "ASSEMBLY_TEST_NEVER_SET_HOST", "ASSEMBLY_TEST_TEAM"} {
		require.NoError(t, os.Unsetenv(v))
	}
	t.Setenv("ASSEMBLY_TEST_MCP_PATH", "mcp")
	dir := t.TempDir()
	path := filepath.Join(dir, "helios.config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{
  "skills": {"userRoots": []}, "tools": {"sandbox": {"mode": "off"}},
  "mcp": {"servers": {"own": {"url": "`+hs.URL+`"}}},
  "mcpServers": {
    "docs": {"type": "http", "url": "`+hs.URL+`/${env:ASSEMBLY_TEST_MCP_PATH}", "headers": {"X-Team": "${ASSEMBLY_TEST_TEAM:-core}"}},
    "github": {"type": "http", "url": "`+hs.URL+`", "headers": {"Authorization": "Bearer ${ASSEMBLY_TEST_NEVER_SET}"}},
    "search": {"type": "http", "url": "https://${ASSEMBLY_TEST_NEVER_SET_HOST}/mcp"},
    "legacy": {"type": "sse", "url": "`+sse.URL+`"}
  }
}`), 0o644))
	logs := &syncBuffer{}
	k, err := assembly.Load(t.Context(), path, assembly.Options{WorkDir: dir, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	require.NoError(t, err, "one unset variable costs only its server")
	t.Cleanup(func() { k.Close() })

	servers := mcpServers(t, k)
	require.Len(t, servers, 5)
	for _, name := range []string{"own", "docs", "legacy"} {
		assert.Equal(t, mcpclient.StateReady, servers[name].Status().State, "%s runs", name)
	}
	gh := servers["github"].Status()
	assert.Equal(t, mcpclient.StateDisabled, gh.State)
	require.Error(t, gh.Err)
	assert.Contains(t, gh.Err.Error(), "mcpServers.github.headers.Authorization: ${ASSEMBLY_TEST_NEVER_SET} is unset")
	assert.Equal(t, 1, strings.Count(logs.String(), "${ASSEMBLY_TEST_NEVER_SET}"), "one warning for the server: %s", logs)
	assert.Equal(t, 1, strings.Count(logs.String(), `MCP server \"search\" is off: mcpServers.search.url: ${ASSEMBLY_TEST_NEVER_SET_HOST} is unset`), logs)
	assert.NotContains(t, logs.String(), "ASSEMBLY_TEST_TEAM", "a variable with a default is no problem")
	search := servers["search"].Status()
	assert.Equal(t, mcpclient.StateDisabled, search.State, "a URL that needs an unset variable: off too")
	assert.Equal(t, "https://${ASSEMBLY_TEST_NEVER_SET_HOST}/mcp", search.Target, "shown as configured")
	assert.Contains(t, logs.String(), `MCP server \"github\" is off: mcpServers.github.headers.Authorization: ${ASSEMBLY_TEST_NEVER_SET} is unset`)

	assert.Equal(t, hs.URL+"/mcp", servers["docs"].Status().Target, "Cursor's ${env:NAME} is ${NAME}")
	assert.Equal(t, "sse", servers["legacy"].Status().Transport, `"type": "sse" is the HTTP+SSE transport`)
	for name, want := range map[string]int{"own": 1, "docs": 1, "legacy": 1, "github": 0} {
		tools, err := servers[name].Tools(t.Context())
		require.NoError(t, err)
		n := 0
		for _, tl := range tools {
			if tl.Name == "mcp__"+name+"__echo" {
				n++
			}
		}
		assert.Equal(t, want, n, "%s's tools reach the model only when it runs", name)
	}
}

// Config errors about mcpServers name its JSON path; a name in both keys
// is refused; another agent's dialect is named with what Helios expects.
func TestMCPServersConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"unknown key", `{"mcpServers": {"gh": {"command": "x", "bogus": 1}}}`, []string{"mcpServers.gh.bogus: unknown key"}},
		{"neither", `{"mcpServers": {"gh": {}}}`, []string{"mcpServers.gh: neither command nor url"}},
		{"twice", `{"mcp": {"servers": {"gh": {"command": "x"}}}, "mcpServers": {"gh": {"command": "y"}}}`,
			[]string{"mcpServers.gh: also configured in mcp.servers.gh"}},
		{"Codex", `{"mcp_servers": {"gh": {"command": "x"}}}`, []string{`mcp_servers: this is Codex's key`, `"mcpServers"`, `"mcp.servers"`}},
		{"VS Code", `{"inputs": [], "servers": {"gh": {"type": "stdio", "command": "x"}}}`,
			[]string{"inputs: this is VS Code's prompted inputs", "servers: this is VS Code's key (.vscode/mcp.json)", `"mcpServers"`}},
		{"Zed", `{"context_servers": {"gh": {"command": "x"}}}`, []string{"context_servers: this is Zed's key", `"mcpServers"`}},
		// Server a tool b__c and server a__b tool c would both be mcp__a__b__c.
		{"__ in a name", `{"mcp": {"servers": {"a__b": {"command": "x"}, "a": {"command": "y"}}}}`,
			[]string{`mcp.servers.a__b: a server's name may not contain "__"`, "mcp__<server>__<tool>"}},
		{"__ in a pasted name", `{"mcpServers": {"__x": {"command": "x"}}}`, []string{`mcpServers.__x: a server's name may not contain "__"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := assembly.ParseConfig("/p/helios.config.json", []byte(tc.config))
			require.Error(t, err)
			assert.ErrorIs(t, err, assembly.ErrConfig)
			assert.Contains(t, err.Error(), "/p/helios.config.json")
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
