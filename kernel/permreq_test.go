package kernel_test

// Tests of permission:request, the point that answers a permission ask
// before the person is asked (Claude Code's PermissionRequest hook).

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prHandler answers every permission:request with a and records what it
// was given.
type prHandler struct {
	a        kernel.PermissionAnswer
	answered bool

	mu  sync.Mutex
	ins []kernel.PermissionRequestIn
}

func (h *prHandler) mount() hooks.Mount {
	return agFirstWin(hooks.PermissionRequest, "answerer", func(_ context.Context, in kernel.PermissionRequestIn) (kernel.PermissionAnswer, bool, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.ins = append(h.ins, in)
		return h.a, h.answered, nil
	})
}

func (h *prHandler) got() []kernel.PermissionRequestIn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]kernel.PermissionRequestIn(nil), h.ins...)
}

// prSession runs one turn of the given calls on a kernel whose Bash
// decisions are rules, with h mounted on permission:request; it returns
// the Bash tool's probe, the results and the confirmations asked.
func prSession(t *testing.T, rules *pmRules, h *prHandler, withConfirm bool, calls ...model.ToolCall) (*agProbe, []kernel.Confirmation, *kernel.Session) {
	t.Helper()
	bash, probe := agEcho("Bash", "Runs a command.")
	c := &agCap{name: "tools", tools: []contract.Tool{bash}, mounts: []hooks.Mount{h.mount()}}
	k := pmKernel(t, rules, []kernel.Capability{c}, "", pmScript(calls...)...)
	var mu sync.Mutex
	var asked []kernel.Confirmation
	cfg := kernel.SessionConfig{}
	if withConfirm {
		cfg.Confirm = func(_ context.Context, q kernel.Confirmation) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, q)
			return true, nil
		}
	}
	s := pmOpen(t, k, cfg)
	pmRun(t, t.Context(), s, "go")
	mu.Lock()
	defer mu.Unlock()
	return probe, append([]kernel.Confirmation(nil), asked...), s
}

var prPush = model.ToolCall{ID: "c1", Name: "Bash", Arguments: json.RawMessage(`{"command":"git push"}`)}

