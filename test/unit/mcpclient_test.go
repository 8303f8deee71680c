package unit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/mcpclient"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
)

// The MCP client (C20) through the kernel a config assembles: real servers
// (internal/mcptest built as its own program, helios mcp itself, and the
// reference server when node has it) and a scripted model.

var mcptestdBuild struct {
	once sync.Once
	path string
	err  error
}

// mcptestd builds internal/mcptest/mcptestd once: the go-sdk test server
// over stdio, with the demo skills.
func mcptestd(t *testing.T) string {
	t.Helper()
	mcptestdBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "helios-mcptestd-")
		if err != nil {
			mcptestdBuild.err = err
			return
		}
		mcptestdBuild.path = filepath.Join(dir, "mcptestd")
		out, err := exec.Command("go", "build", "-o", mcptestdBuild.path, "github.com/helios-agents/helios/internal/mcptest/mcptestd").CombinedOutput()
		if err != nil {
			mcptestdBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, mcptestdBuild.err)
	return mcptestdBuild.path
}

// mcpcLogs keeps what the kernel logged.
type mcpcLogs struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *mcpcLogs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *mcpcLogs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// mcpcModelKey is the model's key variable in these tests: set, so that a
// server would see it if it leaked.
const mcpcModelKey = "MCPC_TEST_MODEL_KEY"

