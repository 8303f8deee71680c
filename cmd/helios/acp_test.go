package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/internal/proctest"
	"github.com/helios-agents/helios/provider/modeltest"
)

// The tests of helios acp with the Go SDK's client side against this test
// binary run as helios: the updates of a turn, the diff of an edit, a
// permission request rejected, the client's MCP servers, cancel reaching a
// running tool, stdin closed mid-turn, and bad input.

// acpWorld is a work dir and a config whose model is srv (OpenAI-compatible,
// no key), with hooks (a JSON value for "hooks") when not empty.
func acpWorld(t testing.TB, srv *modeltest.Server, hooks string) (home, work, cfg string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	cfg = filepath.Join(t.TempDir(), "helios.config.json")
	if hooks == "" {
		hooks = "{}"
	}
	require.NoError(t, os.WriteFile(cfg, []byte(`{"skills": {"userRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "tools": {"sandbox": {"mode": "off"}},
  "sessions": {"dir": "`+filepath.Join(home, "sessions")+`"},
  "hooks": `+hooks+`}`), 0o644))
	return home, work, cfg
}

// acpClient records what the agent sends; it answers permission requests
// with the option whose id is answer ("" cancels them).
type acpClient struct {
	answer string

	mu      sync.Mutex
	updates []acp.SessionNotification
	perms   []acp.RequestPermissionRequest
	changed chan struct{}
}

func (c *acpClient) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	answer := c.answer
	c.mu.Unlock()
	if answer == "" {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
		Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(answer)}}}, nil
}

func (c *acpClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	ch := c.changed
	c.changed = make(chan struct{})
	c.mu.Unlock()
	close(ch)
	return nil
}

// waitUpdate waits for an update cond accepts.
func (c *acpClient) waitUpdate(t testing.TB, what string, cond func(acp.SessionNotification) bool) acp.SessionNotification {
	t.Helper()
	deadline := time.After(20 * time.Second)
	seen := 0
	for {
		c.mu.Lock()
		ups, ch := c.updates[seen:], c.changed
		seen = len(c.updates)
		c.mu.Unlock()
		for _, u := range ups {
			if cond(u) {
				return u
			}
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (c *acpClient) all() []acp.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.SessionNotification(nil), c.updates...)
}

func (c *acpClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errors.New("not offered")
}
func (c *acpClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errors.New("not offered")
}
func (c *acpClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errors.New("not offered")
}
func (c *acpClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errors.New("not offered")
}
func (c *acpClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errors.New("not offered")
}
func (c *acpClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errors.New("not offered")
}
func (c *acpClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errors.New("not offered")
}

// acpPeer is helios acp running with a Go SDK client connected.
type acpPeer struct {
	conn   *acp.ClientSideConnection
	client *acpClient
	cmd    *exec.Cmd
	stdin  *lockedPipe
	// raw is every line helios wrote, for the replies the SDK's client
	// drops (errors with no id).
	raw    *rawLines
	exited chan error
}

type lockedPipe struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedPipe) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedPipe) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Close()
}

// rawLines copies the agent's stdout to the SDK, keeping each line.
type rawLines struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
}

func (r *rawLines) wait(t testing.TB, what string, cond func(string) bool) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		lines, ch := r.lines, r.changed
		r.mu.Unlock()
		for _, l := range lines {
			if cond(l) {
				return l
			}
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; got:\n%s", what, strings.Join(lines, "\n"))
		}
	}
}

func startACP(t testing.TB, home, cfg string, answer string) *acpPeer {
	t.Helper()
	return startACPWith(t, home, answer, os.Stderr, "acp", "--config", cfg)
}

// startACPWith starts helios with args and connects a client.
func startACPWith(t testing.TB, home, answer string, stderr io.Writer, args ...string) *acpPeer {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), asHeliosEnv+"=1", "HOME="+home)
	cmd.Dir = t.TempDir()
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	p := &acpPeer{client: &acpClient{answer: answer, changed: make(chan struct{})}, cmd: cmd, stdin: &lockedPipe{w: in},
		raw: &rawLines{changed: make(chan struct{})}, exited: make(chan error, 1)}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			line := sc.Text()
			p.raw.mu.Lock()
			p.raw.lines = append(p.raw.lines, line)
			close(p.raw.changed)
			p.raw.changed = make(chan struct{})
			p.raw.mu.Unlock()
			_, _ = pw.Write([]byte(line + "\n"))
		}
		_ = pw.Close()
		p.exited <- cmd.Wait()
	}()
	p.conn = acp.NewClientSideConnection(p.client, p.stdin, pr)
	p.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	_, err = p.conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	require.NoError(t, err)
	return p
}

