package kernel_test

// Tests of a subagent definition's permissionMode: it narrows the session's
// permission decisions, never widens them.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func smCall(id, name string) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(`{}`)}
}

// smChildResults are the tool results of the child an Agent result names.
func smChildResults(t *testing.T, w *saWorld, res session.Event) []session.Event {
	t.Helper()
	var out []session.Event
	for _, ev := range saChildLog(t, w, res) {
		if ev.Type == session.ToolResult {
			out = append(out, ev)
		}
	}
	return out
}

// smOpen opens a session answering every confirmation with yes, counting
// them, and collecting warnings.
func smOpen(t *testing.T, w *saWorld) (*kernel.Session, func() (int, []string)) {
	t.Helper()
	var mu sync.Mutex
	asked, warns := 0, []string{}
	s, err := w.k.OpenSession(t.Context(), kernel.SessionConfig{
		Confirm: func(context.Context, kernel.Confirmation) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			asked++
			return true, nil
		},
		Observe: func(u kernel.Update) {
			if u.Kind == kernel.UpdateWarning {
				mu.Lock()
				warns = append(warns, u.Text)
				mu.Unlock()
			}
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, func() (int, []string) { mu.Lock(); defer mu.Unlock(); return asked, append([]string(nil), warns...) }
}

// Protects: a plan-mode subagent's Bash call is denied while the parent's
// runs (no rules at all: every call is unmatched); its read-only Read runs.
func TestSubagentPlanModeDeniesWhatTheParentRuns(t *testing.T) {
	bash, bashProbe := agEcho("Bash", "Runs.")
	read, readProbe := agEcho("Read", "Reads.")
	def := kernel.AgentDef{Name: "planner", Description: "Plans.", PermissionMode: "plan"}
	w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}}, []kernel.Capability{&agCap{name: "tools", tools: []contract.Tool{bash, read}}},
		modeltest.Calls(smCall("p1", "Bash")),
		modeltest.Calls(saCall("a1", "planner", "plan it")),
		modeltest.Calls(smCall("c1", "Bash"), smCall("c2", "Read")),
		modeltest.Say("planned"),
		modeltest.Say("done"),
	)
	s, _ := smOpen(t, w)
	assert.Equal(t, "done", agRun(t, s, "go"))
	assert.Len(t, bashProbe.calls(), 1, "only the parent's Bash ran")
	assert.Len(t, readProbe.calls(), 1, "the planner's Read ran")
	res := agResults(s.Log())
	require.Len(t, res, 2)
	assert.False(t, res[0].IsError, "the parent's Bash: %s", res[0].Text)
	child := smChildResults(t, w, res[1])
	require.Len(t, child, 2)
	assert.True(t, child[0].IsError)
	assert.Contains(t, child[0].Text, `tool call Bash denied: no allow rule matches, and the subagent's permissionMode "plan" runs read-only tools only (not Bash)`)
	assert.False(t, child[1].IsError, child[1].Text)
}

