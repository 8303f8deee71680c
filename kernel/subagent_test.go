package kernel_test

// Tests of subagents (DESIGN.md C33): the Agent tool runs a definition's turn
// in a child session, scoped by the kernel, linked in the log, concurrently
// with its siblings up to the limit; its failure is the call's error result.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
	"github.com/helios-agents/helios/workfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// saAgents is a fixed set of definitions.
type saAgents []kernel.AgentDef

func (a saAgents) Agents(context.Context) ([]kernel.AgentDef, []contract.Warning) { return a, nil }

type saWorld struct {
	work  string
	srv   *modeltest.Server
	k     *kernel.Kernel
	store session.Store
}

func saNewWorld(t *testing.T, agents kernel.AgentsConfig, caps []kernel.Capability, script ...modeltest.Step) *saWorld {
	t.Helper()
	return saNewWorldWith(t, kernel.Config{}, agents, caps, script...)
}

// saNewWorldWith is saNewWorld with base's Telemetry, Permissions and
// SkillsMode.
func saNewWorldWith(t *testing.T, base kernel.Config, agents kernel.AgentsConfig, caps []kernel.Capability, script ...modeltest.Step) *saWorld {
	t.Helper()
	w := &saWorld{work: t.TempDir(), store: session.NewMemoryStore()}
	w.srv = modeltest.NewStrictServer(t, script...)
	client, err := openai.New(openai.Config{BaseURL: w.srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	port, err := workfs.New(w.work)
	require.NoError(t, err)
	w.k, err = kernel.New(kernel.Config{
		WorkDir:        w.work,
		UserSkillRoots: []string{},
		Project:        capskills.New(port, nil),
		Capabilities:   caps,
		Model:          client,
		Store:          w.store,
		Agents:         agents,
		Telemetry:      base.Telemetry,
		Permissions:    base.Permissions,
		SkillsMode:     base.SkillsMode,
	})
	if err != nil {
		port.Close()
	}
	require.NoError(t, err)
	t.Cleanup(func() { w.k.Close() })
	return w
}

func (w *saWorld) open(t *testing.T) *kernel.Session {
	t.Helper()
	s, err := w.k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func saCall(id, agent, prompt string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"subagent_type": agent, "description": "a task", "prompt": prompt})
	return model.ToolCall{ID: id, Name: kernel.AgentToolName, Arguments: args}
}

func saToolNames(r modeltest.Recorded) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

func saSkill(t *testing.T, work, name string) {
	t.Helper()
	dir := filepath.Join(work, ".helios/skills", name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: The "+name+" skill.\n---\n"+strings.ToUpper(name)+"-BODY\n"), 0o644))
}

// saChildLog opens the child session an Agent result names.
func saChildLog(t *testing.T, w *saWorld, res session.Event) []session.Event {
	t.Helper()
	id := res.Meta[kernel.MetaSubagentSession]
	require.NotEmpty(t, id, "the Agent result names its child session: %+v", res)
	l, err := w.store.Open(t.Context(), id)
	require.NoError(t, err)
	defer l.Close()
	return agEvents(l)
}

// Protects: a subagent scoped to one skill and one tool: its request lists
// only that skill (in the catalog) and only its tools (skill tools and Echo:
// no Other, no Agent at depth 1); loading another skill is refused as
// unknown; its answer is the parent's result; the child is linked both ways
// in the log; hooks fire for its tool calls and on subagent:start/stop; its
// usage is on the parent's result.
func TestSubagentScopedToOneSkillAndItsTools(t *testing.T) {
	echo, echoProbe := agEcho("Echo", "Echoes.")
	other, _ := agEcho("Other", "Another tool.")
	var mu sync.Mutex
	var seen []string
	rec := func(s string) { mu.Lock(); seen = append(seen, s); mu.Unlock() }
	probe := &agCap{name: "probe", tools: []contract.Tool{echo, other}, mounts: []hooks.Mount{
		agFirstWin(hooks.ToolBefore, "before", func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
			rec("tool:before " + in.Call.Name)
			return kernel.ToolDecision{}, false, nil
		}),
		hooks.SubagentStart.Bind("start", func(_ context.Context, in kernel.SubagentStartIn) error {
			rec("subagent:start " + in.AgentType)
			return nil
		}),
		hooks.SubagentStop.Bind("stop", func(_ context.Context, in kernel.SubagentStopIn) (kernel.TurnDecision, bool, error) {
			rec("subagent:stop " + in.AgentType + " " + in.LastAssistantMessage)
			return kernel.TurnDecision{}, false, nil
		}),
	}}
	def := kernel.AgentDef{Name: "reviewer", Description: "Reviews.", Prompt: "You are the reviewer.", Tools: []string{"Echo"}, Skills: []string{"alpha"}}
	w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}}, []kernel.Capability{probe},
		modeltest.Calls(saCall("a1", "reviewer", "review it")),
		modeltest.Calls(model.ToolCall{ID: "c1", Name: "skill", Arguments: json.RawMessage(`{"name":"beta"}`)},
			model.ToolCall{ID: "c2", Name: "Echo", Arguments: json.RawMessage(`{"x":1}`)}),
		modeltest.Say("reviewed: fine"),
		modeltest.Say("all done"),
	)
	saSkill(t, w.work, "alpha")
	saSkill(t, w.work, "beta")
	s := w.open(t)
	assert.Equal(t, "all done", agRun(t, s, "go"))

	reqs := w.srv.Requests()
	require.Len(t, reqs, 4)
	assert.Contains(t, saToolNames(reqs[0]), kernel.AgentToolName, "the parent gets the Agent tool")
	assert.Contains(t, saToolNames(reqs[0]), "Other")
	assert.Equal(t, []string{"skill", "skill_search", "Echo"}, saToolNames(reqs[1]), "the child gets only its skill tools and its tools")
	assert.True(t, strings.HasPrefix(reqs[1].System, "You are the reviewer."), "the body is the child's system prompt")
	var childCatalog string
	for _, m := range reqs[1].Messages {
		childCatalog += m.Content
	}
	assert.Contains(t, childCatalog, "alpha")
	assert.NotContains(t, childCatalog, "beta", "the child's catalog lists only its skill")

	results := agResults(s.Log())
	require.Len(t, results, 1)
	assert.False(t, results[0].IsError)
	assert.Equal(t, "reviewed: fine", results[0].Text)
	assert.Equal(t, "reviewer", results[0].Meta[kernel.MetaSubagentType])
	child := saChildLog(t, w, results[0])
	var user session.Event
	var childResults []session.Event
	var childUsage session.Usage
	for _, ev := range child {
		switch ev.Type {
		case session.User:
			user = ev
		case session.ToolResult:
			childResults = append(childResults, ev)
		case session.Assistant:
			childUsage = childUsage.Add(ev.Usage)
		}
	}
	assert.Equal(t, s.ID(), user.Meta[kernel.MetaParentSession], "the child names its parent")
	assert.Equal(t, "a1", user.Meta[kernel.MetaParentToolUse])
	require.Len(t, childResults, 2)
	assert.True(t, childResults[0].IsError, "another skill is refused")
	assert.Contains(t, childResults[0].Text, `unknown skill "beta"`)
	assert.NotContains(t, childResults[0].Text, "BETA-BODY")
	assert.False(t, childResults[1].IsError)
	assert.Equal(t, []string{`{"x":1}`}, echoProbe.calls())
	assert.NotZero(t, childUsage.Input)
	assert.Equal(t, childUsage, results[0].Usage, "the child's usage is on the parent's result")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"tool:before Agent", "subagent:start reviewer", "tool:before skill", "tool:before Echo", "subagent:stop reviewer reviewed: fine"}, seen)

	// Resuming the parent keeps the link: it is in the log.
	again, err := w.k.OpenSession(t.Context(), kernel.SessionConfig{Resume: s.ID()})
	require.NoError(t, err)
	defer again.Close()
	assert.Equal(t, results[0].Meta, agResults(again.Log())[0].Meta)
}

