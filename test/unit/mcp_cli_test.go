package unit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/proctest"
	"github.com/helios-agents/helios/mcpserver"
)

// `helios mcp` as a subprocess, driven by the SDK's client and by raw
// JSON-RPC lines: stdio, the plugins it starts and stops, signals, bad
// input, and the HTTP transport's token check.

// mcpCLIWorld is a work dir with one project skill and the example plugin
// configured (its debug folder records the plugin's pid).
func mcpCLIWorld(t *testing.T) (work, home string, dbg plDebug) {
	t.Helper()
	work, home, dbg = t.TempDir(), t.TempDir(), newPlDebug(t)
	writeFile(t, filepath.Join(work, ".helios", "skills", "demo", "SKILL.md"), skillMD("name: demo\ndescription: A demo skill.", "Run scripts/go.sh.\n"))
	writeFile(t, filepath.Join(work, ".helios", "skills", "demo", "scripts", "go.sh"), "echo go\n")
	plConfig(t, work, `{"name": "release-notes", "command": %q, "env": {"RELEASE_NOTES_DEBUG_DIR": %q}}`, filepath.Join(plExample(t), "release-notes"), string(dbg.dir))
	return work, home, dbg
}

func mcpCommand(work, home string, args ...string) *exec.Cmd {
	cmd := exec.Command(heliosBin(), append(mcpArgs(work), args...)...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home)
	return cmd
}

// mcpArgs starts `helios mcp` in work, with work's config if it has one.
func mcpArgs(work string) []string {
	return append(append([]string{"--work-dir", work}, configArgs(work)...), "mcp")
}

// Over stdio the SDK's client gets the catalog of every source (the
// plugin's skill included), the skill tool's text is exactly what `helios
// skills load` prints, a new skill on disk is announced, and closing stdin
// ends the server and its plugin.
func TestMCPStdioSubprocess(t *testing.T) {
	work, home, dbg := mcpCLIWorld(t)
	cmd := mcpCommand(work, home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	notes := newMCPNotes()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, notes.options())
	mcpSkillMethods(t, client)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	pids := dbg.pids(t, "start") // before helios skills load starts its own
	require.Len(t, pids, 1)

	for _, name := range []string{"demo", "release-notes"} {
		load := helios(t, home, work, append(configArgs(work), "skills", "load", name)...)
		require.Equal(t, 0, load.code, load.stderr)
		text, isErr := mcpCall(t, cs, "skill", map[string]any{"name": name})
		assert.False(t, isErr)
		assert.Equal(t, load.stdout, text, "the skill tool prints what helios skills load prints")
	}
	uris := mcpResourceURIs(t, cs)
	assert.Contains(t, uris, "skill://demo/scripts/go.sh")
	assert.Contains(t, uris, "skill://release-notes/SKILL.md")
	assert.Len(t, mcpSkillsList(t, cs).Skills, 2)

	mcpPutSkill(t, filepath.Join(work, ".helios", "skills"), "later", "name: later\ndescription: Added while serving.", "body\n")
	notes.waitFor(t, "list_changed from the subprocess", func() bool {
		return notes.count(ntResources) >= 1 && notes.count(ntPrompts) >= 1 && notes.count(ntTools) >= 1
	})
	assert.Contains(t, mcpPromptNames(t, cs), "later")

	require.True(t, proctest.Alive(pids[0]))
	require.NoError(t, cs.Close(), "closing stdin ends the server cleanly; stderr:\n%s", stderr.String())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
	proctest.Eventually(t, 5*time.Second, "the plugin to stop with the server", func() bool { return !proctest.Alive(pids[0]) })
	assert.NotContains(t, stderr.String(), "panic")
}

// mcpRaw is `helios mcp` driven line by line.
type mcpRaw struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
}

func startMCPRaw(t *testing.T, work, home string, args ...string) *mcpRaw {
	t.Helper()
	r := &mcpRaw{cmd: mcpCommand(work, home, args...), stderr: &strings.Builder{}}
	var err error
	r.stdin, err = r.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := r.cmd.StdoutPipe()
	require.NoError(t, err)
	r.out = bufio.NewReader(stdout)
	r.cmd.Stderr = r.stderr
	require.NoError(t, r.cmd.Start())
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	return r
}

func (r *mcpRaw) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(r.stdin, line+"\n")
	require.NoError(t, err)
}

// recv reads lines until the response with id (a JSON value) arrives.
func (r *mcpRaw) recv(t *testing.T, id string) map[string]any {
	t.Helper()
	for {
		line, err := r.out.ReadString('\n')
		require.NoError(t, err, "stderr:\n%s", r.stderr.String())
		var msg map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &msg), "stdout holds only protocol: %q", line)
		raw, _ := json.Marshal(msg["id"])
		if _, ok := msg["id"]; ok && string(raw) == id {
			return msg
		}
	}
}

