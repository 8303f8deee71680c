package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/sandbox"
)

// TestMain makes the test binary its own MCP server: run with
// MCPTEST_SERVE=stdio, it serves internal/mcptest over stdio. It is also
// the confined commands' entry point (the benchmarks assemble builtin
// tools).
func TestMain(m *testing.M) {
	sandbox.Main()
	if os.Getenv("MCPTEST_SERVE") == "stdio" {
		os.Exit(mcptest.Main())
	}
	os.Exit(m.Run())
}

// stdioServer configures the test binary as a stdio server.
func stdioServer(name string, env ...string) ServerConfig {
	return ServerConfig{Name: name, Command: os.Args[0], Env: append([]string{"MCPTEST_SERVE=stdio", "PATH=" + os.Getenv("PATH")}, env...)}
}

// httpServer serves a fresh test server over streamable HTTP in process.
func httpServer(t testing.TB, name string, withSkills bool) (ServerConfig, *mcptest.Server) {
	t.Helper()
	srv := mcptest.New(withSkills)
	hs := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(hs.Close)
	return ServerConfig{Name: name, URL: hs.URL}, srv
}

// logs collects what the servers logged.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logs) count(s string) int { return strings.Count(l.String(), s) }

// start starts servers and closes them at the end of the test.
func start(t *testing.T, cfg Config, servers ...ServerConfig) ([]*Server, *logs) {
	t.Helper()
	l := &logs{}
	cfg.Servers = servers
	cfg.Logger = slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if cfg.SkillDir == "" {
		cfg.SkillDir = t.TempDir()
	}
	ss, err := Start(cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, s := range ss {
			s.Close()
		}
	})
	return ss, l
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// toolsOf returns the server's tools by name.
func toolsOf(t *testing.T, s *Server) map[string]contract.Tool {
	t.Helper()
	ts, err := s.Tools(ctxT(t))
	require.NoError(t, err)
	out := map[string]contract.Tool{}
	for _, x := range ts {
		out[x.Name] = x
	}
	return out
}

// call calls a tool by the model's name.
func call(t *testing.T, s *Server, name, args string) contract.ToolResult {
	t.Helper()
	tl, ok := toolsOf(t, s)[name]
	require.True(t, ok, "tool %s offered", name)
	res, err := tl.Call(ctxT(t), json.RawMessage(args))
	require.NoError(t, err)
	return res
}

// eventually polls cond (for what no signal announces: a restart's
// backoff, a notification's arrival).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