func (p *acpPeer) newSession(t testing.TB, cwd string, servers ...acp.McpServer) acp.SessionId {
	t.Helper()
	if servers == nil {
		servers = []acp.McpServer{}
	}
	r, err := p.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: cwd, McpServers: servers})
	require.NoError(t, err)
	return r.SessionId
}

func textPrompt(id acp.SessionId, text string) acp.PromptRequest {
	return acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}
}

// A turn that reads, edits and writes: each tool call with its title, kind
// and location; the edit's update carries the diff with the file's content
// before and after; the write a hook asks about becomes a permission
// request, rejected, and the file is not written; the client's MCP server
// reaches the model's tools; the answer streams as agent_message_chunk;
// the response carries the turn's usage.
func TestACPTurnDiffPermissionAndClientMCP(t *testing.T) {
	mcpSrv := httptest.NewServer(mcptest.New(false).HTTPHandler())
	t.Cleanup(mcpSrv.Close)
	srv := modeltest.NewServer(t,
		modeltest.Call("Read", `{"path": "a.txt"}`),
		modeltest.Call("Edit", `{"path": "a.txt", "old_string": "hello", "new_string": "goodbye"}`),
		modeltest.Call("Write", `{"path": "b.txt", "content": "new"}`),
		func(modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Text: "All done here.", Chunked: true}
		})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ask.sh"), "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"writes need a look\"}}'\n")
	home, work, cfg := acpWorld(t, srv, `{"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "sh `+filepath.Join(dir, "ask.sh")+`"}]}]}`)
	writeFile(t, filepath.Join(work, "a.txt"), "hello world\n")
	p := startACP(t, home, cfg, "reject")
	id := p.newSession(t, work, acp.McpServer{Http: &acp.McpServerHttpInline{Name: "editor", Type: "http", Url: mcpSrv.URL, Headers: []acp.HttpHeader{}}})

	uri := "file://" + filepath.Join(work, "a.txt")
	resp, err := p.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{
		acp.TextBlock("tidy "), acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{Uri: uri, Text: "hello world\n"}})}})
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonEndTurn, resp.StopReason)
	require.NotNil(t, resp.Usage, "the turn's usage")
	assert.Positive(t, resp.Usage.TotalTokens)

	var calls = map[string]*acp.SessionUpdateToolCall{}
	var results = map[string]*acp.SessionToolCallUpdate{}
	var text strings.Builder
	for _, n := range p.client.all() {
		u := n.Update
		switch {
		case u.ToolCall != nil:
			calls[u.ToolCall.Title] = u.ToolCall
		case u.ToolCallUpdate != nil:
			results[string(u.ToolCallUpdate.ToolCallId)] = u.ToolCallUpdate
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			text.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	assert.Equal(t, "All done here.", text.String())
	read, edit, write := calls["Read a.txt"], calls["Edit a.txt"], calls["Write b.txt"]
	require.NotNil(t, read, "calls: %v", calls)
	require.NotNil(t, edit)
	require.NotNil(t, write)
	assert.Equal(t, acp.ToolKindRead, read.Kind)
	assert.Equal(t, acp.ToolKindEdit, edit.Kind)
	require.Len(t, edit.Locations, 1)
	assert.Equal(t, filepath.Join(work, "a.txt"), edit.Locations[0].Path)

	er := results[string(edit.ToolCallId)]
	require.NotNil(t, er, "the edit's update")
	require.Len(t, er.Content, 1)
	d := er.Content[0].Diff
	require.NotNil(t, d, "the edit's content is a diff")
	require.NotNil(t, d.OldText)
	assert.Equal(t, "hello world\n", *d.OldText)
	assert.Equal(t, "goodbye world\n", d.NewText)
	assert.Equal(t, filepath.Join(work, "a.txt"), d.Path)

	p.client.mu.Lock()
	perms := p.client.perms
	p.client.mu.Unlock()
	require.Len(t, perms, 1, "one permission request: the write")
	assert.Equal(t, write.ToolCallId, perms[0].ToolCall.ToolCallId)
	var kinds []acp.PermissionOptionKind
	for _, o := range perms[0].Options {
		kinds = append(kinds, o.Kind)
	}
	assert.Equal(t, []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindRejectOnce}, kinds,
		"a hook's ask: no allow always (as in the UI)")
	wr := results[string(write.ToolCallId)]
	require.NotNil(t, wr)
	require.NotNil(t, wr.Status)
	assert.Equal(t, acp.ToolCallStatusFailed, *wr.Status)
	assert.NoFileExists(t, filepath.Join(work, "b.txt"), "the rejected write did not run")

	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	var tools []string
	for _, tl := range reqs[0].Tools {
		tools = append(tools, tl.Name)
	}
	assert.Contains(t, tools, "mcp__editor__echo", "the client's MCP server's tools reach the model")
	assert.Contains(t, tools, "Bash", "beside the configured tools")
	// The embedded resource as Claude Code's ACP adapter writes it.
	prompt := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	assert.Equal(t, "tidy [@a.txt]("+uri+")\n\n<context ref=\""+uri+"\">\nhello world\n\n</context>", prompt)
}

