package kernel_test

// Tests of the Permissions port (C31) in the tool call path: a scripted
// model over HTTP, the real step loop, and a Permissions that decides by
// tool name and records what it was asked.

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// pmRules decides by tool name (unlisted tools: no decision) and records
// every query.
type pmRules struct {
	by map[string]kernel.PermissionDecision

	mu sync.Mutex
	qs []kernel.PermissionQuery
}

func (r *pmRules) Decide(_ context.Context, q kernel.PermissionQuery) kernel.PermissionDecision {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.qs = append(r.qs, q)
	return r.by[q.Call.Name]
}

func (r *pmRules) queries() []kernel.PermissionQuery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]kernel.PermissionQuery(nil), r.qs...)
}

var (
	pmDenyRm = kernel.PermissionDecision{Behavior: kernel.PermissionDeny, Rule: "Bash(rm:*)", List: "deny", Reason: `denied by the deny rule "Bash(rm:*)"`}
	pmAskGit = kernel.PermissionDecision{Behavior: kernel.PermissionAsk, Rule: "Bash(git push:*)", List: "ask", Reason: `the ask rule "Bash(git push:*)" asks`}
)

// pmKernel is a kernel with rules, the given capabilities and user skill
// root, over a scripted model.
func pmKernel(t *testing.T, rules kernel.Permissions, caps []kernel.Capability, root string, script ...modeltest.Step) *kernel.Kernel {
	t.Helper()
	return pmKernelWith(t, kernel.Config{Permissions: rules}, caps, root, script...)
}

func pmKernelTel(t *testing.T, tel *telemetry.T, rules kernel.Permissions, caps []kernel.Capability, root string, script ...modeltest.Step) *kernel.Kernel {
	t.Helper()
	return pmKernelWith(t, kernel.Config{Permissions: rules, Telemetry: tel}, caps, root, script...)
}

// pmKernelWith is pmKernel with base's Permissions, Telemetry and
// SkillsMode.
func pmKernelWith(t *testing.T, base kernel.Config, caps []kernel.Capability, root string, script ...modeltest.Step) *kernel.Kernel {
	t.Helper()
	srv := modeltest.NewServer(t, script...)
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	roots := []string{}
	if root != "" {
		roots = []string{root}
	}
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: roots, Capabilities: caps,
		Model: client, Store: session.NewMemoryStore(), Permissions: base.Permissions, Telemetry: base.Telemetry, SkillsMode: base.SkillsMode})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	return k
}

