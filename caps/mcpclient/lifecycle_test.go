package mcpclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/internal/proctest"
)

// list_changed: the next Tools sees a tool added or removed on the server;
// a call to a tool that vanished names the tools that exist.
func TestListChangedChangesTools(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			sc := stdioServer("t")
			if transport == "http" {
				sc, _ = httpServer(t, "t", false)
			}
			ss, _ := start(t, Config{}, sc)
			s := ss[0]
			require.NotContains(t, toolsOf(t, s), "mcp__t__fresh")
			assert.Equal(t, "added fresh", call(t, s, "mcp__t__add_tool", `{"text":"fresh"}`).Content)
			eventually(t, "the new tool to be listed", func() bool { _, ok := toolsOf(t, s)["mcp__t__fresh"]; return ok })
			fresh := toolsOf(t, s)["mcp__t__fresh"]
			res, err := fresh.Call(ctxT(t), json.RawMessage(`{"text":"x"}`))
			require.NoError(t, err)
			assert.Equal(t, "fresh: x", res.Content)

			assert.Equal(t, "removed fresh", call(t, s, "mcp__t__remove_tool", `{"text":"fresh"}`).Content)
			eventually(t, "the tool to be gone", func() bool { _, ok := toolsOf(t, s)["mcp__t__fresh"]; return !ok })
			res, err = fresh.Call(ctxT(t), json.RawMessage(`{"text":"x"}`)) // the model still holds the old list
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Content, `mcp__t__fresh is no longer offered by MCP server "t"; its tools now are: `)
			assert.Contains(t, res.Content, "mcp__t__echo")
		})
	}
}

// A crash costs only that server: one warning naming it, its tools gone,
// the other server untouched; it comes back after the backoff.
func TestCrashCostsOnlyTheServer(t *testing.T) {
	// The supervisor is slowed down between the end and its recording, as
	// a loaded machine may: the call must wait for the recording anyway.
	testHookBeforeEndRecorded = func() { time.Sleep(300 * time.Millisecond) }
	t.Cleanup(func() { testHookBeforeEndRecorded = nil }) // after the servers close
	ss, logs := start(t, Config{RestartBackoff: 2 * time.Second}, stdioServer("a"), stdioServer("b"))
	a, b := ss[0], ss[1]
	toolsOf(t, a)
	res := call(t, a, "mcp__a__crash", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, `MCP server "a" went away during the call to mcp__a__crash`)
	assert.Contains(t, res.Content, "exited with status 3")
	assert.Contains(t, res.Content, "mcptest: crashing as asked", "the server's last stderr line says why")

	// Recorded before the call returns: the request that follows the
	// model reading "went away" must not offer a's tools again.
	assert.Equal(t, StateDown, a.Status().State, "a is down once its call says it went away")
	assert.Empty(t, toolsOf(t, a), "a down server offers no tools")
	assert.Equal(t, "echo: fine", call(t, b, "mcp__b__echo", `{"text":"fine"}`).Content)
	st := a.Status()
	assert.Contains(t, st.Err.Error(), "exited with status 3")
	assert.Positive(t, st.RetryIn)

	eventually(t, "a back", func() bool { return a.Status().State == StateReady })
	assert.Equal(t, 1, a.Status().Restarts)
	assert.Equal(t, "echo: back", call(t, a, "mcp__a__echo", `{"text":"back"}`).Content)
	assert.Equal(t, 1, logs.count("mcp server is down"), "one warning per outage:\n%s", logs)
	assert.Contains(t, logs.String(), "mcp.server=a")
	assert.NotContains(t, logs.String(), "mcp.server=b level", "nothing about b")
}

// A server that does not start: a warning naming it and why, no tools,
// and the caller is never held past the failure.
func TestStartFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   ServerConfig
		want []string
	}{
		{"missing command", ServerConfig{Command: "/nonexistent/mcp-server"}, []string{"no such file"}},
		{"exits at once", ServerConfig{Command: "sh", Args: []string{"-c", "echo GITHUB_TOKEN is not set >&2; exit 2"}}, []string{"exited with status 2", "GITHUB_TOKEN is not set"}},
		{"answers garbage", ServerConfig{Command: "sh", Args: []string{"-c", "while read l; do echo garbage; done"}, StartTimeout: time.Second}, []string{"no answer within 1s (startTimeout)"}},
		{"http refused", ServerConfig{URL: "http://127.0.0.1:1/mcp"}, []string{"connection refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sc.Name = "bad"
			tc.sc.Env = []string{"PATH=" + os.Getenv("PATH")}
			ss, logs := start(t, Config{RestartBackoff: time.Minute}, tc.sc)
			s := ss[0]
			assert.Empty(t, toolsOf(t, s))
			st := s.Status()
			assert.Equal(t, StateDown, st.State)
			require.Error(t, st.Err)
			for _, w := range tc.want {
				assert.Contains(t, st.Err.Error(), w)
			}
			assert.Equal(t, 1, logs.count("mcp server failed to start"), "%s", logs)
			set, err := s.Skills(ctxT(t))
			require.NoError(t, err)
			assert.Empty(t, set.Skills)
			require.Len(t, set.Warnings, 1)
			assert.Contains(t, set.Warnings[0].Message, `MCP server "bad" is unavailable`)
		})
	}
}

// A banner before the protocol is skipped with a warning; the server works.
func TestBannerSkipped(t *testing.T) {
	ss, logs := start(t, Config{}, stdioServer("t", "MCPTEST_BANNER=Server ready on stdio"))
	assert.Equal(t, "echo: ok", call(t, ss[0], "mcp__t__echo", `{"text":"ok"}`).Content)
	assert.Contains(t, logs.String(), "not JSON was skipped: Server ready on stdio")
}

