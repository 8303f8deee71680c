//go:build unix

package cmdhooks_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/caps/permissions"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
)

// Claude Code's PermissionRequest hook on permission:request, through a
// kernel session with real permission rules (caps/permissions), real hook
// commands and a Bash tool that records what it was given.

// prRules is kernel.Permissions over a compiled rule set.
type prRules struct{ set *permissions.Set }

func (r prRules) Decide(_ context.Context, q kernel.PermissionQuery) kernel.PermissionDecision {
	d := r.set.Decide(permissions.Call{Tool: q.Call.Name, Input: q.Call.Arguments}, nil)
	return kernel.PermissionDecision{Behavior: string(d.Behavior), Rule: d.Rule, List: d.List, Reason: d.Reason}
}

// prTools holds a Bash tool that records its arguments and runs nothing.
type prTools struct {
	mu  sync.Mutex
	ran []string
}

func (p *prTools) Name() string { return "tools" }

func (p *prTools) Tools(context.Context) ([]contract.Tool, error) {
	return []contract.Tool{{Name: "Bash", Description: "Runs a command.", Call: func(_ context.Context, args json.RawMessage) (contract.ToolResult, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.ran = append(p.ran, string(args))
		return contract.ToolResult{Content: "ran " + string(args)}, nil
	}}}, nil
}

func (p *prTools) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.ran...)
}

// prRun runs one turn in which the model calls Bash with command, under the
// rules and the command hooks of settings; confirm, when set, is the
// session's Confirm. It returns what the tool ran and the result the model
// read.
func prRun(t *testing.T, work, settings string, rules permissions.Config, confirm func(context.Context, kernel.Confirmation) (bool, error), command string) ([]string, string) {
	t.Helper()
	cfg := cmdhooks.Config{WorkDir: work}
	require.NoError(t, json.Unmarshal([]byte(settings), &cfg.Settings))
	c, err := cmdhooks.New(cfg)
	require.NoError(t, err)
	set, err := permissions.Compile([]permissions.Layer{{Source: filepath.Join(work, "helios.config.json"), Config: rules, Dirs: permissions.Dirs{Project: work, Work: work}}})
	require.NoError(t, err)
	args, _ := json.Marshal(map[string]string{"command": command})
	srv := modeltest.NewServer(t, modeltest.Call("Bash", string(args)), modeltest.Say("ok"))
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	tools := &prTools{}
	k, err := kernel.New(kernel.Config{WorkDir: work, UserSkillRoots: []string{}, Store: session.NewMemoryStore(), Model: client,
		Capabilities: []kernel.Capability{tools}, CommandHooks: []kernel.Capability{c}, Permissions: prRules{set}})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{Confirm: confirm})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	_, err = s.Run(t.Context(), "go")
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	return tools.calls(), reqs[1].Last().Content
}

// prHook is settings with one PermissionRequest hook for Bash that saves
// its stdin to in and then runs command.
func prHook(in, command string) string {
	return `{"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ` + jsonString(stdinTo(in)+"; "+command) + `}]}]}`
}

// A call a deny rule matches is denied without the hook running: its allow cannot
// pass the deny.
func TestPermissionRequestHookNeverSeesADeny(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	in := filepath.Join(work, "in.json")
	allow := `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'`
	ran, result := prRun(t, work, prHook(in, allow), permissions.Config{Deny: []string{"Bash(rm:*)"}, Ask: []string{"Bash"}}, nil, "rm -rf build")
	assert.Empty(t, ran, "a call a deny rule matched ran")
	assert.NoFileExists(t, in, "the PermissionRequest hook ran for a denied call")
	assert.Contains(t, result, `"Bash(rm:*)"`)
}

// Protects: M1125 (its allow ignored), M1126 (its deny ignored), M1127
// (updatedInput dropped). An ask rule's call runs the PermissionRequest
// hook with Claude Code's input;
// its decision answers without the person (allow runs the call, with its
// updatedInput; deny and exit 2 give the model the message), and without
// a decision, or when its matcher does not select the tool, the person is
// asked.
func TestPermissionRequestHookAnswersAnAsk(t *testing.T) {
	t.Parallel()
	const push = "git push origin main"
	for _, tc := range []struct {
		name       string
		hook       string
		matcher    string
		wantRan    []string
		wantAsked  bool
		wantResult string
	}{
		{name: "allow", hook: `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'`,
			wantRan: []string{`{"command":"git push origin main"}`}, wantResult: "ran "},
		{name: "allow with updatedInput", hook: `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "git push --dry-run"}}}}'`,
			wantRan: []string{`{"command":"git push --dry-run"}`}, wantResult: "--dry-run"},
		{name: "deny", hook: `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "PUSH-NEEDS-REVIEW"}}}'`,
			wantResult: "tool call Bash denied: PUSH-NEEDS-REVIEW"},
		{name: "exit 2", hook: `echo 'STDERR-SAYS-NO' >&2; exit 2`, wantResult: "STDERR-SAYS-NO"},
		{name: "no decision", hook: `true`, wantRan: []string{`{"command":"git push origin main"}`}, wantAsked: true, wantResult: "ran "},
		{name: "other tool", matcher: "Edit", hook: `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny"}}}'`,
			wantRan: []string{`{"command":"git push origin main"}`}, wantAsked: true, wantResult: "ran "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			in := filepath.Join(work, "in.json")
			settings := prHook(in, tc.hook)
			if tc.matcher != "" {
				settings = `{"PermissionRequest": [{"matcher": "` + tc.matcher + `", "hooks": [{"type": "command", "command": ` + jsonString(tc.hook) + `}]}]}`
			}
			var mu sync.Mutex
			var asked []kernel.Confirmation
			confirm := func(_ context.Context, q kernel.Confirmation) (bool, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, q)
				return true, nil
			}
			ran, result := prRun(t, work, settings, permissions.Config{Ask: []string{"Bash(git push:*)"}}, confirm, push)
			assert.Equal(t, tc.wantRan, ran)
			assert.Contains(t, result, tc.wantResult)
			mu.Lock()
			assert.Equal(t, tc.wantAsked, len(asked) == 1, "the person was asked")
			mu.Unlock()
			if tc.matcher != "" {
				return
			}
			var got struct {
				HookEventName string          `json:"hook_event_name"`
				ToolName      string          `json:"tool_name"`
				ToolInput     json.RawMessage `json:"tool_input"`
				CWD           string          `json:"cwd"`
			}
			require.NoError(t, json.Unmarshal([]byte(readFile(t, in)), &got))
			assert.Equal(t, "PermissionRequest", got.HookEventName)
			assert.Equal(t, "Bash", got.ToolName)
			assert.JSONEq(t, `{"command":"git push origin main"}`, string(got.ToolInput))
			assert.Equal(t, work, got.CWD)
		})
	}
}

// Protects: M1128 (PermissionRequest not run). PermissionRequest is an
// event Helios runs (not among the unknown ones), and "if" filters it as
// it does the other tool events.
func TestPermissionRequestIsRunAndTakesIf(t *testing.T) {
	t.Parallel()
	var s cmdhooks.Settings
	require.NoError(t, json.Unmarshal([]byte(`{"PermissionRequest": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(git push:*)"}]}], "Notification": []}`), &s))
	assert.Empty(t, cmdhooks.Check(s))
	assert.Equal(t, []string{"Notification"}, cmdhooks.Unknown(s))
	assert.Contains(t, cmdhooks.Events(), cmdhooks.PermissionRequest)
}