// mcpcKernel assembles a kernel from a config whose "mcp" key is mcpJSON,
// with a scripted model.
func mcpcKernel(t *testing.T, mcpJSON string, opts assembly.Options, script ...modeltest.Step) (*kernel.Kernel, *modeltest.Server, *mcpcLogs) {
	t.Helper()
	t.Setenv(mcpcModelKey, "sk-model-secret-1234")
	srv := modeltest.NewServer(t, script...)
	dir := t.TempDir()
	cfg := `{
  "skills": {"userRoots": []},
  "model": {"baseURL": "` + srv.URL() + `", "name": "scripted", "apiKeyEnv": "` + mcpcModelKey + `"},
  "sessions": {"dir": "` + filepath.Join(dir, "sessions") + `"},
  "mcp": ` + mcpJSON + `
}`
	path := filepath.Join(dir, "helios.config.json")
	writeFile(t, path, cfg)
	logs := &mcpcLogs{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if opts.WorkDir == "" {
		opts.WorkDir = t.TempDir()
	}
	k, err := assembly.Load(t.Context(), path, opts)
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	return k, srv, logs
}

// mcpcServer returns the kernel's MCP server of that name.
func mcpcServer(t *testing.T, k *kernel.Kernel, name string) *mcpclient.Server {
	t.Helper()
	for _, c := range k.Capabilities() {
		if s, ok := c.(*mcpclient.Server); ok && s.ServerName() == name {
			return s
		}
	}
	t.Fatalf("no MCP server %q in the kernel", name)
	return nil
}

// mcpcWait polls cond (a server's state that no signal announces).
func mcpcWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mcpcToolNames(ts []model.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func mcpcHasTool(s *mcpclient.Server, name string) bool {
	for _, t := range s.Status().Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// mcpcOpen opens a session and appends the user's prompt, for tests that
// step by hand.
func mcpcOpen(t *testing.T, k *kernel.Kernel, prompt string) *kernel.Session {
	t.Helper()
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	require.NoError(t, s.Inject(t.Context(), "test", prompt))
	return s
}

func mcpcStep(t *testing.T, s *kernel.Session, n int) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	_, end, err := s.Step(ctx, n)
	require.NoError(t, err, "step %d", n)
	return end
}

// mcpcResults are the tool results of a session, in order.
func mcpcResults(s *kernel.Session) []session.Event {
	var out []session.Event
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.ToolResult {
			out = append(out, ev)
		}
	}
	return out
}

func mcpcStdio(t *testing.T, extra string) string {
	return `{"servers": {"t": {"command": "` + mcptestd(t) + `"` + extra + `}}}`
}

// A tool call round-trips: the model sees the server's tools (namespaced,
// with their schemas) beside the builtin ones, calls one, reads its result.
func TestMCPClientToolRoundTrip(t *testing.T) {
	k, srv, _ := mcpcKernel(t, mcpcStdio(t, ""), assembly.Options{},
		modeltest.Call("mcp__t__echo", `{"text":"ping"}`),
		modeltest.Say("done"))
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	answer, err := s.Run(t.Context(), "echo ping")
	require.NoError(t, err)
	assert.Equal(t, "done", answer)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	names := mcpcToolNames(reqs[0].Tools)
	assert.Contains(t, names, "Bash")
	assert.Contains(t, names, "mcp__t__echo")
	for _, n := range names {
		assert.NotEqual(t, "echo", n, "no server tool without its namespace")
	}
	i := slices.Index(names, "mcp__t__echo")
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`, string(reqs[0].Tools[i].Parameters))
	last := reqs[1].Last()
	assert.Equal(t, model.RoleTool, last.Role)
	assert.Equal(t, "echo: ping", last.Content)
}

// list_changed between steps: a tool the server adds is in the next
// request, and gone from the one after it removed it.
func TestMCPClientListChangedBetweenSteps(t *testing.T) {
	k, srv, _ := mcpcKernel(t, mcpcStdio(t, ""), assembly.Options{},
		modeltest.Call("mcp__t__add_tool", `{"text":"fresh"}`),
		modeltest.Calls(
			model.ToolCall{Name: "mcp__t__fresh", Arguments: json.RawMessage(`{"text":"new"}`)},
			model.ToolCall{Name: "mcp__t__remove_tool", Arguments: json.RawMessage(`{"text":"fresh"}`)}),
		modeltest.Say("done"))
	server := mcpcServer(t, k, "t")
	s := mcpcOpen(t, k, "grow a tool")
	require.False(t, mcpcStep(t, s, 1))
	mcpcWait(t, "the added tool", func() bool { return mcpcHasTool(server, "mcp__t__fresh") })
	require.False(t, mcpcStep(t, s, 2))
	mcpcWait(t, "the removed tool gone", func() bool { return !mcpcHasTool(server, "mcp__t__fresh") })
	require.True(t, mcpcStep(t, s, 3))

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.NotContains(t, mcpcToolNames(reqs[0].Tools), "mcp__t__fresh")
	assert.Contains(t, mcpcToolNames(reqs[1].Tools), "mcp__t__fresh", "the next step sees the added tool")
	assert.NotContains(t, mcpcToolNames(reqs[2].Tools), "mcp__t__fresh", "and not once removed")
	res := mcpcResults(s)
	require.Len(t, res, 3)
	assert.Equal(t, "fresh: new", res[1].Text)
}

// A remote skill: listed in the catalog, loaded with its files beside it,
// a tampered one refused naming the file, and a skill the server adds
// reaches the next request's catalog.
func TestMCPClientRemoteSkill(t *testing.T) {
	var baseDir string
	k, srv, _ := mcpcKernel(t, mcpcStdio(t, ""), assembly.Options{},
		modeltest.Call("skill", `{"name":"demo"}`),
		modeltest.Call("skill", `{"name":"tampered"}`),
		modeltest.Call("mcp__t__add_skill", `{"text":"fresh"}`),
		modeltest.Say("done"))
	cat := k.Catalog(t.Context())
	require.True(t, cat.Complete)
	demo, ok := cat.Lookup("demo")
	require.True(t, ok, "the server's skill is in the catalog")
	assert.Equal(t, "mcp:t", demo.Source)
	baseDir = demo.BaseDir

	s := mcpcOpen(t, k, "use the demo skill")
	for n := 1; n <= 3; n++ {
		require.False(t, mcpcStep(t, s, n))
	}
	mcpcWait(t, "the new skill in the catalog", func() bool { _, ok := k.Catalog(t.Context()).Lookup("fresh"); return ok })
	require.True(t, mcpcStep(t, s, 4))

	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	first := mcpcCatalog(reqs[0])
	assert.Contains(t, first, "demo")
	assert.NotContains(t, first, "fresh")
	assert.Contains(t, mcpcCatalog(reqs[3]), "fresh", "a skill added on the server reaches the next request")

	res := mcpcResults(s)
	require.Len(t, res, 3)
	assert.False(t, res[0].IsError, "%s", res[0].Text)
	assert.Contains(t, res[0].Text, "Base directory for this skill: "+baseDir)
	assert.Contains(t, res[0].Text, "Run scripts/hello.sh")
	data, err := os.ReadFile(filepath.Join(baseDir, "scripts", "hello.sh"))
	require.NoError(t, err, "the skill's script is where the load text says")
	assert.Equal(t, "#!/bin/sh\necho hello from demo\n", string(data))
	assert.True(t, res[1].IsError)
	assert.Contains(t, res[1].Text, "references/GUIDE.md")
	assert.Contains(t, res[1].Text, "digest mismatch")
}

// mcpcCatalog is the newest skills catalog a request carries.
func mcpcCatalog(r modeltest.Recorded) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if c := r.Messages[i].Content; strings.Contains(c, "<available_skills>") {
			return c
		}
	}
	return ""
}

// A crash costs only the server's tools: the turn goes on with every
// other tool, the model reads why.
func TestMCPClientCrashCostsOnlyItsTools(t *testing.T) {
	servers := `{"servers": {"a": {"command": "` + mcptestd(t) + `"}, "b": {"command": "` + mcptestd(t) + `", "env": {"MCPTEST_SKILLS": "0"}}}}`
	k, srv, logs := mcpcKernel(t, servers, assembly.Options{},
		modeltest.Call("mcp__a__crash", `{}`),
		modeltest.Call("mcp__b__echo", `{"text":"still here"}`),
		modeltest.Say("done"))
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	answer, err := s.Run(ctx, "crash a")
	require.NoError(t, err, "the turn goes on")
	assert.Equal(t, "done", answer)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, mcpcToolNames(reqs[0].Tools), "mcp__a__echo")
	after := mcpcToolNames(reqs[1].Tools)
	assert.Contains(t, after, "mcp__b__echo")
	assert.Contains(t, after, "Bash")
	for _, n := range after {
		assert.False(t, strings.HasPrefix(n, "mcp__a__"), "a crashed server offers no tools: %s", n)
	}
	res := mcpcResults(s)
	require.Len(t, res, 2)
	assert.True(t, res[0].IsError)
	assert.Contains(t, res[0].Text, `MCP server "a" went away`)
	assert.Equal(t, "echo: still here", res[1].Text)
	assert.Equal(t, 1, strings.Count(logs.String(), "mcp server is down"), "one warning naming it:\n%s", logs)
	assert.Contains(t, logs.String(), "mcp.server=a")
}

// tool:before sees the annotations of the tool called; a policy that
// refuses destructive tools works on an MCP server's.
func TestMCPClientAnnotationsOnToolBefore(t *testing.T) {
	var seen sync.Map
	policy := kernel.NewCapability("no-destructive", hooks.ToolBefore.Bind("no-destructive", func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
		seen.Store(in.Call.Name, in.Annotations)
		if in.Annotations != nil && in.Annotations.Destructive {
			return kernel.ToolDecision{Deny: true, Reason: "destructive tools need a person"}, true, nil
		}
		return kernel.ToolDecision{}, false, nil
	}))
	k, _, _ := mcpcKernel(t, mcpcStdio(t, ""), assembly.Options{Capabilities: []kernel.Capability{policy}},
		modeltest.Calls(
			model.ToolCall{Name: "mcp__t__delete_everything", Arguments: json.RawMessage(`{}`)},
			model.ToolCall{Name: "mcp__t__echo", Arguments: json.RawMessage(`{"text":"x"}`)}),
		modeltest.Say("done"))
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "clean up")
	require.NoError(t, err)
	res := mcpcResults(s)
	require.Len(t, res, 2)
	assert.Equal(t, "tool call mcp__t__delete_everything denied: destructive tools need a person", res[0].Text)
	assert.Equal(t, "echo: x", res[1].Text)
	a, _ := seen.Load("mcp__t__echo")
	assert.Equal(t, &contract.ToolAnnotations{ReadOnly: true, OpenWorld: true}, a, "the hook sees the server's annotations")
}

func TestMCPClientConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, mcp string
		want      []string
	}{
		{"unknown key", `{"servers": {"gh": {"command": "x", "bogus": 1}}}`, []string{"mcp.servers.gh.bogus: unknown key"}},
		{"bad name", `{"servers": {"has space": {"command": "x"}}}`, []string{`mcp.servers."has space": a server's name must match ^[a-zA-Z0-9_-]{1,56}$`}},
		{"unicode name", `{"servers": {"сервер": {"command": "x"}}}`, []string{`mcp.servers."сервер": a server's name must match`}},
		{"both", `{"servers": {"gh": {"command": "x", "url": "https://h/mcp"}}}`, []string{"mcp.servers.gh: both command and url"}},
		{"neither", `{"servers": {"gh": {}}}`, []string{"mcp.servers.gh: neither command nor url"}},
		{"unknown type", `{"servers": {"gh": {"type": "websocket", "url": "wss://h/ws"}}}`, []string{`mcp.servers.gh.type: unknown value "websocket" (want stdio, http or sse)`}},
		{"sse with a command", `{"servers": {"gh": {"type": "sse", "command": "x"}}}`, []string{`mcp.servers.gh.type: "sse" does not agree with the server's command`}},
		{"type disagrees", `{"servers": {"gh": {"type": "http", "command": "x"}}}`, []string{"mcp.servers.gh.type"}},
		{"model key in env", `{"servers": {"gh": {"command": "x", "env": {"HELIOS_API_KEY": "v"}}}}`, []string{"mcp.servers.gh.env.HELIOS_API_KEY"}},
		{"model key expanded", `{"servers": {"gh": {"command": "x", "env": {"TOKEN": "${HELIOS_API_KEY}"}}}}`, []string{"mcp.servers.gh.env.TOKEN: ${HELIOS_API_KEY} is the model's API key"}},
		{"helios variable expanded", `{"servers": {"gh": {"command": "x", "args": ["--t=${HELIOS_POSTGRES_URL}"]}}}`, []string{"mcp.servers.gh.args[0]: ${HELIOS_POSTGRES_URL}"}},
		{"stdio keys on http", `{"servers": {"gh": {"url": "https://h/mcp", "args": ["x"]}}}`, []string{"mcp.servers.gh.args: only a command (stdio) server takes args"}},
		{"header injection", `{"servers": {"gh": {"url": "https://h/mcp", "headers": {"X-A": "a\r\nX-B: b"}}}}`, []string{"mcp.servers.gh.headers.X-A"}},
		{"bad url", `{"servers": {"gh": {"url": "ftp://h/"}}}`, []string{"mcp.servers.gh.url"}},
		{"bad timeout", `{"servers": {"gh": {"command": "x", "timeout": 60}}}`, []string{"mcp.servers.gh.timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := assembly.ParseConfig("helios.config.json", []byte(`{"mcp": `+tc.mcp+`}`))
			require.Error(t, err)
			assert.ErrorIs(t, err, assembly.ErrConfig)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}

	// What only the environment can say is found when the kernel is built,
	// and costs only its server: it is off, saying why.
	t.Setenv("MCPC_TOKEN_SET", "")
	for _, tc := range []struct {
		name, mcp string
		want      string
	}{
		{"missing bearer variable", `{"servers": {"gh": {"url": "https://h/mcp", "bearerTokenEnv": "MCPC_TOKEN_SET"}}}`, "mcp.servers.gh.bearerTokenEnv: the variable MCPC_TOKEN_SET is unset or empty"},
		{"missing variable", `{"servers": {"gh": {"command": "x", "env": {"TOKEN": "${MCPC_NEVER_SET_4711}"}}}}`, "mcp.servers.gh.env.TOKEN: ${MCPC_NEVER_SET_4711} is unset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "helios.config.json")
			writeFile(t, path, `{"skills": {"userRoots": []}, "mcp": `+tc.mcp+`}`)
			k, err := assembly.Load(t.Context(), path, assembly.Options{WorkDir: dir})
			require.NoError(t, err)
			defer k.Close()
			var st mcpclient.Status
			for _, c := range k.Capabilities() {
				if s, ok := c.(*mcpclient.Server); ok {
					st = s.Status()
				}
			}
			assert.Equal(t, mcpclient.StateDisabled, st.State)
			require.Error(t, st.Err)
			assert.Contains(t, st.Err.Error(), tc.want)
		})
	}
	// A disabled server's variables are not read.
	dir := t.TempDir()
	path := filepath.Join(dir, "helios.config.json")
	writeFile(t, path, `{"skills": {"userRoots": []}, "mcp": {"servers": {"gh": {"url": "https://h/mcp", "bearerTokenEnv": "MCPC_TOKEN_SET", "enabled": false}}}}`)
	k, err := assembly.Load(t.Context(), path, assembly.Options{WorkDir: dir})
	require.NoError(t, err)
	k.Close()
}

// The environment a server gets: the allowlisted one (with tools.env),
// its own env with variables expanded; never the model's key or HELIOS_*.
func TestMCPClientEnvironment(t *testing.T) {
	t.Setenv("HELIOS_MCPC_PROBE", "must-not-pass")
	t.Setenv("MCPC_GH_TOKEN", "gh-token-42")
	k, _, _ := mcpcKernel(t, mcpcStdio(t, `, "env": {"GITHUB_TOKEN": "${MCPC_GH_TOKEN}", "MODE": "${MCPC_UNSET_MODE:-fast}"}`), assembly.Options{})
	server := mcpcServer(t, k, "t")
	tools, err := server.Tools(t.Context())
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
	assert.Contains(t, lines, "GITHUB_TOKEN=gh-token-42")
	assert.Contains(t, lines, "MODE=fast")
	assert.Contains(t, lines, "PATH="+os.Getenv("PATH"))
	assert.NotContains(t, env, "sk-model-secret-1234", "the model's key never reaches a server")
	assert.NotContains(t, env, mcpcModelKey)
	assert.NotContains(t, env, "HELIOS_")
}

// helios mcp itself as the server, over stdio and over HTTP: its skills
// join the catalog as mcp:self and load through the client; its tools are
// the model's as mcp__self__*.
func TestMCPClientHeliosAsServer(t *testing.T) {
	served := t.TempDir()
	writeFile(t, filepath.Join(served, ".helios", "skills", "house-style", "SKILL.md"), skillMD("name: house-style\ndescription: Write code in the house style.", "Use tabs. See references/STYLE.md.\n"))
	writeFile(t, filepath.Join(served, ".helios", "skills", "house-style", "references", "STYLE.md"), "tabs, always\n")
	home := t.TempDir()
	srvCfg := filepath.Join(t.TempDir(), "served.json")
	writeFile(t, srvCfg, `{"skills": {"userRoots": []}}`)

	t.Run("stdio", func(t *testing.T) {
		mcpJSON := `{"servers": {"self": {"command": "` + heliosBin() + `", "args": ["mcp", "--work-dir", "` + served + `", "--config", "` + srvCfg + `"], "env": {"HOME": "` + home + `"}}}}`
		mcpcHeliosServer(t, mcpJSON)
	})
	t.Run("http", func(t *testing.T) {
		cmd := exec.Command(heliosBin(), "mcp", "--http", "127.0.0.1:0", "--work-dir", served, "--config", srvCfg)
		cmd.Env = append(os.Environ(), "HOME="+home)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		addr := regexp.MustCompile(`serving streamable HTTP on (http://\S+)`)
		sc := bufio.NewScanner(stderr)
		url := ""
		for sc.Scan() {
			if m := addr.FindStringSubmatch(sc.Text()); m != nil {
				url = m[1]
				break
			}
		}
		require.NotEmpty(t, url, "helios mcp --http says where it serves")
		go func() {
			for sc.Scan() {
			}
		}()
		mcpcHeliosServer(t, `{"servers": {"self": {"type": "http", "url": "`+url+`"}}}`)
	})
}

func mcpcHeliosServer(t *testing.T, mcpJSON string) {
	k, srv, logs := mcpcKernel(t, mcpJSON, assembly.Options{},
		modeltest.Call("skill", `{"name":"house-style"}`),
		modeltest.Call("mcp__self__skill_resource", `{"name":"house-style","path":"references/STYLE.md"}`),
		modeltest.Say("done"))
	cat := k.Catalog(t.Context())
	sk, ok := cat.Lookup("house-style")
	require.True(t, ok, "the served skill is in the catalog; warnings: %v; logs:\n%s", cat.Warnings, logs)
	assert.Equal(t, "mcp:self", sk.Source)
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "style?")
	require.NoError(t, err)
	assert.Contains(t, mcpcToolNames(srv.Requests()[0].Tools), "mcp__self__skill")
	res := mcpcResults(s)
	require.Len(t, res, 2)
	assert.False(t, res[0].IsError, "%s", res[0].Text)
	assert.Contains(t, res[0].Text, "Use tabs. See references/STYLE.md.")
	data, err := os.ReadFile(filepath.Join(sk.BaseDir, "references", "STYLE.md"))
	require.NoError(t, err, "the skill's reference was fetched, verified and written")
	assert.Equal(t, "tabs, always\n", string(data))
	assert.Equal(t, "tabs, always\n", res[1].Text)
}