// session/cancel ends the turn and the tool it started: the command's
// process is gone and the prompt answers cancelled.
func TestACPCancelEndsRunningTool(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Call("Bash", `{"command": "sleep 61.37"}`))
	home, work, cfg := acpWorld(t, srv, "")
	p := startACP(t, home, cfg, "")
	id := p.newSession(t, work)

	done := make(chan acp.PromptResponse, 1)
	go func() {
		r, err := p.conn.Prompt(context.Background(), textPrompt(id, "sleep"))
		assert.NoError(t, err)
		done <- r
	}()
	proctest.Eventually(t, 20*time.Second, "the sleep to start", func() bool { return len(proctest.Running("sleep", "61.37")) > 0 })

	// A second prompt in the same session while one runs is refused; the
	// running one is unaffected.
	_, err := p.conn.Prompt(context.Background(), textPrompt(id, "again"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already running a prompt")

	start := time.Now()
	require.NoError(t, p.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: id}))
	select {
	case r := <-done:
		assert.Equal(t, acp.StopReasonCancelled, r.StopReason)
	case <-time.After(15 * time.Second):
		t.Fatal("the cancelled prompt did not answer")
	}
	t.Logf("cancel answered in %v", time.Since(start))
	proctest.Eventually(t, 10*time.Second, "the sleep to end", func() bool { return len(proctest.Running("sleep", "61.37")) == 0 })
}

// Bad input gets a JSON-RPC error naming the problem, and the connection
// and its other sessions go on.
func TestACPBadInput(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Say("still here"))
	home, work, cfg := acpWorld(t, srv, "")
	p := startACP(t, home, cfg, "")
	id := p.newSession(t, work)

	for _, tc := range []struct{ cwd, want string }{
		{"relative/dir", `cwd \"relative/dir\" is not an absolute path`},
		{filepath.Join(work, "missing"), "no such file or directory"},
		{"", "cwd is required"},
	} {
		_, err := p.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: tc.cwd, McpServers: []acp.McpServer{}})
		require.Error(t, err, "cwd %q", tc.cwd)
		b, _ := json.Marshal(err)
		assert.Contains(t, string(b)+err.Error(), tc.want, "cwd %q", tc.cwd)
	}
	writeFile(t, filepath.Join(work, "file"), "x")
	_, err := p.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: filepath.Join(work, "file"), McpServers: []acp.McpServer{}})
	require.Error(t, err)

	send := func(line string) {
		_, err := p.stdin.Write([]byte(line + "\n"))
		require.NoError(t, err)
	}
	send(`{"jsonrpc":"2.0","id":"x1","method":"session/new",`)
	l := p.raw.wait(t, "a parse error", func(l string) bool { return strings.Contains(l, "-32700") })
	assert.Contains(t, l, "malformed JSON-RPC")
	send(`[1,2,3]`)
	p.raw.wait(t, "an invalid request", func(l string) bool { return strings.Contains(l, "must be a JSON object") })
	send(`{"jsonrpc":"2.0","id":"u1","method":"session/bogus","params":{}}`)
	l = p.raw.wait(t, "method not found", func(l string) bool { return strings.Contains(l, `"u1"`) })
	assert.Contains(t, l, "-32601")
	assert.Contains(t, l, "session/bogus")
	huge := strings.Repeat("a", 50<<20)
	send(`{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"` + string(id) + `","prompt":[{"type":"text","text":"` + huge + `"}]}}`)
	l = p.raw.wait(t, "the 50 MB prompt refused", func(l string) bool { return strings.Contains(l, `"big"`) })
	assert.Contains(t, l, "session/prompt of 524")
	assert.Contains(t, l, "longer than the 8 MiB")

	_, err = p.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: "nope", Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
	require.Error(t, err)
	_, err = p.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.ImageBlock("aGk=", "image/png")}})
	require.Error(t, err)

	r, err := p.conn.Prompt(context.Background(), textPrompt(id, "are you there"))
	require.NoError(t, err, "the session goes on after the bad input")
	assert.Equal(t, acp.StopReasonEndTurn, r.StopReason)
}

