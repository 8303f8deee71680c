package unit_test

// Black-box tests of command hooks (DESIGN.md C21): hooks written as Claude
// Code's documentation describes them — real shell and Python scripts the
// test writes into the work dir, configured under "hooks" in the JSON a
// person writes — through the step loop of a kernel assembled from that
// config, with the real builtin tools and a scripted model over HTTP.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/cmdhooks"
	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
	"github.com/helios-agents/helios/workfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chWorld is a kernel assembled from a config with a "hooks" key, over a
// temp work dir whose hooks/ folder holds the test's scripts.
type chWorld struct {
	work, sessions string
	srv            *modeltest.Server
	k              *kernel.Kernel

	mu    sync.Mutex
	warns []contract.Warning
}

// chNewWorld writes scripts (name → content) into <work>/hooks, executable,
// and assembles a kernel whose config's "hooks" key is hooksJSON.
func chNewWorld(t *testing.T, scripts map[string]string, hooksJSON string, script ...modeltest.Step) *chWorld {
	t.Helper()
	w := &chWorld{work: t.TempDir(), sessions: t.TempDir()}
	w.srv = modeltest.NewServer(t, script...)
	for name, body := range scripts {
		p := filepath.Join(w.work, "hooks", name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o755))
	}
	cfgJSON := fmt.Sprintf(`{
		"model": {"baseURL": %q, "name": "scripted", "apiKeyEnv": "", "maxRetries": 0},
		"sessions": {"dir": %q},
		"skills": {"userRoots": []},
		"tools": {"sandbox": {"mode": "off"}},
		"hooks": %s}`, w.srv.URL(), w.sessions, hooksJSON)
	cfg, err := assembly.ParseConfig("helios.config.json", []byte(cfgJSON))
	require.NoError(t, err)
	w.k, err = assembly.Build(t.Context(), cfg, assembly.Options{BaseDir: w.work, WorkDir: w.work, OnWarning: w.warn})
	require.NoError(t, err)
	t.Cleanup(func() { w.k.Close() })
	return w
}

func (w *chWorld) warn(wn contract.Warning) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warns = append(w.warns, wn)
}

func (w *chWorld) warnings() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, wn := range w.warns {
		b.WriteString(wn.String() + "\n")
	}
	return b.String()
}

// open opens a session whose updates are collected.
func (w *chWorld) open(t *testing.T, cfg kernel.SessionConfig) (*kernel.Session, *chUpdates) {
	t.Helper()
	u := &chUpdates{}
	cfg.Observe = u.add
	s, err := w.k.OpenSession(t.Context(), cfg)
	require.NoError(t, err, "OpenSession")
	t.Cleanup(func() { s.Close() })
	return s, u
}

type chUpdates struct {
	mu sync.Mutex
	us []kernel.Update
}

func (c *chUpdates) add(u kernel.Update) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.us = append(c.us, u)
}

// warnings are the texts of the session's warning updates.
func (c *chUpdates) warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, u := range c.us {
		if u.Kind == kernel.UpdateWarning {
			out = append(out, u.Text)
		}
	}
	return out
}

// chRequestText is everything the model was sent in request i (from 0):
// the system prompt and every message.
func chRequestText(t *testing.T, srv *modeltest.Server, i int) string {
	t.Helper()
	reqs := srv.Requests()
	require.Greater(t, len(reqs), i, "the model got %d request(s)", len(reqs))
	var b strings.Builder
	b.WriteString(reqs[i].System + "\n")
	for _, m := range reqs[i].Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// chLastResult is the last message of request i: the last tool result the
// model read.
func chLastResult(t *testing.T, srv *modeltest.Server, i int) string {
	t.Helper()
	reqs := srv.Requests()
	require.Greater(t, len(reqs), i)
	return reqs[i].Last().Content
}

func chRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// chInput decodes the JSON a hook saved from its stdin (one object per line).
func chInputs(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(chRead(t, path)), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "a hook's stdin is JSON: %s", line)
		out = append(out, m)
	}
	return out
}

// A shell guard as Claude Code's documentation writes them: read the
// call's JSON on stdin, and exit 2 with the reason on stderr to block.
const chGuardSh = `#!/bin/sh
input=$(cat)
case "$input" in
  *"rm -rf"*) echo "Blocked by guard.sh: rm -rf is not allowed here" >&2; exit 2 ;;
esac
exit 0
`