// Protects: in tools mode a skill named like a capability's tool is refused
// (the capability's tool keeps the name), and a subagent's scope then treats
// that tool as what it is, a capability's: a definition allowed only Echo
// does not get Other through a skill called "Other" that its skills allow.
func TestSubagentSkillNamedLikeAToolDoesNotWidenItsTools(t *testing.T) {
	echo, _ := agEcho("Echo", "Echoes.")
	other, otherProbe := agEcho("Other", "Another tool.")
	probe := &agCap{name: "probe", tools: []contract.Tool{echo, other}}
	def := kernel.AgentDef{Name: "reviewer", Description: "Reviews.", Prompt: "You are the reviewer.", Tools: []string{"Echo"}, Skills: []string{"Other", "alpha"}}
	w := saNewWorldWith(t, kernel.Config{SkillsMode: skills.ModeTools}, kernel.AgentsConfig{Source: saAgents{def}}, []kernel.Capability{probe},
		modeltest.Calls(saCall("a1", "reviewer", "review it")),
		modeltest.Say("reviewed"),
		modeltest.Say("all done"),
	)
	saSkill(t, w.work, "Other")
	saSkill(t, w.work, "alpha")
	s := w.open(t)
	assert.Equal(t, "all done", agRun(t, s, "go"))

	reqs := w.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, saToolNames(reqs[0]), "Other", "the parent has the capability's Other")
	assert.Equal(t, []string{"Echo", "alpha"}, saToolNames(reqs[1]),
		"the child gets Echo and the skill alpha; Other is the capability's tool, which its tools do not allow")
	assert.Empty(t, otherProbe.calls())
}

