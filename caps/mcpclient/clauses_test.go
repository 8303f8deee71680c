package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
)

// C20's listing clauses, each through what the step loop reads: the
// kernel's tool set (kernel.Tools, asked at every step) over real MCP
// servers (internal/mcptest, go-sdk).

// refuseListing makes a real server answer tools/list with an error while
// refuse is set; every other method works.
func refuseListing(srv *mcp.Server, refuse *atomic.Bool) {
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && refuse.Load() {
				return nil, errors.New("listing refused by the test")
			}
			return next(ctx, method, req)
		}
	})
}

// stepTools is the tool set a step gets from a kernel holding the servers,
// by name, and the warnings of that listing.
func stepTools(t *testing.T, ss []*Server) (map[string]contract.Tool, []contract.Warning) {
	t.Helper()
	caps := make([]kernel.Capability, len(ss))
	for i, s := range ss {
		caps[i] = s
	}
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Capabilities: caps})
	require.NoError(t, err)
	ts, warns := k.Tools(ctxT(t), k.Catalog(ctxT(t)), k.CatalogBudget())
	out := map[string]contract.Tool{}
	for _, tl := range ts {
		out[tl.Name] = tl
	}
	return out, warns
}

// A server that fails to list its tools costs only its own tools: the
// servers before and after it keep all of theirs. Failing at its start, it
// is down (its status names the listing) until a restart lists; failing
// after a list_changed, it keeps the list it had, with a warning.
func TestListingFailureCostsOnlyItsServer(t *testing.T) {
	first, _ := httpServer(t, "first", false)
	badCfg, bad := httpServer(t, "bad", false)
	last, _ := httpServer(t, "last", false)
	var refuse atomic.Bool
	refuse.Store(true)
	refuseListing(bad.MCP(), &refuse)
	ss, logs := start(t, Config{RestartBackoff: 100 * time.Millisecond}, first, badCfg, last)

	// At its start.
	require.NoError(t, ss[0].Wait(ctxT(t)))
	require.NoError(t, ss[2].Wait(ctxT(t)))
	eventually(t, "the failed start to be recorded", func() bool { return ss[1].Status().Err != nil })
	st := ss[1].Status()
	assert.NotEqual(t, StateReady, st.State, "a server that cannot list is not ready")
	assert.Contains(t, st.Err.Error(), "list tools")
	tools, warns := stepTools(t, ss)
	assert.Contains(t, tools, "mcp__first__echo", "the server before the failing one keeps its tools")
	assert.Contains(t, tools, "mcp__last__echo", "the server after the failing one keeps its tools")
	for name := range tools {
		assert.False(t, strings.HasPrefix(name, "mcp__bad__"), "the failing server offers nothing: %s", name)
	}
	assert.Empty(t, warns)
	assert.Contains(t, logs.String(), "listing refused by the test")

	// Listing again, it comes back.
	refuse.Store(false)
	eventually(t, "the restart", func() bool { _, ok := toolsOf(t, ss[1])["mcp__bad__echo"]; return ok })

	// After a list_changed: the step keeps the last list of the failing
	// server (and the others' tools), and the failure is logged.
	refuse.Store(true)
	before := logs.count("listing its tools failed")
	bad.MCP().AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	eventually(t, "the failed listing", func() bool { return logs.count("listing its tools failed") > before })
	tools, warns = stepTools(t, ss)
	assert.Contains(t, tools, "mcp__bad__echo", "a listing that failed keeps the last list")
	assert.NotContains(t, tools, "mcp__bad__late")
	assert.Contains(t, tools, "mcp__first__echo")
	assert.Contains(t, tools, "mcp__last__echo")
	assert.Empty(t, warns)
}

// remoteNames are the server's own names of every tool it offers now
// (two of them sanitize alike, so the model's names are not enough).
func remoteNames(t *testing.T, s *Server) []string {
	t.Helper()
	x := s.current()
	require.NotNil(t, x)
	var names []string
	for tl, err := range x.cs.Tools(ctxT(t), nil) {
		require.NoError(t, err)
		names = append(names, tl.Name)
	}
	return names
}

// A list_changed after which the server offers no tool at all empties the
// server's tools at the next step (an empty list is a list, not a failed
// one), and the other server keeps its own.
func TestListChangedToNoTools(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			other, _ := httpServer(t, "other", false)
			sc := stdioServer("t")
			var srv *mcp.Server
			if transport == "http" {
				var ts *mcptest.Server
				sc, ts = httpServer(t, "t", false)
				srv = ts.MCP()
			}
			ss, _ := start(t, Config{}, sc, other)
			s := ss[0]
			before := toolsOf(t, s)
			require.Contains(t, before, "mcp__t__echo")
			if srv != nil {
				srv.RemoveTools(remoteNames(t, s)...)
			} else {
				// The stdio server removes its own tools, remove_tool last.
				for _, name := range remoteNames(t, s) {
					if name != "remove_tool" {
						call(t, s, "mcp__t__remove_tool", `{"text":"`+name+`"}`)
					}
				}
				call(t, s, "mcp__t__remove_tool", `{"text":"remove_tool"}`)
			}
			deadline := time.Now().Add(10 * time.Second)
			for len(toolsOf(t, s)) > 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			assert.Empty(t, toolsOf(t, s), "the server offers no tool after its list_changed")
			tools, warns := stepTools(t, ss)
			for name := range tools {
				assert.False(t, strings.HasPrefix(name, "mcp__t__"), "the next step has none of the emptied server's tools: %s", name)
			}
			assert.Contains(t, tools, "mcp__other__echo")
			assert.Empty(t, warns, "an empty list is no failure")
		})
	}
}

// A stdio server whose config gives no environment gets none of the
// kernel's: not its variables, not a secret it holds (the assembly hands
// the allowlist; nil here must not mean "inherit").
func TestServerWithoutEnvInheritsNothing(t *testing.T) {
	t.Setenv("HELIOS_API_KEY", "sk-kernel-secret")
	t.Setenv("MCPC_CLAUSE_PROBE", "kernel-only")
	sc := ServerConfig{Name: "t", Command: "/bin/sh", Args: []string{"-c", `MCPTEST_SERVE=stdio exec "$0"`, os.Args[0]}}
	ss, _ := start(t, Config{}, sc)
	env := call(t, ss[0], "mcp__t__env", `{}`).Content
	assert.Contains(t, env, "MCPTEST_SERVE=stdio")
	assert.NotContains(t, env, "sk-kernel-secret", "the kernel's secret never reaches a server")
	assert.NotContains(t, env, "MCPC_CLAUSE_PROBE")
	assert.NotContains(t, env, "PATH="+os.Getenv("PATH"), "not even PATH: the assembly's allowlist is all a server gets")
}