func (r *mcpRaw) initialize(t *testing.T) {
	t.Helper()
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Contains(t, r.recv(t, "1"), "result")
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func errCode(t *testing.T, msg map[string]any) float64 {
	t.Helper()
	e, ok := msg["error"].(map[string]any)
	require.True(t, ok, "want an error: %v", msg)
	return e["code"].(float64)
}

// A malformed request gets a JSON-RPC error and the session goes on; stdin
// EOF then ends the server cleanly.
func TestMCPStdioMalformedRequests(t *testing.T) {
	work, home, _ := mcpCLIWorld(t)
	r := startMCPRaw(t, work, home)
	r.initialize(t)

	r.send(t, `this is not json{`)
	assert.Equal(t, float64(-32700), errCode(t, r.recv(t, "null")))
	r.send(t, `{"id":7,"method":"tools/list"}`) // no "jsonrpc":"2.0"
	assert.Equal(t, float64(-32600), errCode(t, r.recv(t, "7")))
	r.send(t, `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`)
	assert.Equal(t, float64(-32600), errCode(t, r.recv(t, "null")))
	r.send(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"not an object"}`)
	assert.Equal(t, float64(-32602), errCode(t, r.recv(t, "9")))
	r.send(t, `{"jsonrpc":"2.0","id":10,"method":"no/such/method","params":{}}`)
	assert.Equal(t, float64(-32601), errCode(t, r.recv(t, "10")))
	r.send(t, `{"jsonrpc":"2.0","id":11,"method":"skills/get","params":{"uri":"skill://nope/SKILL.md"}}`)
	assert.Equal(t, float64(-32602), errCode(t, r.recv(t, "11")))

	r.send(t, `{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{}}`)
	assert.Contains(t, r.recv(t, "12"), "result", "the session survived all of that")

	require.NoError(t, r.stdin.Close())
	require.NoError(t, r.cmd.Wait(), "stdin EOF is a clean exit; stderr:\n%s", r.stderr.String())
	assert.NotContains(t, r.stderr.String(), "panic")
}

// SIGINT and SIGTERM end the server cleanly (exit 0) and stop its plugin.
func TestMCPStdioSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			work, home, dbg := mcpCLIWorld(t)
			r := startMCPRaw(t, work, home)
			r.initialize(t)
			pids := dbg.pids(t, "start")
			require.Len(t, pids, 1)
			require.NoError(t, r.cmd.Process.Signal(sig))
			require.NoError(t, r.cmd.Wait(), "stderr:\n%s", r.stderr.String())
			proctest.Eventually(t, 5*time.Second, "the plugin to stop with the server", func() bool { return !proctest.Alive(pids[0]) })
		})
	}
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func mcpPost(t *testing.T, url, auth string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// With a token, every HTTP request must carry it: none or a wrong one is
// 401, the right one serves the catalog (a real server on 127.0.0.1).
func TestMCPHTTPTokenCheck(t *testing.T) {
	w := newMCPWorld(t, "native")
	mcpPutSkill(t, w.project, "alpha", "name: alpha\ndescription: First.", "alpha body\n")
	srv := mcpNewServer(t, w.k)
	hs := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPConfig{Token: "s3cret"}))
	t.Cleanup(hs.Close)

	assert.Equal(t, http.StatusUnauthorized, mcpPost(t, hs.URL, ""))
	assert.Equal(t, http.StatusUnauthorized, mcpPost(t, hs.URL, "Bearer wrong"))
	assert.Equal(t, http.StatusUnauthorized, mcpPost(t, hs.URL, "s3cret"))
	assert.Equal(t, http.StatusUnauthorized, mcpPost(t, hs.URL, "Bearer s3cretX"), "the token with characters appended")
	assert.Equal(t, http.StatusUnauthorized, mcpPost(t, hs.URL, "Bearer s3cre"), "a prefix of the token")
	assert.Equal(t, http.StatusUnauthorized, mcpPost(t, hs.URL, "Basic s3cret"))
	assert.Equal(t, http.StatusOK, mcpPost(t, hs.URL, "Bearer s3cret"))
	assert.Equal(t, http.StatusOK, mcpPost(t, hs.URL, "bearer s3cret"), "the scheme is case-insensitive (RFC 7235)")

	_, err := mcp.NewClient(&mcp.Implementation{Name: "anon", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	assert.Error(t, err, "a client without the token is refused")

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL,
		HTTPClient: &http.Client{Transport: bearer{"s3cret", http.DefaultTransport}}}, nil)
	require.NoError(t, err)
	defer cs.Close()
	text, isErr := mcpCall(t, cs, "skill", map[string]any{"name": "alpha"})
	assert.False(t, isErr)
	assert.Contains(t, text, "alpha body")
}

// mcpRefused runs a `helios mcp` that should refuse to start; one that
// serves anyway is killed after a while, so the test fails instead of
// hanging.
func mcpRefused(t *testing.T, work, home string, args ...string) cliResult {
	t.Helper()
	bin := heliosBin() // built before the clock starts
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(mcpArgs(work), args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run helios mcp %v: %v", args, err)
	}
	return cliResult{out.String(), errb.String(), code}
}

// The CLI refuses a non-loopback address without a token, and serves HTTP
// with one, checking it.
func TestMCPHTTPCommandLine(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	r := mcpRefused(t, work, home, "--http", "0.0.0.0:0")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--token-env")
	r = mcpRefused(t, work, home, "--http", ":0")
	assert.Equal(t, 2, r.code, "no host listens everywhere: not loopback")
	r = mcpRefused(t, work, home, "--http", "0.0.0.0:0", "--token-env", "HELIOS_TEST_UNSET_TOKEN")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "HELIOS_TEST_UNSET_TOKEN")
	r = mcpRefused(t, work, home, "--http", "127.0.0.1.nip.io:0")
	assert.Equal(t, 2, r.code, "a name that merely starts like a loopback address is not one")
	assert.Contains(t, r.stderr, "--token-env")
	t.Setenv("HELIOS_TEST_SHORT_TOKEN", strings.Repeat("k", mcpserver.MinTokenBytes-1))
	r = mcpRefused(t, work, home, "--http", "0.0.0.0:0", "--token-env", "HELIOS_TEST_SHORT_TOKEN")
	assert.Equal(t, 2, r.code, "a 31-byte token beyond loopback")
	assert.Contains(t, r.stderr, "at least 32")
	assert.Contains(t, r.stderr, "HELIOS_TEST_SHORT_TOKEN")
	assert.NotContains(t, r.stderr, strings.Repeat("k", 8), "the token is never printed")
	r = mcpRefused(t, work, home, "--max-sessions", "3")
	assert.Equal(t, 2, r.code, "an HTTP flag without --http")
	assert.Contains(t, r.stderr, "--max-sessions needs --http")

	long := strings.Repeat("k", mcpserver.MinTokenBytes)
	for addr, ok := range map[string]bool{"127.0.0.1:1": true, "127.1.2.3:1": true, "[::1]:1": true, "localhost:1": true, "LOCALHOST:1": true,
		"10.0.0.1:1": false, "example.com:1": false, ":1": false, "0.0.0.0:1": false, "[::]:1": false,
		"127.0.0.1.nip.io:1": false, "localhost.example.com:1": false, "127.0.0.1.:1": false} {
		assert.Equal(t, ok, mcpserver.CheckAddr(addr, "") == nil, addr)
		assert.Equal(t, ok, mcpserver.CheckAddr(addr, long[1:]) == nil, "%s with a 31-byte token", addr)
		assert.NoError(t, mcpserver.CheckAddr(addr, long), addr)
	}
	assert.ErrorIs(t, mcpserver.CheckAddr("10.0.0.1:1", "short"), mcpserver.ErrShortToken)
	assert.ErrorIs(t, mcpserver.CheckAddr("127.0.0.1.nip.io:1", ""), mcpserver.ErrNeedsToken)

	cmd := mcpCommand(work, home, "--http", "127.0.0.1:0", "--token-env", "HELIOS_TEST_TOKEN", "--max-sessions", "1")
	cmd.Env = append(cmd.Env, "HELIOS_TEST_TOKEN=tok")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	require.NoError(t, err)
	m := regexp.MustCompile(`http://(\S+)`).FindStringSubmatch(line)
	require.NotNil(t, m, "the address on stderr: %q", line)
	url := "http://" + m[1]
	assert.Equal(t, http.StatusUnauthorized, mcpPost(t, url, ""))
	assert.Equal(t, http.StatusOK, mcpPost(t, url, "Bearer tok"))
	code, _ := mcpRequest(t, url, mcpInit, map[string]string{"Authorization": "Bearer tok", "Origin": "https://evil.example"})
	assert.Equal(t, http.StatusForbidden, code, "a foreign origin, token or not")
	code, _ = mcpRequest(t, url, mcpInit, map[string]string{"Authorization": "Bearer tok", "Origin": "http://localhost:5173"})
	assert.Equal(t, http.StatusOK, code)
	// --max-sessions 1: a second session closes the first.
	auth := map[string]string{"Authorization": "Bearer tok", "Mcp-Protocol-Version": "2025-11-25"}
	_, first := mcpRequest(t, url, mcpInit, auth)
	_, second := mcpRequest(t, url, mcpInit, auth)
	require.NotEmpty(t, first)
	require.NotEmpty(t, second)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	code, _ = mcpRequest(t, url, ping, map[string]string{"Authorization": "Bearer tok", "Mcp-Session-Id": first})
	assert.Equal(t, http.StatusNotFound, code, "the first session was closed")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait())
}