// Protects: a definition without tools gets the parent's tools minus Agent
// at the depth limit (default 1), and an Agent call it makes anyway is an
// unknown tool; with maxDepth 2 the child gets Agent.
func TestSubagentDepthLimited(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxDepth int
		want     bool
	}{{"default", 0, false}, {"two", 2, true}} {
		t.Run(tc.name, func(t *testing.T) {
			echo, _ := agEcho("Echo", "Echoes.")
			def := kernel.AgentDef{Name: "helper", Description: "Helps.", Prompt: "You help."}
			w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}, MaxDepth: tc.maxDepth}, []kernel.Capability{&agCap{name: "echo", tools: []contract.Tool{echo}}},
				modeltest.Calls(saCall("a1", "helper", "help")),
				modeltest.Say("helped"),
				modeltest.Say("done"),
			)
			s := w.open(t)
			agRun(t, s, "go")
			reqs := w.srv.Requests()
			require.Len(t, reqs, 3)
			assert.Contains(t, saToolNames(reqs[1]), "Echo", "unset tools: the parent's")
			assert.Equal(t, tc.want, agContains(saToolNames(reqs[1]), kernel.AgentToolName))
		})
	}
	t.Run("called anyway", func(t *testing.T) {
		def := kernel.AgentDef{Name: "helper", Description: "Helps.", Prompt: "You help."}
		w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}}, nil,
			modeltest.Calls(saCall("a1", "helper", "help")),
			modeltest.Calls(saCall("a2", "helper", "nest")),
			modeltest.Say("could not"),
			modeltest.Say("done"),
		)
		s := w.open(t)
		agRun(t, s, "go")
		child := saChildLog(t, w, agResults(s.Log())[0])
		var res []session.Event
		for _, ev := range child {
			if ev.Type == session.ToolResult {
				res = append(res, ev)
			}
		}
		require.Len(t, res, 1)
		assert.True(t, res[0].IsError)
		assert.Contains(t, res[0].Text, `unknown tool "Agent"`)
	})
}

// Protects: a subagent whose model fails, or that reaches maxTurns still
// calling tools, is the Agent call's error result; the parent's turn goes on
// to its answer.
func TestSubagentFailureIsAnErrorResult(t *testing.T) {
	echo, _ := agEcho("Echo", "Echoes.")
	caps := []kernel.Capability{&agCap{name: "echo", tools: []contract.Tool{echo}}}
	loop := modeltest.Calls(model.ToolCall{Name: "Echo", Arguments: json.RawMessage(`{}`)})
	for _, tc := range []struct {
		name  string
		def   kernel.AgentDef
		child []modeltest.Step
		want  string
	}{
		{"model fails", kernel.AgentDef{Name: "x", Description: "X."}, []modeltest.Step{modeltest.Fail(500, "boom")}, "boom"},
		{"maxTurns", kernel.AgentDef{Name: "x", Description: "X.", MaxTurns: 2}, []modeltest.Step{loop, loop}, "maxTurns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := append([]modeltest.Step{modeltest.Calls(saCall("a1", "x", "do"))}, tc.child...)
			script = append(script, modeltest.Say("went on"))
			w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{tc.def}}, caps, script...)
			s := w.open(t)
			assert.Equal(t, "went on", agRun(t, s, "go"))
			res := agResults(s.Log())
			require.Len(t, res, 1)
			assert.True(t, res[0].IsError)
			assert.Contains(t, res[0].Text, tc.want)
			assert.NotEmpty(t, res[0].Meta[kernel.MetaSubagentSession], "a failed child is linked too")
		})
	}
}