// Protects: M450 (exit 2 ignored). Exit 2 from a PreToolUse hook blocks a
// Bash call, and its stderr is the result the model reads; a call the guard
// lets through runs.
func TestCmdHooksExit2BlocksBash(t *testing.T) {
	w := chNewWorld(t, map[string]string{"guard.sh": chGuardSh},
		`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/hooks/guard.sh"}]}]}`,
		modeltest.Call("Bash", `{"command": "touch blocked-ran; rm -rf nothing"}`),
		modeltest.Call("Bash", `{"command": "touch allowed-ran"}`),
		modeltest.Say("done"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "clean up")

	assert.Contains(t, chLastResult(t, w.srv, 1), "Blocked by guard.sh: rm -rf is not allowed here", "the model reads the hook's stderr")
	assert.NoFileExists(t, filepath.Join(w.work, "blocked-ran"), "the blocked call did not run")
	assert.FileExists(t, filepath.Join(w.work, "allowed-ran"), "the call the guard let through ran")
	assert.Empty(t, w.warnings())
}

// Protects: M451 (permissionDecision ignored). A Python hook answering
// Claude Code's JSON deny stops a Write, and the model reads its reason. It
// matched Claude Code's key file_path, absolute.
func TestCmdHooksJSONDenyStopsWrite(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: install python3 (.ci/run does) to run the Python hook test")
	}
	const denyPy = `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
path = data["tool_input"].get("file_path", "")
if data["tool_name"] == "Write" and path.endswith(".env"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "secrets files are off limits (" + path + ")"}}))
sys.exit(0)
`
	w := chNewWorld(t, map[string]string{"deny.py": denyPy},
		`{"PreToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "python3 hooks/deny.py", "timeout": 30}]}]}`,
		modeltest.Call("Write", `{"path": ".env", "content": "KEY=1"}`),
		modeltest.Call("Write", `{"path": "notes.txt", "content": "fine"}`),
		modeltest.Say("done"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "write")

	assert.Contains(t, chLastResult(t, w.srv, 1), "secrets files are off limits ("+filepath.Join(w.work, ".env")+")")
	assert.NoFileExists(t, filepath.Join(w.work, ".env"))
	assert.Equal(t, "fine", chRead(t, filepath.Join(w.work, "notes.txt")))
	assert.Empty(t, w.warnings())
}

// Protects: M452 (tool:after not dispatched), M453 (tool_response
// dropped). PostToolUse gets the call and its response; exit 2 there and
// additionalContext reach the model after the result (the call already ran).
func TestCmdHooksPostToolUse(t *testing.T) {
	const post = `#!/bin/sh
cat >> "$CLAUDE_PROJECT_DIR/post.jsonl"
echo >> "$CLAUDE_PROJECT_DIR/post.jsonl"
echo "formatter says: line 3 is too long" >&2
exit 2
`
	const ctxSh = `#!/bin/sh
cat > /dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "remember to run the tests"}}'
`
	w := chNewWorld(t, map[string]string{"post.sh": post, "ctx.sh": ctxSh},
		`{"PostToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "hooks/post.sh"},
			{"type": "command", "command": "hooks/ctx.sh"}]}]}`,
		modeltest.Call("Bash", `{"command": "echo hello-from-bash"}`),
		modeltest.Say("done"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "go")

	ins := chInputs(t, filepath.Join(w.work, "post.jsonl"))
	require.Len(t, ins, 1)
	in := ins[0]
	assert.Equal(t, "PostToolUse", in["hook_event_name"])
	assert.Equal(t, "Bash", in["tool_name"])
	assert.Equal(t, "echo hello-from-bash", in["tool_input"].(map[string]any)["command"])
	resp, _ := in["tool_response"].(map[string]any)
	require.NotNil(t, resp, "tool_response: %v", in)
	assert.Contains(t, resp["stdout"], "hello-from-bash")
	assert.Equal(t, true, resp["success"])
	assert.Equal(t, s.ID(), in["session_id"])
	assert.Equal(t, w.work, in["cwd"])
	assert.Equal(t, filepath.Join(w.sessions, "transcripts", s.ID()+".jsonl"), in["transcript_path"])

	res := chLastResult(t, w.srv, 1)
	assert.Contains(t, res, "hello-from-bash", "the result itself")
	assert.Contains(t, res, "formatter says: line 3 is too long", "exit 2's stderr")
	assert.Contains(t, res, "remember to run the tests", "additionalContext")
	assert.Less(t, strings.Index(res, "hello-from-bash"), strings.Index(res, "formatter says"), "feedback follows the result")
	assert.Less(t, strings.Index(res, "formatter says"), strings.Index(res, "remember to run"), "in config order")
}

// Protects: M454 (stdout context dropped), M455 (prompt:submit not
// dispatched). The stdout of SessionStart and UserPromptSubmit hooks
// reaches the request; the prompt hook read the prompt.
func TestCmdHooksContextReachesRequest(t *testing.T) {
	scripts := map[string]string{
		"start.sh":  "#!/bin/sh\ncat > \"$CLAUDE_PROJECT_DIR/start.json\"\necho 'Project rule: answer in haiku'\n",
		"prompt.sh": "#!/bin/sh\ncat > \"$CLAUDE_PROJECT_DIR/prompt.json\"\necho \"Current branch: feature-ünï\"\n",
	}
	w := chNewWorld(t, scripts, `{
		"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "hooks/start.sh"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "hooks/prompt.sh"}]}]}`,
		modeltest.Say("ok"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "what branch?")

	req := chRequestText(t, w.srv, 0)
	assert.Contains(t, req, "Project rule: answer in haiku")
	assert.Contains(t, req, "Current branch: feature-ünï")
	assert.Less(t, strings.Index(req, "what branch?"), strings.Index(req, "Current branch"), "the prompt's context follows it")
	start := chInputs(t, filepath.Join(w.work, "start.json"))[0]
	assert.Equal(t, "SessionStart", start["hook_event_name"])
	assert.Equal(t, "startup", start["source"])
	prompt := chInputs(t, filepath.Join(w.work, "prompt.json"))[0]
	assert.Equal(t, "UserPromptSubmit", prompt["hook_event_name"])
	assert.Equal(t, "what branch?", prompt["prompt"])
}

// Protects: M456 (a blocked prompt still sent). Exit 2 from a
// UserPromptSubmit hook blocks the prompt: nothing is sent or logged, the
// turn ends with the hook's reason.
func TestCmdHooksPromptBlocked(t *testing.T) {
	w := chNewWorld(t, map[string]string{"guard.sh": "#!/bin/sh\ngrep -q password && { echo 'no secrets in prompts' >&2; exit 2; }\nexit 0\n"},
		`{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "hooks/guard.sh"}]}]}`,
		modeltest.Say("ok"))
	s, _ := w.open(t, kernel.SessionConfig{})
	_, err := s.Run(t.Context(), "my password is hunter2")
	require.ErrorIs(t, err, kernel.ErrStopped)
	assert.Contains(t, err.Error(), "no secrets in prompts")
	assert.Empty(t, w.srv.Requests(), "the prompt never reached the model")
	for _, e := range agEvents(s.Log()) {
		assert.NotContains(t, e.Text, "hunter2", "the prompt never reached the log")
	}
	agRun(t, s, "hello") // the next prompt goes through
	assert.Len(t, w.srv.Requests(), 1)
}

// Protects: M457 (turn:end's reason dropped), M458 (session:end not
// dispatched). A Stop hook keeps the turn going once, with its reason for
// the model, and sees stop_hook_active the second time; SessionEnd fires
// when the session closes.
func TestCmdHooksStopAndSessionEnd(t *testing.T) {
	const stop = `#!/bin/sh
input=$(cat)
echo "$input" >> "$CLAUDE_PROJECT_DIR/stop.jsonl"
case "$input" in
  *'"stop_hook_active":true'*) exit 0 ;;
esac
echo '{"decision": "block", "reason": "run the tests before you stop"}'
`
	w := chNewWorld(t, map[string]string{"stop.sh": stop, "end.sh": "#!/bin/sh\ncat > \"$CLAUDE_PROJECT_DIR/end.json\"\n"},
		`{"Stop": [{"hooks": [{"type": "command", "command": "hooks/stop.sh"}]}],
		  "SessionEnd": [{"hooks": [{"type": "command", "command": "hooks/end.sh"}]}]}`,
		modeltest.Say("done"), modeltest.Say("tests pass, done"))
	s, err := w.k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	id := s.ID()
	assert.Equal(t, "tests pass, done", agRun(t, s, "fix it"))

	assert.Contains(t, chRequestText(t, w.srv, 1), "run the tests before you stop", "the model read the Stop hook's reason")
	ins := chInputs(t, filepath.Join(w.work, "stop.jsonl"))
	require.Len(t, ins, 2)
	assert.Equal(t, false, ins[0]["stop_hook_active"])
	assert.Equal(t, true, ins[1]["stop_hook_active"])

	assert.NoFileExists(t, filepath.Join(w.work, "end.json"), "SessionEnd waits for the close")
	require.NoError(t, s.Close())
	end := chInputs(t, filepath.Join(w.work, "end.json"))[0]
	assert.Equal(t, "SessionEnd", end["hook_event_name"])
	assert.Equal(t, id, end["session_id"])
	assert.Equal(t, "other", end["reason"])
}

// Protects: M459 (updatedInput ignored), M460 (file_path not mapped back
// to path). updatedInput changes the call that runs, in Claude Code's
// keys.
func TestCmdHooksUpdatedInput(t *testing.T) {
	const rewrite = `#!/bin/sh
input=$(cat)
case "$input" in
  *'"tool_name":"Bash"'*) echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo rewritten > bash.txt"}}}' ;;
  *'"tool_name":"Write"'*) echo "{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"updatedInput\": {\"file_path\": \"$CLAUDE_PROJECT_DIR/moved.txt\", \"content\": \"moved\"}}}" ;;
esac
`
	w := chNewWorld(t, map[string]string{"rewrite.sh": rewrite},
		`{"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "hooks/rewrite.sh"}]}]}`,
		modeltest.Call("Bash", `{"command": "echo original > bash.txt"}`),
		modeltest.Call("Write", `{"path": "asked.txt", "content": "asked"}`),
		modeltest.Say("done"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "go")

	assert.Equal(t, "rewritten\n", chRead(t, filepath.Join(w.work, "bash.txt")))
	assert.Equal(t, "moved", chRead(t, filepath.Join(w.work, "moved.txt")))
	assert.NoFileExists(t, filepath.Join(w.work, "asked.txt"))
	assert.Empty(t, w.warnings())
}

// Protects: M461 (timeout taken as milliseconds), M462 (only the shell
// killed, not its group). A hook past its timeout (in seconds) is killed
// with its process group, the call goes on, and one warning names the hook
// and the limit, to the session's watcher too.
func TestCmdHooksTimeoutKillsGroup(t *testing.T) {
	const slow = `#!/bin/sh
sleep 300 &
echo $! > "$CLAUDE_PROJECT_DIR/child.pid"
sleep 300
`
	const quick = "#!/bin/sh\nsleep 0.3\necho '{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"quick hook finished\"}}'\n"
	w := chNewWorld(t, map[string]string{"slow.sh": slow, "quick.sh": quick},
		`{"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "hooks/slow.sh", "timeout": 2}]},
			{"matcher": "Write", "hooks": [{"type": "command", "command": "hooks/quick.sh", "timeout": 1}]}]}`,
		modeltest.Call("Bash", `{"command": "touch ran"}`),
		modeltest.Call("Write", `{"path": "w.txt", "content": "x"}`),
		modeltest.Say("done"))
	s, u := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "go")

	assert.FileExists(t, filepath.Join(w.work, "ran"), "the call went on without the hook")
	warns := w.warnings()
	assert.Equal(t, 1, strings.Count(warns, "timed out"), "one warning: %s", warns)
	assert.Contains(t, warns, "hooks.PreToolUse[0].hooks[0]")
	assert.Contains(t, warns, "timeout of 2s")
	assert.Len(t, u.warnings(), 1, "the session's watcher saw it")

	pid, err := strconv.Atoi(strings.TrimSpace(chRead(t, filepath.Join(w.work, "child.pid"))))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }, 10*time.Second, 50*time.Millisecond,
		"the hook's background child %d was killed with its group", pid)

	// A hook that takes 0.3s under a timeout of 1 second is not cut.
	assert.Contains(t, chLastResult(t, w.srv, 2), "quick hook finished")
	assert.NoFileExists(t, filepath.Join(w.work, "w.txt"))
}

// Protects: M463 (matcher ignored). A matcher selects tools: a simple list
// matches exact names, anything else is a regular expression.
func TestCmdHooksMatcher(t *testing.T) {
	const log = "#!/bin/sh\nname=$(cat | sed 's/.*\"tool_name\":\"\\([^\"]*\\)\".*/\\1/')\necho \"$1:$name\" >> \"$CLAUDE_PROJECT_DIR/seen.txt\"\n"
	w := chNewWorld(t, map[string]string{"log.sh": log}, `{"PreToolUse": [
			{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "hooks/log.sh list"}]},
			{"matcher": "^Re.*", "hooks": [{"type": "command", "command": "hooks/log.sh regex"}]},
			{"matcher": "Bas", "hooks": [{"type": "command", "command": "hooks/log.sh partial"}]},
			{"hooks": [{"type": "command", "command": "hooks/log.sh all"}]}]}`,
		modeltest.Call("Bash", `{"command": "true"}`),
		modeltest.Call("Write", `{"path": "a.txt", "content": "x"}`),
		modeltest.Call("Read", `{"path": "a.txt"}`),
		modeltest.Say("done"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "go")
	assert.Equal(t, "all:Bash\nlist:Write\nall:Write\nregex:Read\nall:Read\n", chRead(t, filepath.Join(w.work, "seen.txt")))
}

// Protects: M464 (the command band ahead of the builtins), M465 (commands
// out of config order). Command hooks run in config order, after every
// builtin handler of their point and before every plugin's, and
// `DescribeHooks` shows them with origin "command".
func TestCmdHooksOrderBetweenBuiltinsAndPlugins(t *testing.T) {
	work := t.TempDir()
	for _, n := range []string{"one", "two"} {
		writeFile(t, filepath.Join(work, "hooks", n+".sh"), "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\": {\"additionalContext\": \"[command "+n+"]\"}}'\n")
		require.NoError(t, os.Chmod(filepath.Join(work, "hooks", n+".sh"), 0o755))
	}
	var settings cmdhooks.Settings
	require.NoError(t, json.Unmarshal([]byte(`{"PostToolUse": [
		{"hooks": [{"type": "command", "command": "hooks/one.sh"}]},
		{"matcher": "Echo", "hooks": [{"type": "command", "command": "hooks/two.sh"}]}]}`), &settings))
	ch, err := cmdhooks.New(cmdhooks.Config{Settings: settings, WorkDir: work})
	require.NoError(t, err)
	after := func(name string) hooks.Mount {
		return hooks.ToolAfter.Bind(name, func(context.Context, kernel.ToolAfterIn) (kernel.ToolFeedback, bool, error) {
			return kernel.ToolFeedback{Context: "[" + name + "]"}, true, nil
		})
	}
	echo, _ := agEcho("Echo", "echoes")
	builtin := &agCap{name: "builtin-cap", tools: []contract.Tool{echo}, mounts: []hooks.Mount{after("builtin")}}
	plugin := &agCap{name: "plugin-cap", mounts: []hooks.Mount{after("plugin")}}

	srv := modeltest.NewServer(t, modeltest.Call("Echo", `{"text":"hi"}`), modeltest.Say("done"))
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	port, err := workfs.New(work)
	require.NoError(t, err)
	k, err := kernel.New(kernel.Config{
		WorkDir: work, UserSkillRoots: []string{}, Project: capskills.New(port, nil),
		Plugins: []kernel.Capability{plugin}, CommandHooks: []kernel.Capability{ch}, Capabilities: []kernel.Capability{builtin},
		Model: client, Store: session.NewMemoryStore(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })

	var got []hooks.HandlerInfo
	points, err := k.DescribeHooks()
	require.NoError(t, err)
	for _, p := range points {
		if p.Name == hooks.ToolAfter.Name {
			got = p.Handlers
		}
	}
	assert.Equal(t, []hooks.HandlerInfo{
		{Name: "builtin", Origin: "builtin"},
		{Name: "hooks.PostToolUse[0].hooks[0] (hooks/one.sh)", Origin: "command"},
		{Name: "hooks.PostToolUse[1].hooks[0] (hooks/two.sh)", Origin: "command"},
		{Name: "plugin", Origin: "plugin"},
	}, got)

	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	agRun(t, s, "go")
	res := srv.Requests()[1].Last().Content
	idx := func(s string) int { return strings.Index(res, s) }
	for _, part := range []string{"[builtin]", "[command one]", "[command two]", "[plugin]"} {
		assert.Contains(t, res, part)
	}
	assert.True(t, idx("[builtin]") < idx("[command one]") && idx("[command one]") < idx("[command two]") && idx("[command two]") < idx("[plugin]"),
		"builtin, then commands in config order, then plugin: %q", res)
}

// Protects: M466 (ask runs the call unasked). "ask" asks the person where
// a session can ask (the TUI's Confirm), and denies in a non-interactive
// run, telling the model why.
func TestCmdHooksAsk(t *testing.T) {
	const ask = `#!/bin/sh
cat > /dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "this touches the build"}}'
`
	script := []modeltest.Step{modeltest.Call("Bash", `{"command": "touch ran"}`), modeltest.Say("done")}
	hooksJSON := `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "hooks/ask.sh"}]}]}`

	t.Run("non-interactive denies", func(t *testing.T) {
		w := chNewWorld(t, map[string]string{"ask.sh": ask}, hooksJSON, script...)
		s, _ := w.open(t, kernel.SessionConfig{})
		agRun(t, s, "go")
		assert.NoFileExists(t, filepath.Join(w.work, "ran"))
		assert.Contains(t, chLastResult(t, w.srv, 1), "not interactive")
	})
	for _, allow := range []bool{true, false} {
		t.Run(fmt.Sprintf("the person answers %v", allow), func(t *testing.T) {
			w := chNewWorld(t, map[string]string{"ask.sh": ask}, hooksJSON, script...)
			var asked []kernel.Confirmation
			s, _ := w.open(t, kernel.SessionConfig{Confirm: func(_ context.Context, q kernel.Confirmation) (bool, error) {
				asked = append(asked, q)
				return allow, nil
			}})
			agRun(t, s, "go")
			require.Len(t, asked, 1)
			assert.Equal(t, "this touches the build", asked[0].Reason)
			assert.Equal(t, "Bash", asked[0].Call.Name)
			if allow {
				assert.FileExists(t, filepath.Join(w.work, "ran"))
			} else {
				assert.NoFileExists(t, filepath.Join(w.work, "ran"))
				assert.Contains(t, chLastResult(t, w.srv, 1), "did not allow")
			}
		})
	}
}

// Protects: M467 (a failing hook blocks), M468 (output unbounded), M469
// (invalid JSON fails the hook). Hooks that crash, exit 1, print invalid
// JSON or 10 MB cost a warning each; the calls go on and the kernel stays
// up.
func TestCmdHooksMisbehavingHooks(t *testing.T) {
	scripts := map[string]string{
		"crash.sh": "#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n",
		"fail.sh":  "#!/bin/sh\ncat >/dev/null\necho 'linter not installed' >&2\nexit 1\n",
		"bad.sh":   "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\"'\n",
		"huge.sh":  "#!/bin/sh\ncat >/dev/null\nhead -c 10485760 /dev/zero | tr '\\0' '{'\n",
		"gone.sh":  "#!/bin/sh\nexit 0\n", // does not read stdin
	}
	w := chNewWorld(t, scripts, `{"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "hooks/crash.sh"},
		{"type": "command", "command": "hooks/fail.sh"},
		{"type": "command", "command": "hooks/bad.sh"},
		{"type": "command", "command": "hooks/huge.sh"},
		{"type": "command", "command": "hooks/gone.sh"},
		{"type": "command", "command": "hooks/missing.sh"}]}]}`,
		modeltest.Call("Bash", `{"command": "touch ran"}`), modeltest.Say("done"), modeltest.Say("still here"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "go")

	assert.FileExists(t, filepath.Join(w.work, "ran"), "no misbehaving hook blocked the call")
	warns := w.warnings()
	for _, want := range []string{
		"hooks.PreToolUse[0].hooks[0] (hooks/crash.sh)\" failed: it was ended by a signal (segmentation fault)",
		"hooks.PreToolUse[0].hooks[1] (hooks/fail.sh)\" failed: it exited with status 1 (a non-blocking error: only 2 blocks): linter not installed",
		"hooks.PreToolUse[0].hooks[2] (hooks/bad.sh) printed invalid JSON",
		"hooks.PreToolUse[0].hooks[3] (hooks/huge.sh) printed 10 MiB on stdout, over the limit of 1 MiB",
		"hooks.PreToolUse[0].hooks[5] (hooks/missing.sh) is off: " + filepath.Join(w.work, "hooks", "missing.sh") + " cannot be run: open ",
	} {
		assert.Contains(t, warns, want)
	}
	assert.NotContains(t, warns, "gone.sh", "a hook that does not read its stdin is fine")
	assert.Len(t, strings.Split(strings.TrimSpace(warns), "\n"), 5, "one warning per misbehaving hook: %s", warns)
	assert.Equal(t, "still here", agRun(t, s, "still up?"), "the session goes on")
}

// Protects: M470 (the project variables missing), M471 (the secrets Helios
// holds passed to hooks). A hook runs in the work dir with
// CLAUDE_PROJECT_DIR and HELIOS_PROJECT_DIR and inherits Helios's
// environment, as Claude Code's hooks do, but never the model's key (by
// its variable or under another name) or other HELIOS_* variables.
func TestCmdHooksEnvironment(t *testing.T) {
	t.Setenv("CMDHOOKS_MODEL_KEY", "sk-secret-key")
	t.Setenv("COPY_OF_THE_KEY", "sk-secret-key")
	t.Setenv("HELIOS_OTHER", "internal")
	t.Setenv("SLACK_WEBHOOK_URL", "https://hooks.example/T0")
	w := chNewWorld(t, map[string]string{"env.sh": "#!/bin/sh\ncat >/dev/null\n{ pwd; env; } > \"$CLAUDE_PROJECT_DIR/env.txt\"\n"},
		`{"SessionStart": [{"hooks": [{"type": "command", "command": "hooks/env.sh"}]}]}`)
	// The same world with a model key: its variable is Helios's secret.
	cfg, err := assembly.ParseConfig("helios.config.json", []byte(fmt.Sprintf(`{
		"model": {"baseURL": %q, "name": "scripted", "apiKeyEnv": "CMDHOOKS_MODEL_KEY", "maxRetries": 0},
		"sessions": {"dir": %q}, "skills": {"userRoots": []}, "tools": {"sandbox": {"mode": "off"}},
		"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "hooks/env.sh"}]}]}}`, w.srv.URL(), w.sessions)))
	require.NoError(t, err)
	w.k.Close()
	w.k, err = assembly.Build(t.Context(), cfg, assembly.Options{BaseDir: w.work, WorkDir: w.work, OnWarning: w.warn})
	require.NoError(t, err)
	w.open(t, kernel.SessionConfig{})
	env := chRead(t, filepath.Join(w.work, "env.txt"))
	assert.True(t, strings.HasPrefix(env, w.work+"\n"), "runs in the work dir: %s", env)
	assert.Contains(t, env, "CLAUDE_PROJECT_DIR="+w.work+"\n")
	assert.Contains(t, env, "HELIOS_PROJECT_DIR="+w.work+"\n")
	assert.Contains(t, env, "PATH=")
	assert.Contains(t, env, "SLACK_WEBHOOK_URL=https://hooks.example/T0\n", "the person's environment is inherited")
	for _, never := range []string{"sk-secret-key", "HELIOS_OTHER", "CMDHOOKS_MODEL_KEY", "COPY_OF_THE_KEY"} {
		assert.NotContains(t, env, never)
	}
}

// Protects: M536 (Bash gets no env file), M520 (PostToolUse after a
// failure). A SessionStart hook's export line in $CLAUDE_ENV_FILE (a file
// beside the session's state, not in the work dir) reaches the session's
// Bash calls; a failed call runs PostToolUseFailure, not PostToolUse.
func TestCmdHooksEnvFileAndFailure(t *testing.T) {
	w := chNewWorld(t, map[string]string{
		"start.sh": "#!/bin/sh\ncat >/dev/null\necho 'export FROM_HOOK=\"set by a hook\"' >> \"$CLAUDE_ENV_FILE\"\necho \"$CLAUDE_ENV_FILE\" > \"$CLAUDE_PROJECT_DIR/envfile.txt\"\n",
		"post.sh":  "#!/bin/sh\ncat >> \"$CLAUDE_PROJECT_DIR/post.jsonl\"\n",
		"fail.sh":  "#!/bin/sh\ncat >> \"$CLAUDE_PROJECT_DIR/fail.jsonl\"\n",
	}, `{"SessionStart": [{"hooks": [{"type": "command", "command": "hooks/start.sh"}]}],
		"PostToolUse": [{"hooks": [{"type": "command", "command": "hooks/post.sh"}]}],
		"PostToolUseFailure": [{"hooks": [{"type": "command", "command": "hooks/fail.sh"}]}]}`,
		modeltest.Call("Bash", `{"command": "echo \"$FROM_HOOK\" > seen.txt; exit 3"}`),
		modeltest.Say("done"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "go")

	envFile := strings.TrimSpace(chRead(t, filepath.Join(w.work, "envfile.txt")))
	assert.Equal(t, filepath.Join(w.sessions, "env", s.ID()+".sh"), envFile, "beside the session's state")
	assert.Equal(t, "set by a hook\n", chRead(t, filepath.Join(w.work, "seen.txt")))
	assert.NoFileExists(t, filepath.Join(w.work, "post.jsonl"), "PostToolUse after a failed call")
	fails := chInputs(t, filepath.Join(w.work, "fail.jsonl"))
	require.Len(t, fails, 1)
	assert.Equal(t, "PostToolUseFailure", fails[0]["hook_event_name"])
	assert.Contains(t, fails[0]["error"], "[exit code 3]")
}

// Protects: M472 (a bad hook accepted), M473 (an unknown event an error).
// Bad settings are a config error naming the JSON path; an event Helios
// does not run is one warning naming it.
func TestCmdHooksBadSettings(t *testing.T) {
	tests := []struct {
		name, hooks, want string
	}{
		{"prompt type", `{"Stop": [{"hooks": [{"type": "prompt", "prompt": "is it done?"}]}]}`, `hooks.Stop[0].hooks[0].type: "prompt" hooks are not supported`},
		{"no type", `{"Stop": [{"hooks": [{"command": "true"}]}]}`, `hooks.Stop[0].hooks[0].type: missing`},
		{"bad regex", `{"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "true"}]}]}`, `hooks.PreToolUse[0].matcher: not a valid regular expression`},
		{"negative timeout", `{"PostToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": -5}]}]}`, `hooks.PostToolUse[0].hooks[0].timeout: negative`},
		{"zero timeout", `{"PostToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": 0}]}]}`, `hooks.PostToolUse[0].hooks[0].timeout: 0 seconds`},
		{"no command", `{"SessionStart": [{"hooks": [{"type": "command"}]}]}`, `hooks.SessionStart[0].hooks[0].command: missing`},
		{"if", `{"SessionStart": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(rm *)"}]}]}`, `hooks.SessionStart[0].hooks[0].if: "if" filters tool calls`},
		{"bad if", `{"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(rm *"}]}]}`, `hooks.PreToolUse[0].hooks[0].if: "Bash(rm *": `},
		{"timeout a string", `{"SessionStart": [{"hooks": [{"type": "command", "command": "true", "timeout": "5s"}]}]}`, `hooks.SessionStart[0].hooks[0].timeout: want a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := assembly.ParseConfig("/p/helios.config.json", []byte(`{"hooks": `+tt.hooks+`}`))
			require.ErrorIs(t, err, assembly.ErrConfig)
			assert.Contains(t, err.Error(), "/p/helios.config.json")
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	cfg, err := assembly.ParseConfig("c.json", []byte(`{"hooks": {
		"Notification": [{"hooks": [{"type": "command", "command": "true"}]}],
		"Elicitation": [{"hooks": [{"type": "command", "command": "true"}]}],
		"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}`))
	require.NoError(t, err, "an event Helios does not run is no error")
	var warns []contract.Warning
	dir := t.TempDir()
	cfg.Sessions.Dir = t.TempDir() // out of the work dir, as hooks need for CLAUDE_ENV_FILE
	k, err := assembly.Build(t.Context(), cfg, assembly.Options{BaseDir: dir, WorkDir: dir, OnWarning: func(w contract.Warning) { warns = append(warns, w) }})
	require.NoError(t, err)
	defer k.Close()
	require.Len(t, warns, 1)
	assert.Equal(t, "hooks", warns[0].Path)
	assert.Contains(t, warns[0].Message, "Elicitation, Notification")
}