// The reference server of the MCP project, when node has it (.ci/run
// installs it and sets HELIOS_TEST_MCP_EVERYTHING).
func TestMCPClientReferenceServer(t *testing.T) {
	entry := os.Getenv("HELIOS_TEST_MCP_EVERYTHING")
	if entry == "" {
		t.Skip("HELIOS_TEST_MCP_EVERYTHING is unset: install the reference server (npm install @modelcontextprotocol/server-everything@2026.8.31 in a folder) and set it to that folder's node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the reference server is a node program")
	}
	k, srv, logs := mcpcKernel(t, `{"servers": {"everything": {"command": "node", "args": ["`+entry+`", "stdio"]}}}`, assembly.Options{},
		modeltest.Calls(
			model.ToolCall{Name: "mcp__everything__echo", Arguments: json.RawMessage(`{"message":"hello"}`)},
			model.ToolCall{Name: "mcp__everything__get-sum", Arguments: json.RawMessage(`{"a":2,"b":3}`)},
			model.ToolCall{Name: "mcp__everything__get-tiny-image", Arguments: json.RawMessage(`{}`)},
			model.ToolCall{Name: "mcp__everything__get-env", Arguments: json.RawMessage(`{}`)}),
		modeltest.Say("done"))
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	_, err = s.Run(ctx, "exercise")
	require.NoError(t, err, "logs:\n%s", logs)
	require.Contains(t, mcpcToolNames(srv.Requests()[0].Tools), "mcp__everything__echo")
	res := mcpcResults(s)
	require.Len(t, res, 4)
	for _, r := range res {
		assert.False(t, r.IsError, "%s", r.Text)
	}
	assert.Contains(t, res[0].Text, "hello")
	assert.Contains(t, res[1].Text, "5")
	assert.Contains(t, res[2].Text, "[image: image/png,")
	assert.NotContains(t, res[3].Text, "sk-model-secret-1234", "the model's key never reaches a server")
	assert.NotContains(t, res[3].Text, mcpcModelKey)
}