func pmOpen(t *testing.T, k *kernel.Kernel, cfg kernel.SessionConfig) *kernel.Session {
	t.Helper()
	s, err := k.OpenSession(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func pmRun(t *testing.T, ctx context.Context, s *kernel.Session, prompt string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	answer, err := s.Run(ctx, prompt)
	require.NoError(t, err)
	return answer
}

func pmResults(l session.Log) []session.Event {
	var out []session.Event
	for i := range l.Len() {
		if ev := l.At(i); ev.Type == session.ToolResult {
			out = append(out, ev)
		}
	}
	return out
}

// call, then "done": a turn of one tool call.
func pmScript(calls ...model.ToolCall) []modeltest.Step {
	steps := make([]modeltest.Step, 0, len(calls)+1)
	for _, c := range calls {
		steps = append(steps, func(modeltest.Recorded) modeltest.Reply { return modeltest.Reply{ToolCalls: []model.ToolCall{c}} })
	}
	return append(steps, func(modeltest.Recorded) modeltest.Reply { return modeltest.Reply{Text: "done"} })
}

// Protects: M790 (a deny rule ignored in the tool path). A denied call is
// not run, the model gets an error result naming the rule, the turn goes
// on, and the log and the update record the decision; an allowed call runs
// and is recorded as allowed.
func TestPermissionsDenyIsAResultAndTheTurnGoesOn(t *testing.T) {
	bash, bashProbe := agEcho("Bash", "Runs a command.")
	read, readProbe := agEcho("Read", "Reads a file.")
	rules := &pmRules{by: map[string]kernel.PermissionDecision{"Bash": pmDenyRm, "Read": {Behavior: kernel.PermissionAllow, Rule: "Read", List: "allow"}}}
	k := pmKernel(t, rules, []kernel.Capability{&agCap{name: "tools", tools: []contract.Tool{bash, read}}}, "",
		pmScript(model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"rm -rf /"}`)},
			model.ToolCall{Name: "Read", Arguments: json.RawMessage(`{"path":"a"}`)})...)
	var mu sync.Mutex
	var ups []kernel.Update
	s := pmOpen(t, k, kernel.SessionConfig{Observe: func(u kernel.Update) {
		mu.Lock()
		defer mu.Unlock()
		if u.Kind == kernel.UpdateToolResult {
			ups = append(ups, u)
		}
	}})

	assert.Equal(t, "done", pmRun(t, t.Context(), s, "clean up"), "the turn goes on after a denial")
	assert.Empty(t, bashProbe.calls(), "a denied call ran")
	assert.Len(t, readProbe.calls(), 1, "an allowed call did not run")
	res := pmResults(s.Log())
	require.Len(t, res, 2)
	assert.True(t, res[0].IsError)
	assert.Contains(t, res[0].Text, `denied by the deny rule "Bash(rm:*)"`)
	assert.Equal(t, map[string]string{kernel.PermissionDecisionKey: "deny", kernel.PermissionRuleKey: "Bash(rm:*)", kernel.PermissionListKey: "deny"}, res[0].Meta)
	assert.False(t, res[1].IsError)
	assert.Equal(t, "allow", res[1].Meta[kernel.PermissionDecisionKey])
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, ups, 2)
	assert.Equal(t, pmDenyRm, ups[0].Permission, "the update carries the decision")
}

// Protects: M791 (ask not denied without a person). A rule's ask is denied
// when no one can be asked, naming the rule; with a person it is asked,
// with the rule in the question, and runs only on yes.
func TestPermissionsAsk(t *testing.T) {
	for _, tc := range []struct {
		name    string
		confirm func(context.Context, kernel.Confirmation) (bool, error)
		wantRun bool
		want    string
	}{
		{name: "headless", want: `the ask rule "Bash(git push:*)" asks the person to confirm this call, and no one can be asked`},
		{name: "yes", confirm: func(context.Context, kernel.Confirmation) (bool, error) { return true, nil }, wantRun: true, want: "Bash got"},
		{name: "no", confirm: func(context.Context, kernel.Confirmation) (bool, error) { return false, nil }, want: "the person did not allow it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bash, probe := agEcho("Bash", "Runs a command.")
			k := pmKernel(t, &pmRules{by: map[string]kernel.PermissionDecision{"Bash": pmAskGit}}, []kernel.Capability{&agCap{name: "tools", tools: []contract.Tool{bash}}}, "",
				pmScript(model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"git push"}`)})...)
			var asked []kernel.Confirmation
			cfg := kernel.SessionConfig{}
			if tc.confirm != nil {
				cfg.Confirm = func(ctx context.Context, q kernel.Confirmation) (bool, error) {
					asked = append(asked, q)
					return tc.confirm(ctx, q)
				}
			}
			s := pmOpen(t, k, cfg)
			assert.Equal(t, "done", pmRun(t, t.Context(), s, "push"))
			assert.Equal(t, tc.wantRun, len(probe.calls()) == 1, "ran")
			res := pmResults(s.Log())
			require.Len(t, res, 1)
			assert.Contains(t, res[0].Text, tc.want)
			if tc.confirm != nil {
				require.Len(t, asked, 1)
				assert.Equal(t, "Bash(git push:*)", asked[0].Rule)
				assert.Contains(t, asked[0].Reason, pmAskGit.Reason)
			}
		})
	}
}