// Protects: rules decide before a subagent's mode, as before defaultMode: an
// allow rule lets a plan subagent's Bash run; a dontAsk subagent's call an
// ask rule matches is denied without asking, while the parent's is asked.
func TestSubagentModeAfterTheRules(t *testing.T) {
	bash, bashProbe := agEcho("Bash", "Runs.")
	deploy, deployProbe := agEcho("Deploy", "Deploys.")
	rules := &pmRules{by: map[string]kernel.PermissionDecision{
		"Bash":   {Behavior: kernel.PermissionAllow, Rule: "Bash", List: "allow", Reason: `allowed by "Bash"`},
		"Deploy": {Behavior: kernel.PermissionAsk, Rule: "Deploy", List: "ask", Reason: `the ask rule "Deploy" asks`},
	}}
	defs := saAgents{
		{Name: "planner", Description: "Plans.", PermissionMode: "plan"},
		{Name: "quiet", Description: "Never asks.", PermissionMode: "dontAsk"},
	}
	w := saNewWorldWith(t, kernel.Config{Permissions: rules}, kernel.AgentsConfig{Source: defs}, []kernel.Capability{&agCap{name: "tools", tools: []contract.Tool{bash, deploy}}},
		modeltest.Calls(smCall("p1", "Deploy")),
		modeltest.Calls(saCall("a1", "planner", "plan it")),
		modeltest.Calls(smCall("c1", "Bash")),
		modeltest.Say("planned"),
		modeltest.Calls(saCall("a2", "quiet", "deploy it")),
		modeltest.Calls(smCall("q1", "Deploy")),
		modeltest.Say("could not"),
		modeltest.Say("done"),
	)
	s, state := smOpen(t, w)
	assert.Equal(t, "done", agRun(t, s, "go"))
	asked, _ := state()
	assert.Equal(t, 1, asked, "only the parent's Deploy was asked")
	assert.Len(t, bashProbe.calls(), 1, "the allow rule let the planner's Bash run")
	assert.Len(t, deployProbe.calls(), 1, "only the parent's Deploy ran")
	res := agResults(s.Log())
	require.Len(t, res, 3)
	quiet := smChildResults(t, w, res[2])
	require.Len(t, quiet, 1)
	assert.True(t, quiet[0].IsError)
	assert.Contains(t, quiet[0].Text, `the subagent's permissionMode "dontAsk" denies what would ask`)
	assert.Equal(t, "deny", quiet[0].Meta[kernel.PermissionDecisionKey])
	assert.Equal(t, "permissionMode", quiet[0].Meta[kernel.PermissionListKey])
}

// pmModed is pmRules that reports its mode, as the assembly's port does.
type pmModed struct {
	pmRules
	mode string
}

func (p *pmModed) Mode() string { return p.mode }

// Protects: a mode that would widen the session's (bypassPermissions, or
// acceptEdits in a session not in acceptEdits) is refused with a warning
// naming the file; acceptEdits in an acceptEdits session is no warning.
func TestSubagentWideningModeRefusedWithAWarning(t *testing.T) {
	for _, tc := range []struct {
		mode, session string
		warn          bool
	}{
		{"bypassPermissions", "default", true},
		{"bypassPermissions", "acceptEdits", true},
		{"acceptEdits", "default", true},
		{"acceptEdits", "acceptEdits", false},
		{"plan", "default", false},
	} {
		t.Run(tc.mode+"/"+tc.session, func(t *testing.T) {
			def := kernel.AgentDef{Name: "wide", Description: "Wants more.", PermissionMode: tc.mode, Source: "project", Path: "/w/.claude/agents/wide.md"}
			rules := &pmModed{mode: tc.session}
			w := saNewWorldWith(t, kernel.Config{Permissions: rules}, kernel.AgentsConfig{Source: saAgents{def}}, nil,
				modeltest.Calls(saCall("a1", "wide", "go")),
				modeltest.Say("went"),
				modeltest.Say("done"),
			)
			s, state := smOpen(t, w)
			assert.Equal(t, "done", agRun(t, s, "go"))
			_, warns := state()
			var mode []string
			for _, w := range warns {
				if strings.Contains(w, "permissionMode") {
					mode = append(mode, w)
				}
			}
			if !tc.warn {
				assert.Empty(t, mode)
				return
			}
			require.Len(t, mode, 1)
			assert.Contains(t, mode[0], "/w/.claude/agents/wide.md")
			assert.Contains(t, mode[0], `permissionMode: "`+tc.mode+`" would widen the session's mode "`+tc.session+`"; refused`)
		})
	}
}