// helios mcp list shows each server's state, tools and skills.
func TestMCPClientListCLI(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "cfg.json")
	writeFile(t, cfg, `{"skills": {"userRoots": []}, "mcp": {"servers": {
  "t": {"command": "`+mcptestd(t)+`"},
  "broken": {"command": "/nonexistent/mcp-server"},
  "off": {"url": "http://127.0.0.1:9/mcp", "enabled": false}}}}`)
	r := helios(t, home, dir, "mcp", "list", "--json", "--config", cfg)
	assert.Equal(t, 1, r.code, "a server down: exit 1; stderr %s", r.stderr)
	var out struct {
		Servers []struct {
			Name, State, Error string
			Tools              []struct{ Name string }
			Skills             []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	require.Len(t, out.Servers, 3)
	byName := map[string]int{}
	for i, s := range out.Servers {
		byName[s.Name] = i
	}
	b, o, tt := out.Servers[byName["broken"]], out.Servers[byName["off"]], out.Servers[byName["t"]]
	assert.Equal(t, "down", b.State)
	assert.Contains(t, b.Error, "no such file")
	assert.Equal(t, "disabled", o.State)
	assert.Equal(t, "ready", tt.State)
	assert.Equal(t, []string{"demo", "tampered"}, tt.Skills)
	assert.NotEmpty(t, tt.Tools)

	r = helios(t, home, dir, "mcp", "servers", "--config", cfg)
	assert.Contains(t, r.stdout, "ready    t (stdio: ")
	assert.Contains(t, r.stdout, "skills: demo, tampered")
	assert.Contains(t, r.stdout, "mcp__t__echo (read-only)")
	assert.Contains(t, r.stdout, "disabled off (http: http://127.0.0.1:9/mcp)")
}

// A 50 MB answer is read bounded: the call gets an error result naming the
// server and the limit, and the server goes on serving.
func TestMCPClientOversizedResult(t *testing.T) {
	k, _, _ := mcpcKernel(t, mcpcStdio(t, ""), assembly.Options{},
		modeltest.Call("mcp__t__big", `{"bytes":52428800}`),
		modeltest.Call("mcp__t__echo", `{"text":"after"}`),
		modeltest.Say("done"))
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	_, err = s.Run(ctx, "read it all")
	require.NoError(t, err)
	res := mcpcResults(s)
	require.Len(t, res, 2)
	assert.True(t, res[0].IsError)
	assert.Contains(t, res[0].Text, `MCP server "t" answered with a message of`)
	assert.Contains(t, res[0].Text, "over the limit of 16 MiB")
	assert.Equal(t, "echo: after", res[1].Text)
}