// Stdin closed mid-turn: the turn is cancelled (its tool ended), the
// session saved, and helios exits 0.
func TestACPStdinClosedMidTurn(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Call("Bash", `{"command": "sleep 62.37"}`))
	home, work, cfg := acpWorld(t, srv, "")
	p := startACP(t, home, cfg, "")
	id := p.newSession(t, work)
	go func() { _, _ = p.conn.Prompt(context.Background(), textPrompt(id, "the prompt to keep")) }()
	proctest.Eventually(t, 20*time.Second, "the sleep to start", func() bool { return len(proctest.Running("sleep", "62.37")) > 0 })
	require.NoError(t, p.stdin.Close())
	select {
	case err := <-p.exited:
		require.NoError(t, err, "helios acp exits 0")
		p.exited <- nil
	case <-time.After(15 * time.Second):
		t.Fatal("helios acp did not exit")
	}
	// SIGKILL is delivered at once but a process leaves /proc a moment
	// later: the tool is gone soon after helios exits.
	proctest.Eventually(t, 5*time.Second, "the tool to end with the turn", func() bool { return len(proctest.Running("sleep", "62.37")) == 0 })
	r := helios(t, home, work, "sessions", "show", "--config", cfg, string(id))
	require.Zero(t, r.code, r.stderr)
	assert.Contains(t, r.stdout, "the prompt to keep")
	assert.Contains(t, r.stdout, "tool_use")

	// session/load replays it.
	q := startACP(t, home, cfg, "")
	_, err := q.conn.LoadSession(context.Background(), acp.LoadSessionRequest{SessionId: id, Cwd: work, McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	var kinds []string
	for _, n := range q.client.all() {
		switch u := n.Update; {
		case u.UserMessageChunk != nil:
			kinds = append(kinds, "user:"+u.UserMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			kinds = append(kinds, "tool_call:"+u.ToolCall.Title)
		case u.ToolCallUpdate != nil:
			kinds = append(kinds, "tool_call_update")
		}
	}
	assert.Equal(t, []string{"user:the prompt to keep", "tool_call:Run sleep 62.37", "tool_call_update"}, kinds)
}

// A permission rule's ask becomes a permission request with allow always;
// allowed always, the rule asks no more in the session; a cancelled request
// denies.
func TestACPPermissionRuleAllowAlways(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.Call("Bash", `{"command": "echo one > one.txt"}`),
		modeltest.Call("Bash", `{"command": "echo two > two.txt"}`),
		modeltest.Say("both"),
		modeltest.Call("Write", `{"path": "w.txt", "content": "x"}`),
		modeltest.Say("not written"))
	home, work, cfg := acpWorld(t, srv, "")
	setConfigKey(t, cfg, "permissions", map[string]any{"ask": []string{"Bash(echo:*)", "Write"}})
	p := startACP(t, home, cfg, "allow_always")
	id := p.newSession(t, work)

	r, err := p.conn.Prompt(context.Background(), textPrompt(id, "echo twice"))
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonEndTurn, r.StopReason)
	assert.FileExists(t, filepath.Join(work, "one.txt"))
	assert.FileExists(t, filepath.Join(work, "two.txt"))
	p.client.mu.Lock()
	perms := p.client.perms
	p.client.mu.Unlock()
	require.Len(t, perms, 1, "allowed always: the second echo is not asked about")
	var kinds []acp.PermissionOptionKind
	for _, o := range perms[0].Options {
		kinds = append(kinds, o.Kind)
	}
	assert.Equal(t, []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindRejectOnce}, kinds)
	require.NotNil(t, perms[0].ToolCall.Title)
	assert.Contains(t, *perms[0].ToolCall.Title, "Bash(echo:*)")

	p.client.mu.Lock()
	p.client.answer = "" // the client cancels the next request
	p.client.mu.Unlock()
	r, err = p.conn.Prompt(context.Background(), textPrompt(id, "write"))
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonEndTurn, r.StopReason)
	assert.NoFileExists(t, filepath.Join(work, "w.txt"), "a cancelled permission request denies")
}

// setConfigKey sets a top-level key of the config file at cfg.
func setConfigKey(t *testing.T, cfg, key string, v any) {
	t.Helper()
	var c map[string]any
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &c))
	c[key] = v
	b, err = json.Marshal(c)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, b, 0o644))
}