// A hook's deny wins before the rules are consulted; a hook's allow does
// not pass a deny rule.
func TestPermissionsAfterHooks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		hook      kernel.ToolDecision
		wantAsked bool
		want      string
	}{
		{name: "hook denies", hook: kernel.ToolDecision{Deny: true, Reason: "HOOK-DENIAL"}, want: "HOOK-DENIAL"},
		{name: "hook allows", hook: kernel.ToolDecision{Reason: "hook says fine"}, wantAsked: true, want: `deny rule "Bash(rm:*)"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bash, probe := agEcho("Bash", "Runs a command.")
			hook := &agCap{name: "guard", tools: []contract.Tool{bash}, mounts: []hooks.Mount{
				agFirstWin(hooks.ToolBefore, "guard", func(context.Context, kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
					return tc.hook, true, nil
				})}}
			rules := &pmRules{by: map[string]kernel.PermissionDecision{"Bash": pmDenyRm}}
			k := pmKernel(t, rules, []kernel.Capability{hook}, "", pmScript(model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"rm x"}`)})...)
			s := pmOpen(t, k, kernel.SessionConfig{})
			pmRun(t, t.Context(), s, "go")
			assert.Empty(t, probe.calls())
			assert.Equal(t, tc.wantAsked, len(rules.queries()) == 1, "rules consulted")
			res := pmResults(s.Log())
			require.Len(t, res, 1)
			assert.Contains(t, res[0].Text, tc.want)
		})
	}
}

// Protects: M792 (allowed-tools ignored), M793 (allowed-tools kept past
// the turn). A skill's allowed-tools reach the rules as pre-approved from
// its load until the end of the turn, not before it and not in the next
// turn; a slash command's (WithPreapproved) for the turn it starts.
func TestPermissionsPreapprovedWhileTheSkillIsActive(t *testing.T) {
	for _, mode := range []skills.Mode{skills.ModeCatalog, skills.ModeTools} {
		t.Run(mode.String(), func(t *testing.T) {
			root := skillfstest.RealTempDir(t)
			skillfstest.WriteSkill(t, root, "toucher", "name: toucher\ndescription: Touches files.\nallowed-tools: Bash(touch:*) Read", "touch them\n")
			bash, _ := agEcho("Bash", "Runs a command.")
			rules := &pmRules{}
			touch := model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"touch a"}`)}
			load := model.ToolCall{Name: skills.SkillToolName, Arguments: json.RawMessage(`{"name":"toucher"}`)}
			if mode == skills.ModeTools {
				load = model.ToolCall{Name: "toucher", Arguments: json.RawMessage(`{}`)}
			}
			script := pmScript(touch, load, touch)
			script = append(script, pmScript(touch)...)
			script = append(script, pmScript(touch)...)
			k := pmKernelWith(t, kernel.Config{Permissions: rules, SkillsMode: mode}, []kernel.Capability{&agCap{name: "tools", tools: []contract.Tool{bash}}}, root, script...)
			s := pmOpen(t, k, kernel.SessionConfig{})

			pmRun(t, t.Context(), s, "touch with the skill")
			pmRun(t, t.Context(), s, "touch again")
			pmRun(t, kernel.WithPreapproved(t.Context(), []string{"Bash(touch:*)"}), s, "/touch")

			var got [][]string
			for _, q := range rules.queries() {
				if q.Call.Name == "Bash" {
					got = append(got, q.Preapproved)
				}
			}
			assert.Equal(t, [][]string{nil, {"Bash(touch:*)", "Read"}, nil, {"Bash(touch:*)"}}, got)
		})
	}
}

// Protects: M802 (the decision left out of the tool span). The tool span
// carries permission.decision and permission.rule.
func TestPermissionsOnTheToolSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	tel, err := telemetry.New(tp, metricnoop.NewMeterProvider(), false)
	require.NoError(t, err)
	bash, _ := agEcho("Bash", "Runs a command.")
	k := pmKernelTel(t, tel, &pmRules{by: map[string]kernel.PermissionDecision{"Bash": pmDenyRm}}, []kernel.Capability{&agCap{name: "tools", tools: []contract.Tool{bash}}}, "",
		pmScript(model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"rm x"}`)})...)
	pmRun(t, t.Context(), pmOpen(t, k, kernel.SessionConfig{}), "go")
	var attrs map[string]string
	for _, sp := range rec.Ended() {
		if sp.Name() == "execute_tool Bash" {
			attrs = map[string]string{}
			for _, a := range sp.Attributes() {
				attrs[string(a.Key)] = a.Value.Emit()
			}
		}
	}
	require.NotNil(t, attrs, "no tool span")
	assert.Equal(t, "deny", attrs["permission.decision"])
	assert.Equal(t, "Bash(rm:*)", attrs["permission.rule"])
}