// A hung server (it answers nothing, pings included) is found out by its call's timeout and a
// ping, and restarted; garbage instead of an answer costs the call only.
func TestHangAndGarbage(t *testing.T) {
	sc := stdioServer("t")
	sc.Timeout = time.Second
	ss, logs := start(t, Config{RestartBackoff: 100 * time.Millisecond}, sc)
	s := ss[0]

	res := call(t, s, "mcp__t__garbage", `{}`)
	assert.True(t, res.IsError)
	assert.Equal(t, `MCP server "t" did not answer the call to mcp__t__garbage within 1s (its timeout)`, res.Content)
	assert.Contains(t, logs.String(), "this is not JSON-RPC {")
	assert.Equal(t, "echo: alive", call(t, s, "mcp__t__echo", `{"text":"alive"}`).Content, "a server that answers pings is kept")
	assert.Equal(t, 0, s.Status().Restarts)

	res = call(t, s, "mcp__t__freeze", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "within 1s (its timeout)")
	eventually(t, "the hung server restarted", func() bool { st := s.Status(); return st.State == StateReady && st.Restarts == 1 })
	assert.Contains(t, logs.String(), "the server hangs")
	assert.Equal(t, "echo: thawed", call(t, s, "mcp__t__echo", `{"text":"thawed"}`).Content)
}

// Close stops the server and everything it started.
func TestCloseStopsProcessGroup(t *testing.T) {
	ss, err := Start(Config{Servers: []ServerConfig{stdioServer("t")}, SkillDir: t.TempDir()})
	require.NoError(t, err)
	s := ss[0]
	tag := "mcpclient-close-" + strconv.Itoa(os.Getpid())
	pid, err := strconv.Atoi(call(t, s, "mcp__t__spawn", `{"text":"`+tag+`"}`).Content)
	require.NoError(t, err)
	require.True(t, proctest.Alive(pid))
	require.NoError(t, s.Close())
	proctest.Eventually(t, 10*time.Second, "the server's child gone", func() bool { return !proctest.Alive(pid) })
	assert.Equal(t, StateClosed, s.Status().State)
	assert.Empty(t, toolsOf(t, s))
	require.NoError(t, s.Close(), "twice is fine")
}

// The process gets exactly the configured environment.
func TestServerEnvironment(t *testing.T) {
	t.Setenv("HELIOS_API_KEY", "sk-secret")
	ss, _ := start(t, Config{}, stdioServer("t", "TOKEN=abc"))
	env := strings.Split(call(t, ss[0], "mcp__t__env", `{}`).Content, "\n")
	assert.Contains(t, env, "TOKEN=abc")
	assert.Contains(t, env, "MCPTEST_SERVE=stdio")
	for _, kv := range env {
		assert.False(t, strings.HasPrefix(kv, "HELIOS_"), "nothing of the kernel's environment but what was given: %s", kv)
	}
}

func TestDisabledServer(t *testing.T) {
	sc := stdioServer("off")
	sc.Disabled = true
	ss, _ := start(t, Config{}, sc)
	s := ss[0]
	assert.Empty(t, toolsOf(t, s))
	set, err := s.Skills(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, 0, len(set.Skills)+len(set.Warnings))
	assert.Equal(t, StateDisabled, s.Status().State)
}

// Headers and the bearer token go with every request; a server that
// refuses them does not start, and says why.
func TestHTTPHeaders(t *testing.T) {
	srv := mcptest.New(false)
	h := srv.HTTPHandler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.Header.Get("X-Team") != "core" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	ss, _ := start(t, Config{RestartBackoff: time.Minute},
		ServerConfig{Name: "good", URL: hs.URL, BearerToken: "s3cret", Headers: map[string]string{"X-Team": "core"}},
		ServerConfig{Name: "bad", URL: hs.URL, BearerToken: "wrong", Headers: map[string]string{"X-Team": "core"}})
	assert.Equal(t, "echo: in", call(t, ss[0], "mcp__good__echo", `{"text":"in"}`).Content)
	assert.Empty(t, toolsOf(t, ss[1]))
	assert.Contains(t, ss[1].Status().Err.Error(), "Unauthorized")
}

func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		sc   ServerConfig
		want string
	}{
		{ServerConfig{Name: "has space", Command: "x"}, `name "has space": want 1 to 56 letters`},
		{ServerConfig{Name: strings.Repeat("n", 57), Command: "x"}, "want 1 to 56"},
		{ServerConfig{Name: "both", Command: "x", URL: "http://h/"}, "both command and url"},
		{ServerConfig{Name: "neither"}, "neither command nor url"},
		{ServerConfig{Name: "ftp", URL: "ftp://h/"}, "want an http or https URL"},
	} {
		err := tc.sc.Check()
		require.Error(t, err, "%+v", tc.sc)
		assert.ErrorIs(t, err, ErrConfig)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := Start(Config{Servers: []ServerConfig{{Name: "a", Command: "x"}, {Name: "a", Command: "y"}}})
	assert.ErrorContains(t, err, `"a": configured twice`)
}

// The first Tools waits for a server still starting; Wait can be bounded.
func TestFirstCallWaitsForStart(t *testing.T) {
	sc := ServerConfig{Name: "slow", Command: "sh", Args: []string{"-c", "sleep 1; exec \"$0\"", os.Args[0]}, Env: []string{"MCPTEST_SERVE=stdio", "PATH=" + os.Getenv("PATH")}}
	ss, _ := start(t, Config{}, sc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, ss[0].Wait(ctx), context.DeadlineExceeded)
	assert.Contains(t, toolsOf(t, ss[0]), "mcp__slow__echo", "the first listing waited for the start")
}