// Protects: the confirmations of concurrent subagents are asked one at a
// time: two subagents, both at an ask rule at once, never have Confirm
// entered twice at once. The first question waits for a second to come in
// (it would, were they not serialized) and gives up after a while.
func TestSubagentConfirmationsOneAtATime(t *testing.T) {
	deploy, deployProbe := agEcho("Deploy", "Deploys.")
	rules := &pmRules{by: map[string]kernel.PermissionDecision{"Deploy": pmAskGit}}
	def := kernel.AgentDef{Name: "deployer", Description: "Deploys."}
	var mu sync.Mutex
	requests, calls := 0, 0
	both := make(chan struct{})
	child := func(modeltest.Recorded) modeltest.Reply {
		mu.Lock()
		requests++
		if requests == 2 {
			close(both)
		}
		calls++
		id := fmt.Sprintf("d%d", calls)
		mu.Unlock()
		select { // both children at their ask together
		case <-both:
		case <-time.After(10 * time.Second):
		}
		return modeltest.Reply{ToolCalls: []model.ToolCall{smCall(id, "Deploy")}}
	}
	var inside, most, entered atomic.Int32
	second := make(chan struct{})
	w := saNewWorldWith(t, kernel.Config{Permissions: rules}, kernel.AgentsConfig{Source: saAgents{def}}, []kernel.Capability{&agCap{name: "tools", tools: []contract.Tool{deploy}}},
		modeltest.Calls(saCall("a1", "deployer", "one"), saCall("a2", "deployer", "two")),
		child, child,
		modeltest.Say("deployed"), modeltest.Say("deployed"),
		modeltest.Say("done"),
	)
	s, err := w.k.OpenSession(t.Context(), kernel.SessionConfig{
		Confirm: func(context.Context, kernel.Confirmation) (bool, error) {
			n := inside.Add(1)
			defer inside.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			if entered.Add(1) == 2 {
				close(second)
			}
			select {
			case <-second:
			case <-time.After(500 * time.Millisecond):
			}
			return true, nil
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	assert.Equal(t, "done", agRun(t, s, "go"))
	assert.Equal(t, int32(2), entered.Load(), "both subagents asked")
	assert.Equal(t, int32(1), most.Load(), "never two questions at once")
	assert.Len(t, deployProbe.calls(), 2)
}

// Protects: a subagent:stop handler that blocks keeps the subagent going:
// its reason is the subagent's next prompt, subagent:stop runs again (told
// it continued), and the later answer is the Agent call's result.
func TestSubagentStopBlockKeepsItGoing(t *testing.T) {
	var mu sync.Mutex
	var continued []bool
	stopper := &agCap{name: "stopper", mounts: []hooks.Mount{
		hooks.SubagentStop.Bind("stop", func(_ context.Context, in kernel.SubagentStopIn) (kernel.TurnDecision, bool, error) {
			mu.Lock()
			defer mu.Unlock()
			continued = append(continued, in.Continued)
			if len(continued) == 1 {
				return kernel.TurnDecision{End: false, Reason: "now check the tests"}, true, nil
			}
			return kernel.TurnDecision{}, false, nil
		}),
	}}
	var second string
	def := kernel.AgentDef{Name: "worker", Description: "Works."}
	w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}}, []kernel.Capability{stopper},
		modeltest.Calls(saCall("a1", "worker", "work")),
		modeltest.Say("first answer"),
		func(r modeltest.Recorded) modeltest.Reply {
			second = r.Last().Content
			return modeltest.Reply{Text: "checked"}
		},
		modeltest.Say("done"),
	)
	s, _ := smOpen(t, w)
	assert.Equal(t, "done", agRun(t, s, "go"))
	assert.Equal(t, "now check the tests", second, "the reason is the subagent's next prompt")
	res := agResults(s.Log())
	require.Len(t, res, 1)
	assert.Equal(t, "checked", res[0].Text)
	mu.Lock()
	assert.Equal(t, []bool{false, true}, continued)
	mu.Unlock()
}

// Protects: a subagent:stop handler that always blocks cannot keep a
// subagent going past its maxTurns: two model requests in all, then its
// last answer is the result.
func TestSubagentStopBlockBoundedByMaxTurns(t *testing.T) {
	stopper := &agCap{name: "stopper", mounts: []hooks.Mount{
		hooks.SubagentStop.Bind("stop", func(context.Context, kernel.SubagentStopIn) (kernel.TurnDecision, bool, error) {
			return kernel.TurnDecision{End: false, Reason: "more"}, true, nil
		}),
	}}
	def := kernel.AgentDef{Name: "worker", Description: "Works.", MaxTurns: 2}
	w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}}, []kernel.Capability{stopper},
		modeltest.Calls(saCall("a1", "worker", "work")),
		modeltest.Say("one"),
		modeltest.Say("two"),
		modeltest.Say("done"),
	)
	s, _ := smOpen(t, w)
	assert.Equal(t, "done", agRun(t, s, "go"))
	res := agResults(s.Log())
	require.Len(t, res, 1)
	assert.Equal(t, "two", res[0].Text)
	assert.Len(t, w.srv.Requests(), 4, "the parent's two requests and the subagent's two")
}
