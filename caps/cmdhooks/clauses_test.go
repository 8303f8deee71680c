//go:build unix

package cmdhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/internal/proctest"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
)

// C21 on the unusual paths, through a kernel session whose model is the
// scripted server (modeltest) and whose command hooks are real commands.

// hookedSession opens a session of a kernel with the command hooks of
// settings (JSON) in work, answered by the scripted steps.
func hookedSession(t *testing.T, work, settings string, steps ...modeltest.Step) (*kernel.Session, *modeltest.Server) {
	t.Helper()
	cfg := cmdhooks.Config{WorkDir: work}
	require.NoError(t, json.Unmarshal([]byte(settings), &cfg.Settings))
	c, err := cmdhooks.New(cfg)
	require.NoError(t, err)
	srv := modeltest.NewServer(t, steps...)
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	k, err := kernel.New(kernel.Config{WorkDir: work, UserSkillRoots: []string{}, Store: session.NewMemoryStore(), Model: client,
		CommandHooks: []kernel.Capability{c}})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, srv
}

// A call a PreToolUse hook denied never ran: neither PostToolUse nor
// PostToolUseFailure runs for it (as in Claude Code), and the model reads
// the hook's reason.
func TestDeniedCallRunsNoPostHook(t *testing.T) {
	work := t.TempDir()
	post, failure := filepath.Join(work, "post.json"), filepath.Join(work, "failure.json")
	s, srv := hookedSession(t, work, `{
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'no shell today' >&2; exit 2"}]}],
		"PostToolUse": [{"hooks": [{"type": "command", "command": `+jsonString(stdinTo(post))+`}]}],
		"PostToolUseFailure": [{"hooks": [{"type": "command", "command": `+jsonString(stdinTo(failure))+`}]}]
	}`, modeltest.Call("Bash", `{"command": "rm -rf build"}`), modeltest.Say("ok"))
	_, err := s.Run(t.Context(), "clean up")
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	last := reqs[1].Last()
	assert.Contains(t, last.Content, "denied")
	assert.Contains(t, last.Content, "no shell today")
	assert.NoFileExists(t, post, "PostToolUse ran for a call that never ran")
	assert.NoFileExists(t, failure, "PostToolUseFailure ran for a call a hook denied")
}

// A turn cancelled while a hook runs ends at once as cancelled, and the
// hook and what it started in the background are killed with its group.
func TestCancelledTurnKillsHookAndItsChildren(t *testing.T) {
	work := t.TempDir()
	script := filepath.Join(work, "slow.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nsleep 300 &\necho $! > child.pid\necho $$ > hook.pid\nsleep 300\n"), 0o755))
	s, _ := hookedSession(t, work, `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": `+jsonString(script)+`, "timeout": 120}]}]}`,
		modeltest.Call("Bash", `{"command": "make"}`))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := s.Run(ctx, "build it"); done <- err }()
	pid := func(name string) int {
		var n int
		proctest.Eventually(t, 20*time.Second, name, func() bool {
			b, err := os.ReadFile(filepath.Join(work, name))
			if err != nil || !strings.HasSuffix(string(b), "\n") {
				return false
			}
			n, err = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil
		})
		return n
	}
	child, hook := pid("child.pid"), pid("hook.pid")
	require.True(t, proctest.Alive(hook))
	cancel()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.True(t, errors.Is(err, context.Canceled), "the turn ends as cancelled: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the turn did not end when it was cancelled")
	}
	proctest.Eventually(t, 10*time.Second, "the hook to die", func() bool { return !proctest.Alive(hook) })
	proctest.Eventually(t, 10*time.Second, "the hook's background child to die", func() bool { return !proctest.Alive(child) })
}

// Every event Helios runs arrives on its documented point with Claude
// Code's hook_event_name and the fields of that event (docs/hooks.md's
// table); the table must name every event of cmdhooks.Events.
func TestEveryEventArrivesOnItsPoint(t *testing.T) {
	call := hookdata.ToolCall{ID: "toolu_9", Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)}
	cases := map[string]struct {
		point string
		in    any
		field string
		want  any
	}{
		cmdhooks.SessionStart:       {"session:start", kernel.SessionStartIn{SessionID: "s1"}, "source", "startup"},
		cmdhooks.InstructionsLoaded: {"instructions:loaded", kernel.InstructionsLoadedIn{SessionID: "s1", Files: []hookdata.InstructionFile{{Path: "/w/AGENTS.md", MemoryType: "Project", LoadReason: "session_start"}}}, "file_path", "/w/AGENTS.md"},
		cmdhooks.UserPromptSubmit:   {"prompt:submit", kernel.PromptSubmitIn{SessionID: "s1", Prompt: "hello"}, "prompt", "hello"},
		cmdhooks.PreToolUse:         {"tool:before", kernel.ToolBeforeIn{SessionID: "s1", Call: call}, "tool_name", "Bash"},
		cmdhooks.PermissionRequest:  {"permission:request", kernel.PermissionRequestIn{SessionID: "s1", Call: call, Rule: "Bash"}, "tool_name", "Bash"},
		cmdhooks.PostToolUse:        {"tool:after", kernel.ToolAfterIn{SessionID: "s1", Call: call, Content: "a\n"}, "tool_use_id", "toolu_9"},
		cmdhooks.PostToolUseFailure: {"tool:after", kernel.ToolAfterIn{SessionID: "s1", Call: call, Content: "boom", IsError: true}, "error", "boom"},
		cmdhooks.Stop:               {"turn:end", kernel.TurnEndIn{SessionID: "s1", Step: 1, Text: "done"}, "stop_hook_active", false},
		cmdhooks.PreCompact:         {"compact:before", kernel.CompactBeforeIn{SessionID: "s1"}, "trigger", "auto"},
		cmdhooks.SessionEnd:         {"session:end", kernel.SessionEndIn{SessionID: "s1"}, "reason", "other"},
		cmdhooks.SubagentStart:      {"subagent:start", kernel.SubagentStartIn{SessionID: "s1", AgentID: "c1", AgentType: "rev"}, "agent_type", "rev"},
		cmdhooks.SubagentStop:       {"subagent:stop", kernel.SubagentStopIn{SessionID: "s1", AgentID: "c1", AgentType: "rev", LastAssistantMessage: "ok"}, "last_assistant_message", "ok"},
	}
	for _, event := range cmdhooks.Events() {
		t.Run(event, func(t *testing.T) {
			c, ok := cases[event]
			require.True(t, ok, "the table lacks the event %s that Helios runs", event)
			work := t.TempDir()
			out := filepath.Join(work, "in.json")
			ms := newHooks(t, `{"`+event+`": [{"hooks": [{"type": "command", "command": `+jsonString(stdinTo(out))+`}]}]}`, cmdhooks.Config{WorkDir: work})
			require.Len(t, ms, 1)
			assert.Equal(t, c.point, ms[0].Point)
			_, err := ms[0].Handler(context.Background(), c.in)
			require.NoError(t, err)
			var in map[string]any
			require.NoError(t, json.Unmarshal([]byte(readFile(t, out)), &in), "the hook ran with JSON on stdin")
			assert.Equal(t, event, in["hook_event_name"])
			assert.Equal(t, "s1", in["session_id"])
			assert.Equal(t, work, in["cwd"])
			assert.Equal(t, c.want, in[c.field])
		})
	}
	assert.Len(t, cases, len(cmdhooks.Events()), "every row is an event Helios runs")
}