// Protects: the Agent calls of one step run concurrently, at most
// maxConcurrent at once. The scripted model holds each child's request
// until two are in flight (sequential calls would never get there), then
// gives a third a second to show up (it must not: the limit is two).
func TestSubagentsRunConcurrentlyUpToTheLimit(t *testing.T) {
	def := kernel.AgentDef{Name: "worker", Description: "Works.", Prompt: "You work."}
	var mu sync.Mutex
	inFlight, most, arrived := 0, 0, 0
	two := make(chan struct{})
	third := make(chan struct{})
	child := func(req modeltest.Recorded) modeltest.Reply {
		mu.Lock()
		inFlight++
		arrived++
		most = max(most, inFlight)
		if arrived == 2 {
			close(two)
		}
		if inFlight == 3 {
			close(third)
		}
		mu.Unlock()
		select {
		case <-two:
		case <-time.After(10 * time.Second):
			return modeltest.Reply{Text: "never two at once"}
		}
		select {
		case <-third:
		case <-time.After(time.Second):
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return modeltest.Reply{Text: "worked " + req.Last().Content}
	}
	w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}, MaxConcurrent: 2}, nil,
		modeltest.Calls(saCall("a1", "worker", "one"), saCall("a2", "worker", "two"), saCall("a3", "worker", "three")),
		child, child, child,
		modeltest.Say("done"),
	)
	s := w.open(t)
	assert.Equal(t, "done", agRun(t, s, "go"))
	mu.Lock()
	assert.Equal(t, 2, most, "at most two subagents at once, and two did run at once")
	mu.Unlock()
	res := agResults(s.Log())
	require.Len(t, res, 3)
	for i, want := range []string{"one", "two", "three"} {
		assert.Equal(t, "a"+fmt.Sprint(i+1), res[i].ToolUseID, "results in call order")
		assert.Equal(t, "worked "+want, res[i].Text)
	}
}

// Protects: cancelling the parent's turn cancels its running subagents: Run
// returns, the result is an error.
func TestSubagentCancelledWithTheParent(t *testing.T) {
	def := kernel.AgentDef{Name: "worker", Description: "Works."}
	started := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}}, nil,
		modeltest.Calls(saCall("a1", "worker", "one")),
		func(modeltest.Recorded) modeltest.Reply {
			close(started)
			<-release
			return modeltest.Reply{Text: "late"}
		},
	)
	s := w.open(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := s.Run(ctx, "go"); done <- err }()
	<-started
	cancel()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

// Protects: mcpServers scopes the MCP tools: a child gets only its servers'
// (mcp__<server>__<tool>), and its other tools as unset tools allow.
func TestSubagentMCPServersScoped(t *testing.T) {
	gh, _ := agEcho("mcp__gh__issue", "An issue.")
	other, _ := agEcho("mcp__other__x", "Another server's.")
	echo, _ := agEcho("Echo", "Echoes.")
	def := kernel.AgentDef{Name: "triage", Description: "Triages.", MCPServers: []string{"gh"}}
	w := saNewWorld(t, kernel.AgentsConfig{Source: saAgents{def}}, []kernel.Capability{&agCap{name: "mcp", tools: []contract.Tool{gh, other, echo}}},
		modeltest.Calls(saCall("a1", "triage", "look")),
		modeltest.Say("looked"),
		modeltest.Say("done"),
	)
	agRun(t, w.open(t), "go")
	reqs := w.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, saToolNames(reqs[0]), "mcp__other__x")
	assert.Equal(t, []string{"skill", "skill_search", "mcp__gh__issue", "Echo"}, saToolNames(reqs[1]))
}