// A turn that reaches sessions.maxSteps with the model still calling tools
// ends with stopReason max_turn_requests; one the model ends, end_turn.
func TestACPStepLimit(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.Call("Bash", `{"command": "true"}`),
		modeltest.Call("Bash", `{"command": "true"}`),
		modeltest.Say("done"))
	home, work, cfg := acpWorld(t, srv, "")
	var c map[string]any
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &c))
	sessions := c["sessions"].(map[string]any)
	sessions["maxSteps"] = 1
	setConfigKey(t, cfg, "sessions", sessions)
	p := startACP(t, home, cfg, "")
	id := p.newSession(t, work)
	r, err := p.conn.Prompt(context.Background(), textPrompt(id, "loop"))
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonMaxTurnRequests, r.StopReason)
	r, err = p.conn.Prompt(context.Background(), textPrompt(id, "loop"))
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonMaxTurnRequests, r.StopReason)
	r, err = p.conn.Prompt(context.Background(), textPrompt(id, "end"))
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonEndTurn, r.StopReason)
}

// A session's cwd follows the trust rules of any work dir: its untrusted
// helios.config.json is not applied, and stderr says so, naming it.
func TestACPUntrustedWorkDirConfig(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(work, "helios.config.json"), `{"model": {"baseURL": "http://127.0.0.1:1", "name": "evil"}}`)
	var stderr lockedBuffer
	p := startACPWith(t, home, "", &stderr, "acp")
	_, err := p.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: work, McpServers: []acp.McpServer{}})
	require.Error(t, err, "the untrusted config's model is not used")
	assert.Contains(t, err.Error(), "no model configured")
	// stderr is copied from the process apart from its answers: the notice
	// may arrive just after the error it explains.
	notice := "ignoring " + filepath.Join(work, "helios.config.json")
	assert.Eventually(t, func() bool { return strings.Contains(stderr.String(), notice) }, 10*time.Second, 10*time.Millisecond,
		"stderr names the ignored config: %q", stderr.String())
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// session/set_mode switches the permission rules' defaultMode between
// prompts: plan refuses a write no rule allows; acceptEdits runs an edit a
// rule asks about without asking (default asked); an unknown mode is an
// error naming it.
func TestACPSessionModes(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.Call("Write", `{"path": "planned.txt", "content": "x"}`),
		modeltest.Say("refused"),
		modeltest.Call("Edit", `{"path": "a.txt", "old_string": "one", "new_string": "two"}`),
		modeltest.Say("rejected"),
		modeltest.Call("Edit", `{"path": "a.txt", "old_string": "one", "new_string": "three"}`),
		modeltest.Say("edited"))
	home, work, cfg := acpWorld(t, srv, "")
	writeFile(t, filepath.Join(work, "a.txt"), "one\n")
	p := startACP(t, home, cfg, "reject")
	r, err := p.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: work, McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	require.NotNil(t, r.Modes)
	assert.Equal(t, acp.SessionModeId("default"), r.Modes.CurrentModeId)
	var ids []acp.SessionModeId
	for _, m := range r.Modes.AvailableModes {
		ids = append(ids, m.Id)
	}
	assert.Equal(t, []acp.SessionModeId{"default", "acceptEdits", "plan"}, ids)

	_, err = p.conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: r.SessionId, ModeId: "yolo"})
	require.Error(t, err)
	b, _ := json.Marshal(err)
	assert.Contains(t, string(b), `modeId \"yolo\"`)

	_, err = p.conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: r.SessionId, ModeId: "plan"})
	require.NoError(t, err)
	_, err = p.conn.Prompt(context.Background(), textPrompt(r.SessionId, "plan it"))
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(work, "planned.txt"), "plan runs read-only tools only")

	// A second session, under a rule that asks before edits.
	setConfigKey(t, cfg, "permissions", map[string]any{"ask": []string{"Edit"}})
	id := p.newSession(t, work)
	_, err = p.conn.Prompt(context.Background(), textPrompt(id, "edit it"))
	require.NoError(t, err)
	p.client.mu.Lock()
	require.Len(t, p.client.perms, 1, "default: the rule asks")
	p.client.mu.Unlock()
	_, err = p.conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: id, ModeId: "acceptEdits"})
	require.NoError(t, err)
	_, err = p.conn.Prompt(context.Background(), textPrompt(id, "edit it now"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(work, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "three\n", string(got), "acceptEdits: the edit the rule asks about runs")
	p.client.mu.Lock()
	assert.Len(t, p.client.perms, 1, "acceptEdits asks nothing about edits")
	p.client.mu.Unlock()
	// The session went on across the switch: one log, both turns.
	reqs := srv.Requests()
	var texts []string
	for _, m := range reqs[len(reqs)-1].Messages {
		texts = append(texts, m.Content)
	}
	assert.Contains(t, strings.Join(texts, "|"), "edit it|")
}