// Protects: M1120 (permission:request consulted for a deny rule). A call a
// deny rule matches is denied before anyone is asked: the handler is not
// run, and its allow could not pass the deny.
func TestPermissionRequestNeverSeesADeny(t *testing.T) {
	h := &prHandler{a: kernel.PermissionAnswer{}, answered: true}
	probe, asked, s := prSession(t, &pmRules{by: map[string]kernel.PermissionDecision{"Bash": pmDenyRm}}, h, true,
		model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"rm -rf /"}`)})
	assert.Empty(t, h.got(), "permission:request ran for a denied call")
	assert.Empty(t, probe.calls(), "a denied call ran")
	assert.Empty(t, asked)
	res := pmResults(s.Log())
	require.Len(t, res, 1)
	assert.True(t, res[0].IsError)
	assert.Contains(t, res[0].Text, `denied by the deny rule "Bash(rm:*)"`)
}

// Protects: M1121 (its allow ignored), M1122 (its deny ignored). An ask
// rule's call goes to permission:request first: allow runs it without
// Confirm (with its Args, when set), deny gives the model an error result
// with its message without Confirm, no decision asks the person, and with
// no one to ask is denied as without the point.
func TestPermissionRequestAnswersAnAsk(t *testing.T) {
	for _, tc := range []struct {
		name        string
		h           *prHandler
		confirm     bool
		wantRun     string // the arguments the tool got; "" when it did not run
		wantAsked   bool
		wantResult  string
		wantIsError bool
	}{
		{name: "allow", h: &prHandler{answered: true}, confirm: true, wantRun: `{"command":"git push"}`, wantResult: "Bash got"},
		{name: "allow headless", h: &prHandler{answered: true}, wantRun: `{"command":"git push"}`, wantResult: "Bash got"},
		{name: "allow with args", h: &prHandler{answered: true, a: kernel.PermissionAnswer{Args: json.RawMessage(`{"command":"git push --dry-run"}`)}}, confirm: true,
			wantRun: `{"command":"git push --dry-run"}`, wantResult: "--dry-run"},
		{name: "deny", h: &prHandler{answered: true, a: kernel.PermissionAnswer{Deny: true, Message: "NO-PUSHING-ON-FRIDAY"}}, confirm: true,
			wantResult: "tool call Bash denied: NO-PUSHING-ON-FRIDAY", wantIsError: true},
		{name: "deny without message", h: &prHandler{answered: true, a: kernel.PermissionAnswer{Deny: true}}, confirm: true,
			wantResult: "denied by a permission:request handler", wantIsError: true},
		{name: "no decision", h: &prHandler{}, confirm: true, wantRun: `{"command":"git push"}`, wantAsked: true, wantResult: "Bash got"},
		{name: "no decision headless", h: &prHandler{}, wantResult: "no one can be asked", wantIsError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probe, asked, s := prSession(t, &pmRules{by: map[string]kernel.PermissionDecision{"Bash": pmAskGit}}, tc.h, tc.confirm, prPush)
			if tc.wantRun == "" {
				assert.Empty(t, probe.calls(), "the call ran")
			} else {
				assert.Equal(t, []string{tc.wantRun}, probe.calls())
			}
			assert.Equal(t, tc.wantAsked, len(asked) == 1, "the person was asked")
			got := tc.h.got()
			require.Len(t, got, 1, "permission:request ran once")
			assert.Equal(t, "Bash(git push:*)", got[0].Rule)
			assert.Equal(t, "Bash", got[0].Call.Name)
			assert.JSONEq(t, `{"command":"git push"}`, string(got[0].Call.Arguments))
			assert.Contains(t, got[0].Reason, pmAskGit.Reason)
			res := pmResults(s.Log())
			require.Len(t, res, 1)
			assert.Contains(t, res[0].Text, tc.wantResult)
			assert.Equal(t, tc.wantIsError, res[0].IsError)
			assert.Equal(t, "ask", res[0].Meta[kernel.PermissionDecisionKey], "the rules' decision is recorded")
		})
	}
}

// Protects: M1123 (a rewrite passes a deny rule). A tool:before
// handler's ask reaches permission:request too (with no rule), and an
// answer's Args meet the deny rules again: a rewrite never passes a deny.
func TestPermissionRequestHookAskAndRewrittenDeny(t *testing.T) {
	bash, probe := agEcho("Bash", "Runs a command.")
	h := &prHandler{answered: true, a: kernel.PermissionAnswer{Args: json.RawMessage(`{"command":"rm -rf /"}`)}}
	c := &agCap{name: "tools", tools: []contract.Tool{bash}, mounts: []hooks.Mount{
		agFirstWin(hooks.ToolBefore, "asker", func(context.Context, kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
			return kernel.ToolDecision{Ask: true, Reason: "HOOK-ASKS"}, true, nil
		}), h.mount()}}
	rules := &denyRm{}
	k := pmKernel(t, rules, []kernel.Capability{c}, "", pmScript(model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)})...)
	s := pmOpen(t, k, kernel.SessionConfig{Confirm: func(context.Context, kernel.Confirmation) (bool, error) {
		t.Error("Confirm was called")
		return true, nil
	}})
	pmRun(t, t.Context(), s, "go")
	got := h.got()
	require.Len(t, got, 1)
	assert.Empty(t, got[0].Rule, "only a hook asked")
	assert.Equal(t, "HOOK-ASKS", got[0].Reason)
	assert.Empty(t, probe.calls(), "a rewrite passed a deny rule")
	res := pmResults(s.Log())
	require.Len(t, res, 1)
	assert.True(t, res[0].IsError)
	assert.Contains(t, res[0].Text, `denied by the deny rule "Bash(rm:*)"`)
}

// Protects: M1124 (Interrupt ignored). A deny answer with Interrupt ends
// the turn after this step, telling the person why: the model is not asked
// again.
func TestPermissionRequestInterruptStopsTheTurn(t *testing.T) {
	bash, probe := agEcho("Bash", "Runs a command.")
	h := &prHandler{answered: true, a: kernel.PermissionAnswer{Deny: true, Message: "STOP-HERE", Interrupt: true}}
	c := &agCap{name: "tools", tools: []contract.Tool{bash}, mounts: []hooks.Mount{h.mount()}}
	k := pmKernel(t, &pmRules{by: map[string]kernel.PermissionDecision{"Bash": pmAskGit}}, []kernel.Capability{c}, "", pmScript(prPush)[:1]...)
	s := pmOpen(t, k, kernel.SessionConfig{})
	_, err := s.Run(t.Context(), "go")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "STOP-HERE")
	assert.Empty(t, probe.calls())
	res := pmResults(s.Log())
	require.Len(t, res, 1, "the turn went on after an interrupt")
	assert.Contains(t, res[0].Text, "STOP-HERE")
}

// denyRm denies a Bash call whose command is "rm -rf /" and decides
// nothing else.
type denyRm struct{}

func (denyRm) Decide(_ context.Context, q kernel.PermissionQuery) kernel.PermissionDecision {
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(q.Call.Arguments, &a)
	if a.Command == "rm -rf /" {
		return pmDenyRm
	}
	return kernel.PermissionDecision{}
}