// Protects: telemetry nests the child's turn (and so its model and tool
// spans) under the parent's Agent tool span.
func TestSubagentSpansNestUnderTheAgentCall(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tel, err := telemetry.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), metricnoop.NewMeterProvider(), false)
	require.NoError(t, err)
	def := kernel.AgentDef{Name: "helper", Description: "Helps."}
	w := saNewWorldWith(t, kernel.Config{Telemetry: tel}, kernel.AgentsConfig{Source: saAgents{def}}, nil,
		modeltest.Calls(saCall("a1", "helper", "help")), modeltest.Say("helped"), modeltest.Say("done"))
	agRun(t, w.open(t), "go")
	var tool sdktrace.ReadOnlySpan
	var turns []sdktrace.ReadOnlySpan
	for _, s := range exp.GetSpans().Snapshots() {
		switch {
		case strings.HasSuffix(s.Name(), " "+kernel.AgentToolName):
			tool = s
		case strings.HasPrefix(s.Name(), "invoke_agent"):
			turns = append(turns, s)
		}
	}
	require.NotNil(t, tool)
	require.Len(t, turns, 2, "the parent's turn and the child's")
	nested := 0
	for _, s := range turns {
		if s.Parent().SpanID() == tool.SpanContext().SpanID() {
			nested++
			assert.Equal(t, tool.SpanContext().TraceID(), s.SpanContext().TraceID())
		}
	}
	assert.Equal(t, 1, nested, "the child's turn is a child of the Agent call's span")
}

// Protects: a subagent's tool calls take the session's permission rules: a
// deny rule refuses its call as it would the parent's.
func TestSubagentToolCallsTakeThePermissionRules(t *testing.T) {
	echo, probe := agEcho("Echo", "Echoes.")
	rules := &pmRules{by: map[string]kernel.PermissionDecision{"Echo": {Behavior: kernel.PermissionDeny, Rule: "Echo", List: "deny", Reason: `denied by the deny rule "Echo"`}}}
	def := kernel.AgentDef{Name: "helper", Description: "Helps.", Tools: []string{"Echo"}}
	w := saNewWorldWith(t, kernel.Config{Permissions: rules}, kernel.AgentsConfig{Source: saAgents{def}}, []kernel.Capability{&agCap{name: "echo", tools: []contract.Tool{echo}}},
		modeltest.Calls(saCall("a1", "helper", "help")),
		modeltest.Calls(model.ToolCall{ID: "c1", Name: "Echo", Arguments: json.RawMessage(`{}`)}),
		modeltest.Say("could not"),
		modeltest.Say("done"),
	)
	s := w.open(t)
	agRun(t, s, "go")
	assert.Empty(t, probe.calls(), "the denied call never ran")
	var denied []session.Event
	for _, ev := range saChildLog(t, w, agResults(s.Log())[0]) {
		if ev.Type == session.ToolResult {
			denied = append(denied, ev)
		}
	}
	require.Len(t, denied, 1)
	assert.True(t, denied[0].IsError)
	assert.Contains(t, denied[0].Text, `denied by the deny rule "Echo"`)
}

// Protects: with no definition there is no Agent tool (it would only cost
// tokens); one added later is offered at the next step.
func TestNoAgentToolWithoutDefinitions(t *testing.T) {
	src := &saLive{}
	w := saNewWorld(t, kernel.AgentsConfig{Source: src}, nil, modeltest.Say("one"), modeltest.Say("two"))
	s := w.open(t)
	agRun(t, s, "go")
	src.set(kernel.AgentDef{Name: "late", Description: "Late."})
	agRun(t, s, "again")
	reqs := w.srv.Requests()
	require.Len(t, reqs, 2)
	assert.NotContains(t, saToolNames(reqs[0]), kernel.AgentToolName)
	assert.Contains(t, saToolNames(reqs[1]), kernel.AgentToolName)
	assert.Contains(t, reqs[1].Tools[len(reqs[1].Tools)-1].Description, "- late: Late.")
}

// saLive is a source whose definitions the test changes.
type saLive struct {
	mu   sync.Mutex
	defs []kernel.AgentDef
}

func (l *saLive) set(defs ...kernel.AgentDef) { l.mu.Lock(); l.defs = defs; l.mu.Unlock() }

func (l *saLive) Agents(context.Context) ([]kernel.AgentDef, []contract.Warning) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.defs, nil
}