// Protects: M806 (a hook's ask offered as a rule's). When a hook asks, the
// question names no rule (so the person's "always" cannot answer a hook's
// later asks), even when an allow rule matched; a rule's ask names it.
func TestPermissionsConfirmationNamesOnlyAnAskingRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hookAsks bool
		rule     kernel.PermissionDecision
		want     string
	}{
		{name: "hook asks, allow rule", hookAsks: true, rule: kernel.PermissionDecision{Behavior: kernel.PermissionAllow, Rule: "Bash", List: "allow"}, want: ""},
		{name: "hook asks, ask rule", hookAsks: true, rule: pmAskGit, want: ""},
		{name: "ask rule alone", rule: pmAskGit, want: "Bash(git push:*)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bash, _ := agEcho("Bash", "Runs a command.")
			hook := &agCap{name: "guard", tools: []contract.Tool{bash}, mounts: []hooks.Mount{
				agFirstWin(hooks.ToolBefore, "guard", func(context.Context, kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
					return kernel.ToolDecision{Ask: true, Reason: "hook wants a look"}, tc.hookAsks, nil
				})}}
			k := pmKernel(t, &pmRules{by: map[string]kernel.PermissionDecision{"Bash": tc.rule}}, []kernel.Capability{hook}, "",
				pmScript(model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"git push"}`)})...)
			var asked []kernel.Confirmation
			s := pmOpen(t, k, kernel.SessionConfig{Confirm: func(_ context.Context, q kernel.Confirmation) (bool, error) {
				asked = append(asked, q)
				return true, nil
			}})
			pmRun(t, t.Context(), s, "push")
			require.Len(t, asked, 1)
			assert.Equal(t, tc.want, asked[0].Rule)
		})
	}
}

// Protects: M1031 (a tools-mode skill tool decided as an unknown tool). In
// tools mode a skill's own tool is asked about with the skill it loads, so
// Skill(name) rules meet it; a catalog-mode load and any other tool carry
// no skill.
func TestPermissionsSkillOfToolsModeTool(t *testing.T) {
	for _, tc := range []struct {
		mode skills.Mode
		load model.ToolCall
		want string
	}{
		{skills.ModeTools, model.ToolCall{Name: "deployer", Arguments: json.RawMessage(`{}`)}, "deployer"},
		{skills.ModeCatalog, model.ToolCall{Name: skills.SkillToolName, Arguments: json.RawMessage(`{"name":"deployer"}`)}, ""},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			root := skillfstest.RealTempDir(t)
			skillfstest.WriteSkill(t, root, "deployer", "name: deployer\ndescription: Deploys.", "deploy it\n")
			bash, _ := agEcho("Bash", "Runs a command.")
			rules := &pmRules{}
			k := pmKernelWith(t, kernel.Config{Permissions: rules, SkillsMode: tc.mode}, []kernel.Capability{&agCap{name: "tools", tools: []contract.Tool{bash}}}, root,
				pmScript(tc.load, model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)})...)
			pmRun(t, t.Context(), pmOpen(t, k, kernel.SessionConfig{}), "deploy")
			qs := rules.queries()
			require.Len(t, qs, 2)
			assert.Equal(t, tc.want, qs[0].Skill, "the load")
			assert.Empty(t, qs[1].Skill, "Bash")
		})
	}
}
