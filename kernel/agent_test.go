package kernel_test

// Tests of the step loop (DESIGN.md C8, with C1's hook rules and C6's log):
// kernels built with kernel.New, in-process capabilities and plugins as
// fakes, the real OpenAI-compatible adapter talking to a scripted model over
// HTTP.
//
// As in the hooks tests, firstWin tests count the calls of the handler that
// must lose and assert that no warning was emitted: "builtin decided" and
// "builtin failed so the plugin decided" look alike from the result alone.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
	"github.com/helios-agents/helios/workfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: the order inside one step (C8): catalog injection, then
// context:prepare, then the model request, then each tool call through
// tool:before and the tool, then turn:end. The order is recorded by the
// kernel's own callbacks and by the scripted model; the log at prepare time
// proves the catalog was already appended.
func TestAgentStepOrder(t *testing.T) {
	var mu sync.Mutex
	var order []string
	rec := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, s)
	}
	var s *kernel.Session
	echo, _ := agEcho("Echo", "Echoes its arguments.")
	inner := echo.Call
	echo.Call = func(ctx context.Context, args json.RawMessage) (contract.ToolResult, error) {
		rec("tool")
		return inner(ctx, args)
	}
	recorder := &agCap{name: "recorder", tools: []contract.Tool{echo}, mounts: []hooks.Mount{
		agConcat(hooks.ContextPrepare, "prepare-recorder", func(_ context.Context, in kernel.PrepareIn) (string, bool, error) {
			last := s.Log().At(s.Log().Len() - 1)
			rec(fmt.Sprintf("prepare %d (log ends with %s %s)", in.Step, last.Type, last.Provenance))
			return "", false, nil
		}),
		agFirstWin(hooks.ToolBefore, "before-recorder", func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
			rec("tool:before " + in.Call.Name)
			return kernel.ToolDecision{}, false, nil
		}),
		agFirstWin(hooks.TurnEnd, "end-recorder", func(_ context.Context, in kernel.TurnEndIn) (kernel.TurnDecision, bool, error) {
			rec(fmt.Sprintf("turn:end %d", in.Step))
			return kernel.TurnDecision{}, false, nil
		}),
	}}
	w := agNewWorld(t, agSetup{caps: []kernel.Capability{recorder}},
		func(req modeltest.Recorded) modeltest.Reply {
			rec("model")
			return modeltest.Reply{ToolCalls: []model.ToolCall{{Name: "Echo", Arguments: json.RawMessage(`{"n":1}`)}}}
		},
		func(req modeltest.Recorded) modeltest.Reply {
			rec("model")
			return modeltest.Reply{Text: "done"}
		},
	)
	ksWriteFile(t, filepath.Join(w.work, ".helios/skills/alpha/SKILL.md"), ksSkillMD("name: alpha\ndescription: The alpha skill.", "alpha body"))
	s = w.open(t, kernel.SessionConfig{Observe: func(u kernel.Update) {
		if u.Kind == kernel.UpdateInjected {
			rec("inject")
		}
	}})
	assert.Equal(t, "done", agRun(t, s, "go"), "answer")

	want := []string{
		"inject",
		"prepare 1 (log ends with injected skills-catalog)",
		"model",
		"tool:before Echo",
		"tool",
		"turn:end 1",
		"prepare 2 (log ends with tool_result )",
		"model",
		"turn:end 2",
	}
	mu.Lock()
	got := append([]string(nil), order...)
	mu.Unlock()
	assert.Empty(t, cmp.Diff(want, got), "step order (-want +got)")
	// The first request carries the catalog after the prompt: it was
	// appended before the request was built.
	reqs := w.srv.Requests()
	require.Len(t, reqs, 2, "requests")
	first := reqs[0].Messages
	if assert.Len(t, first, 2, "request 1 messages = %+v; want the prompt, then the catalog", first) {
		assert.Equal(t, "go", first[0].Content, "request 1: the prompt")
		assert.Contains(t, first[1].Content, "alpha: The alpha skill.", "request 1: the catalog")
	}
}

// Protects: context:prepare (C1 concat, C8): a builtin and a plugin on the
// point both contribute to the request's system prompt, after the base
// prompt and the <extensions> manifest, builtins first even when a builtin
// was mounted after the plugin; each request gets only its own step's text;
// nothing of it is logged or sent as a message.
func TestAgentContextPrepare(t *testing.T) {
	builtin := &agCap{name: "prep-builtin", mounts: []hooks.Mount{
		agConcat(hooks.ContextPrepare, "builtin-prep", func(_ context.Context, in kernel.PrepareIn) (string, bool, error) {
			return fmt.Sprintf("BUILTIN-PREP step %d", in.Step), true, nil
		}),
		agConcat(hooks.ContextPrepare, "blank-prep", func(context.Context, kernel.PrepareIn) (string, bool, error) {
			return "  \n ", true, nil
		}),
	}}
	plugin := &agCap{name: "prep-plugin", desc: "Adds planning notes.", mounts: []hooks.Mount{
		agConcat(hooks.ContextPrepare, "plugin-prep", func(_ context.Context, in kernel.PrepareIn) (string, bool, error) {
			return fmt.Sprintf("PLUGIN-PREP step %d", in.Step), true, nil
		}),
	}}
	echo, _ := agEcho("Echo", "Echoes its arguments.")
	tools := &agCap{name: "echo-tools", tools: []contract.Tool{echo}}
	w := agNewWorld(t, agSetup{caps: []kernel.Capability{builtin, tools}, plugins: []kernel.Capability{plugin}},
		modeltest.Call("Echo", `{"n":1}`),
		modeltest.Say("done"),
	)
	// Mounted after the plugin's mounts: it still runs in the builtin band.
	require.NoError(t, hooks.ContextPrepare.Mount(w.k.Hooks(), "late-builtin-prep", hooks.Builtin, func(_ context.Context, in kernel.PrepareIn) (string, bool, error) {
		return fmt.Sprintf("LATE-MOUNTED-PREP step %d", in.Step), true, nil
	}))
	s := w.open(t, kernel.SessionConfig{SystemPrompt: "AG-BASE-PROMPT"})
	agRun(t, s, "go")

	reqs := w.srv.Requests()
	require.Len(t, reqs, 2, "requests")
	for i, req := range reqs {
		step := i + 1
		sys := req.System
		parts := []string{
			"AG-BASE-PROMPT",
			"<extensions>\n- prep-plugin: Adds planning notes.\n</extensions>",
			fmt.Sprintf("BUILTIN-PREP step %d", step),
			fmt.Sprintf("LATE-MOUNTED-PREP step %d", step),
			fmt.Sprintf("PLUGIN-PREP step %d", step),
		}
		at := -1
		for _, p := range parts {
			j := strings.Index(sys, p)
			if !assert.GreaterOrEqual(t, j, 0, "request %d: system prompt lacks %q:\n%s", step, p, sys) {
				continue
			}
			assert.Greater(t, j, at, "request %d: %q at index %d, not after the previous part (index %d):\n%s", step, p, j, at, sys)
			n := strings.Count(sys, p)
			assert.Equal(t, 1, n, "request %d: %q appears %d times", step, p, n)
			at = j
		}
		assert.True(t, strings.HasPrefix(sys, "AG-BASE-PROMPT\n\n"), "request %d: system prompt does not start with the base prompt:\n%s", step, sys)
		assert.NotContains(t, sys, fmt.Sprintf("step %d", 3-step), "request %d: system prompt carries the other step's prepare text", step)
		for _, section := range strings.Split(sys, "\n\n") {
			assert.NotEmpty(t, strings.TrimSpace(section), "request %d: a blank contribution left an empty section:\n%q", step, sys)
		}
		for _, m := range req.Messages {
			assert.NotContains(t, m.Content, "PREP", "request %d: prepare text sent as a message: %+v", step, m)
		}
	}
	for _, ev := range agEvents(s.Log()) {
		assert.NotContains(t, ev.Text+string(ev.Input)+fmt.Sprint(ev.Meta), "PREP", "prepare output was logged: %+v", ev)
	}
	assert.Empty(t, w.warnings(), "warnings")
}

// Protects: the <extensions> manifest (C3, C8): one line per capability
// with a description, builtins then plugins, whitespace collapsed; the
// project skills capability and capabilities without a description are
// never listed; with nothing to list there is no manifest at all.
func TestAgentExtensionsManifest(t *testing.T) {
	echo, _ := agEcho("Echo", "Echoes.")
	tests := []struct {
		name    string
		caps    []kernel.Capability
		plugins []kernel.Capability
		want    string // "" means no manifest
	}{
		{
			name: "describers listed in capability order",
			caps: []kernel.Capability{
				&agCap{name: "widgets", desc: "Makes widgets.\n   Fast and\tcheap."},
				&agCap{name: "quiet", tools: []contract.Tool{echo}},
			},
			plugins: []kernel.Capability{&agCap{name: "gadgets", desc: "Fixes gadgets."}},
			want:    "<extensions>\n- widgets: Makes widgets. Fast and cheap.\n- gadgets: Fixes gadgets.\n</extensions>",
		},
		{
			name: "nothing to list",
			caps: []kernel.Capability{&agCap{name: "quiet", desc: "  \n"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := agNewWorld(t, agSetup{caps: tt.caps, plugins: tt.plugins}, modeltest.Say("ok"))
			ksWriteFile(t, filepath.Join(w.work, ".helios/skills/alpha/SKILL.md"), ksSkillMD("name: alpha\ndescription: The alpha skill.", "body"))
			s := w.open(t, kernel.SessionConfig{})
			agRun(t, s, "hi")
			sys := w.srv.Requests()[0].System
			assert.Contains(t, sys, w.k.SkillsPrompt(), "system prompt lacks the skills section")
			if tt.want == "" {
				assert.NotContains(t, sys, "<extensions>", "system prompt has a manifest")
				return
			}
			n := strings.Count(sys, tt.want)
			assert.Equal(t, 1, n, "manifest %q appears %d times in:\n%s", tt.want, n, sys)
			assert.LessOrEqual(t, strings.Index(sys, w.k.SkillsPrompt()), strings.Index(sys, "<extensions>"), "manifest comes before the skills section:\n%s", sys)
			for _, never := range []string{"- skills", "- quiet"} {
				assert.NotContains(t, sys, never, "system prompt lists %q:\n%s", never, sys)
			}
		})
	}
}

// Protects: the tools offered (C3, C8): the skill tool of catalog mode
// first and skill_search (C23), then each capability's tools in capability order (builtins, then
// plugins); a later tool with a taken name is dropped, and a call reaches
// the first one; AllowedTools filters what is offered and what can be
// called; without the skill tool no catalog is injected.
func TestAgentToolsOffered(t *testing.T) {
	tests := []struct {
		name        string
		allowed     []string
		wantTools   []model.Tool // Parameters ignored
		wantCatalog bool
	}{
		{
			name: "all",
			wantTools: []model.Tool{
				{Name: "skill"}, {Name: "skill_search", Description: skills.SearchToolDescription()},
				{Name: "Alpha", Description: "A's Alpha."}, {Name: "Beta", Description: "A's Beta."},
				{Name: "Gamma", Description: "B's Gamma."}, {Name: "Delta", Description: "Plugin's Delta."},
			},
			wantCatalog: true,
		},
		{
			name:        "allowed with skill",
			allowed:     []string{"Delta", "skill", "Beta"},
			wantTools:   []model.Tool{{Name: "skill"}, {Name: "Beta", Description: "A's Beta."}, {Name: "Delta", Description: "Plugin's Delta."}},
			wantCatalog: true,
		},
		{
			name:      "allowed without skill",
			allowed:   []string{"Alpha", "Gamma"},
			wantTools: []model.Tool{{Name: "Alpha", Description: "A's Alpha."}, {Name: "Gamma", Description: "B's Gamma."}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alphaA, alphaAProbe := agEcho("Alpha", "A's Alpha.")
			betaA, betaAProbe := agEcho("Beta", "A's Beta.")
			gammaB, _ := agEcho("Gamma", "B's Gamma.")
			alphaB, alphaBProbe := agEcho("Alpha", "B's Alpha.")
			fakeSkill, fakeSkillProbe := agEcho("skill", "A capability's skill tool.")
			delta, _ := agEcho("Delta", "Plugin's Delta.")
			betaP, betaPProbe := agEcho("Beta", "Plugin's Beta.")
			w := agNewWorld(t, agSetup{
				caps: []kernel.Capability{
					&agCap{name: "cap-a", tools: []contract.Tool{alphaA, betaA}},
					&agCap{name: "cap-b", tools: []contract.Tool{gammaB, alphaB, fakeSkill}},
				},
				plugins: []kernel.Capability{&agCap{name: "plug", tools: []contract.Tool{delta, betaP}}},
			},
				modeltest.Calls(
					model.ToolCall{Name: "Alpha", Arguments: json.RawMessage(`{}`)},
					model.ToolCall{Name: "Beta", Arguments: json.RawMessage(`{}`)},
					model.ToolCall{Name: "skill", Arguments: json.RawMessage(`{"name":"alpha"}`)},
				),
				modeltest.Say("ok"),
			)
			ksWriteFile(t, filepath.Join(w.work, ".helios/skills/alpha/SKILL.md"), ksSkillMD("name: alpha\ndescription: The alpha skill.", "ALPHA-BODY"))
			s := w.open(t, kernel.SessionConfig{AllowedTools: tt.allowed})
			agRun(t, s, "go")

			reqs := w.srv.Requests()
			got := make([]model.Tool, len(reqs[0].Tools))
			for i, tool := range reqs[0].Tools {
				got[i] = model.Tool{Name: tool.Name, Description: tool.Description}
				if tool.Name == "skill" {
					assert.NotEqual(t, fakeSkill.Description, tool.Description, "the offered skill tool is the capability's, not the kernel's")
					got[i].Description = ""
				}
			}
			assert.Empty(t, cmp.Diff(tt.wantTools, got), "tools offered (-want +got)")
			for i, req := range reqs {
				assert.Empty(t, cmp.Diff(reqs[0].Tools, req.Tools), "request %d: tools differ from request 1 (-1 +%d)", i+1, i+1)
			}

			catalogs := 0
			for _, ev := range agEvents(s.Log()) {
				if ev.Type == session.Injected && ev.Provenance == catalog.Provenance {
					catalogs++
				}
			}
			sentCatalog := len(agInjected(reqs[0])) == 1
			assert.Equal(t, tt.wantCatalog, (catalogs == 1), "catalog events %d, sent in request 1", catalogs)
			assert.Equal(t, tt.wantCatalog, sentCatalog, "catalog events %d, sent in request 1", catalogs)

			// Calls reach the first tool of a name, and only allowed ones.
			allowed := func(name string) bool { return tt.allowed == nil || agContains(tt.allowed, name) }
			wantAlpha, wantBeta := 0, 0
			if allowed("Alpha") {
				wantAlpha = 1
			}
			if allowed("Beta") {
				wantBeta = 1
			}
			n := len(alphaAProbe.calls())
			assert.Equal(t, wantAlpha, n, "cap-a Alpha called %d times, want %d", n, wantAlpha)
			assert.Len(t, betaAProbe.calls(), wantBeta, "cap-a Beta calls")
			assert.Zero(t, len(alphaBProbe.calls())+len(fakeSkillProbe.calls())+len(betaPProbe.calls()), "calls of shadowed tools")
			results := agResults(s.Log())
			require.Len(t, results, 3, "%d tool results, want 3: %+v", len(results), results)
			for i, name := range []string{"Alpha", "Beta", "skill"} {
				res := results[i]
				assert.Equal(t, !allowed(name), res.IsError, "%s result = %+v; want IsError=%v", name, res, !allowed(name))
				if !allowed(name) {
					assert.Contains(t, res.Text, fmt.Sprintf("unknown tool %q", name), "%s result: want an unknown-tool error", name)
				}
			}
			if allowed("skill") {
				assert.Contains(t, results[2].Text, "ALPHA-BODY", "skill result: want the skill's body from the kernel's skill tool")
			}
		})
	}
}

// Protects: tool:before (C1 firstWin, C8): a builtin that decides — by
// rewriting the arguments or by denying — wins, and the plugin on the same
// point is never consulted; a denial reaches the model as an error result
// with the reason and the tool never runs; a builtin that passes lets a
// plugin deny, with no warning, unlike a builtin that fails.
func TestAgentToolBefore(t *testing.T) {
	type decide func(kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error)
	tests := []struct {
		name        string
		builtin     decide
		plugin      decide
		wantPlugin  int32
		wantToolArg []string // the arguments the tool received
		wantResult  string   // substring of the tool result
		wantError   bool
		wantWarns   int
	}{
		{
			name: "builtin rewrites",
			builtin: func(in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{Args: json.RawMessage(`{"text":"rewritten"}`)}, true, nil
			},
			plugin: func(kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{Deny: true, Reason: "PLUGIN-DENIAL"}, true, nil
			},
			wantToolArg: []string{`{"text":"rewritten"}`},
			wantResult:  `Echo got {"text":"rewritten"}`,
		},
		{
			name: "builtin denies",
			builtin: func(in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{Deny: true, Reason: "BUILTIN-DENIAL: too risky"}, true, nil
			},
			plugin: func(kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{Deny: true, Reason: "PLUGIN-DENIAL"}, true, nil
			},
			wantResult: "BUILTIN-DENIAL: too risky",
			wantError:  true,
		},
		{
			name: "builtin passes, plugin denies",
			builtin: func(in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{}, false, nil
			},
			plugin: func(kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{Deny: true, Reason: "PLUGIN-DENIAL"}, true, nil
			},
			wantPlugin: 1,
			wantResult: "PLUGIN-DENIAL",
			wantError:  true,
		},
		{
			// The contrast the previous case needs: same outcome, plus a warning.
			name: "builtin fails, plugin denies",
			builtin: func(in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{}, false, errors.New("policy store unreachable")
			},
			plugin: func(kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{Deny: true, Reason: "PLUGIN-DENIAL"}, true, nil
			},
			wantPlugin: 1,
			wantResult: "PLUGIN-DENIAL",
			wantError:  true,
			wantWarns:  1,
		},
		{
			name: "both pass",
			builtin: func(in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{}, false, nil
			},
			plugin: func(kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{}, false, nil
			},
			wantPlugin:  1,
			wantToolArg: []string{`{"text":"original"}`},
			wantResult:  `Echo got {"text":"original"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var builtinCalls, pluginCalls atomic.Int32
			echo, probe := agEcho("Echo", "Echoes its arguments.")
			builtin := &agCap{name: "policy", tools: []contract.Tool{echo}, mounts: []hooks.Mount{
				agFirstWin(hooks.ToolBefore, "builtin-policy", func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
					builtinCalls.Add(1)
					return tt.builtin(in)
				}),
			}}
			plugin := &agCap{name: "plugin-policy", mounts: []hooks.Mount{
				agFirstWin(hooks.ToolBefore, "plugin-policy", func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
					pluginCalls.Add(1)
					return tt.plugin(in)
				}),
			}}
			w := agNewWorld(t, agSetup{caps: []kernel.Capability{builtin}, plugins: []kernel.Capability{plugin}},
				modeltest.Calls(model.ToolCall{ID: "c1", Name: "Echo", Arguments: json.RawMessage(`{"text":"original"}`)}),
				modeltest.Say("ok"),
			)
			var updates []kernel.Update
			s := w.open(t, kernel.SessionConfig{Observe: func(u kernel.Update) {
				if u.Kind == kernel.UpdateToolResult {
					updates = append(updates, u)
				}
			}})
			agRun(t, s, "go")

			assert.Empty(t, cmp.Diff(tt.wantToolArg, probe.calls()), "tool received (-want +got)")
			assert.Equal(t, int32(1), builtinCalls.Load(), "builtin called")
			assert.Equal(t, tt.wantPlugin, pluginCalls.Load(), "plugin calls")
			results := agResults(s.Log())
			require.Len(t, results, 1, "tool results")
			res := results[0]
			assert.Equal(t, "c1", res.ToolUseID, "logged result = %+v; want id c1, IsError=%v, text containing %q", res, tt.wantError, tt.wantResult)
			assert.Equal(t, tt.wantError, res.IsError, "logged result = %+v; want id c1, IsError=%v, text containing %q", res, tt.wantError, tt.wantResult)
			assert.Contains(t, res.Text, tt.wantResult, "logged result = %+v; want id c1, IsError=%v, text containing %q", res, tt.wantError, tt.wantResult)
			if assert.Len(t, updates, 1, "observed results = %+v; want one matching the log", updates) {
				assert.Equal(t, tt.wantError, updates[0].IsError, "observed result IsError")
				assert.Equal(t, res.Text, updates[0].Text, "observed result text")
			}
			got := agToolResult(t, w.srv.Requests()[1], "c1")
			assert.Equal(t, res.Text, got, "model got result %q, want %q", got, res.Text)
			ws := w.warnings()
			assert.Len(t, ws, tt.wantWarns, "warnings")
			if tt.wantWarns > 0 {
				assert.Contains(t, fmt.Sprint(ws), "policy store unreachable", "warnings: want the builtin's failure")
			}
		})
	}
}

// Protects: errors the model should see are tool results (C8, STYLE 11): an
// unknown tool name, a tool that panics and a tool that returns a Go error
// each give an error result paired with its call; the loop goes on and the
// session keeps working.
func TestAgentToolFailuresAreResults(t *testing.T) {
	var boomCalls atomic.Int32
	boom := contract.Tool{Name: "Boom", Description: "Panics.", Call: func(context.Context, json.RawMessage) (contract.ToolResult, error) {
		boomCalls.Add(1)
		panic("boom! nil map")
	}}
	broken := contract.Tool{Name: "Broken", Description: "Fails.", Call: func(context.Context, json.RawMessage) (contract.ToolResult, error) {
		return contract.ToolResult{}, errors.New("disk on fire")
	}}
	w := agNewWorld(t, agSetup{caps: []kernel.Capability{&agCap{name: "faulty", tools: []contract.Tool{boom, broken}}}},
		modeltest.Calls(
			model.ToolCall{ID: "u1", Name: "NoSuchTool", Arguments: json.RawMessage(`{}`)},
			model.ToolCall{ID: "p1", Name: "Boom", Arguments: json.RawMessage(`{}`)},
			model.ToolCall{ID: "e1", Name: "Broken", Arguments: json.RawMessage(`{}`)},
		),
		modeltest.Say("recovered"),
		modeltest.Call("Boom", `{}`),
		modeltest.Say("still here"),
	)
	s := w.open(t, kernel.SessionConfig{})
	assert.Equal(t, "recovered", agRun(t, s, "go"), "answer")
	assert.Equal(t, "still here", agRun(t, s, "again"), "second answer")
	assert.Equal(t, int32(2), boomCalls.Load(), "Boom called")
	results := agResults(s.Log())
	require.Len(t, results, 4, "%d results, want 4: %+v", len(results), results)
	want := []struct{ id, text string }{
		{"u1", `unknown tool "NoSuchTool"`},
		{"p1", "boom! nil map"},
		{"e1", "disk on fire"},
	}
	for i, w := range want {
		r := results[i]
		assert.Equal(t, w.id, r.ToolUseID, "result %d = %+v; want an error for %s containing %q", i, r, w.id, w.text)
		assert.True(t, r.IsError, "result %d = %+v; want an error for %s containing %q", i, r, w.id, w.text)
		assert.Contains(t, r.Text, w.text, "result %d = %+v; want an error for %s containing %q", i, r, w.id, w.text)
	}
	assert.Contains(t, results[1].Text, "panic", "panic result; want it to say it panicked")
	reqs := w.srv.Requests()
	for _, w := range want {
		got := agToolResult(t, reqs[1], w.id)
		assert.Contains(t, got, w.text, "model got %q for %s, want %q", got, w.id, w.text)
	}
	agCheckPairs(t, "final request", reqs[len(reqs)-1].Messages)
}

// Protects: turn:end (C1 firstWin, C8): with no decision the turn ends
// exactly when the model made no tool calls; a handler's decision wins both
// ways (End=true with tool calls pending, End=false without); MaxSteps
// bounds a model that calls tools forever and a handler that never ends.
func TestAgentTurnEnd(t *testing.T) {
	call := modeltest.Call("Echo", `{}`)
	callSaying := func(text string) modeltest.Step {
		return func(modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Text: text, ToolCalls: []model.ToolCall{{Name: "Echo", Arguments: json.RawMessage(`{}`)}}}
		}
	}
	pass := func(kernel.TurnEndIn) (kernel.TurnDecision, bool) { return kernel.TurnDecision{}, false }
	tests := []struct {
		name       string
		maxSteps   int
		decide     func(kernel.TurnEndIn) (kernel.TurnDecision, bool)
		script     []modeltest.Step
		wantAnswer string
		wantTools  int
		wantSteps  []int // the steps turn:end saw
	}{
		{"no decision, tool calls then text", 0, pass, []modeltest.Step{call, call, modeltest.Say("done")}, "done", 2, []int{1, 2, 3}},
		{"no decision, text at once", 0, pass, []modeltest.Step{modeltest.Say("done")}, "done", 0, []int{1}},
		{
			"handler ends with tool calls", 0,
			func(kernel.TurnEndIn) (kernel.TurnDecision, bool) { return kernel.TurnDecision{End: true}, true },
			[]modeltest.Step{callSaying("partial")}, "partial", 1, []int{1},
		},
		{
			"handler continues without tool calls", 0,
			func(in kernel.TurnEndIn) (kernel.TurnDecision, bool) {
				return kernel.TurnDecision{End: in.Step >= 2}, true
			},
			[]modeltest.Step{modeltest.Say("first"), modeltest.Say("second")}, "second", 0, []int{1, 2},
		},
		{"MaxSteps bounds endless tool calls", 3, pass, []modeltest.Step{call, call, callSaying("third")}, "third", 3, []int{1, 2, 3}},
		{
			"MaxSteps bounds a handler that never ends", 3,
			func(kernel.TurnEndIn) (kernel.TurnDecision, bool) { return kernel.TurnDecision{End: false}, true },
			[]modeltest.Step{modeltest.Say("one"), modeltest.Say("two"), modeltest.Say("three")}, "three", 0, []int{1, 2, 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var steps []int
			echo, probe := agEcho("Echo", "Echoes.")
			c := &agCap{name: "turns", tools: []contract.Tool{echo}, mounts: []hooks.Mount{
				agFirstWin(hooks.TurnEnd, "turn-policy", func(_ context.Context, in kernel.TurnEndIn) (kernel.TurnDecision, bool, error) {
					mu.Lock()
					steps = append(steps, in.Step)
					mu.Unlock()
					d, ok := tt.decide(in)
					return d, ok, nil
				}),
			}}
			w := agNewWorld(t, agSetup{caps: []kernel.Capability{c}}, tt.script...)
			s := w.open(t, kernel.SessionConfig{MaxSteps: tt.maxSteps})
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			// A loop that would not end runs into the end of the script and
			// fails there; Run's error is then the model's.
			answer, err := s.Run(ctx, "go")
			require.NoError(t, err, "Run")
			assert.Equal(t, tt.wantAnswer, answer, "answer")
			n := len(w.srv.Requests())
			assert.Equal(t, len(tt.script), n, "%d model requests, want %d", n, len(tt.script))
			assert.Len(t, probe.calls(), tt.wantTools, "tool runs")
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, cmp.Diff(tt.wantSteps, steps), "turn:end steps (-want +got)")
			agCheckLogPairs(t, s.Log())
		})
	}
}

// Protects: context:compact (C1, C6, C8): over the budget, the builtin
// compactor asks the model for a summary of the oldest events, a
// Compaction event hides them, and the next request carries the summary and
// none of their text, with the recent events verbatim; the plugin
// compactor is never called when the builtin decided, but decides when the
// builtin passes; under the budget nothing is compacted.
func TestAgentCompaction(t *testing.T) {
	const budget = 4000                                   // the compactor keeps the newest quarter: 1000 bytes
	hiddenResult := strings.Repeat("HIDDEN-RESULT ", 250) // 3,500 bytes
	q1, a1 := "Q1-HIDDEN question", "A1-KEPT answer"
	q2 := "Q2-KEPT " + strings.Repeat("k", 700)
	a2, q3, a3 := "A2-KEPT", "Q3-KEPT", "A3"
	const summary = "SUMMARY-OF-EARLIER-WORK"
	const summarizePrompt = "Summarize this part of a coding session"

	type world struct {
		w           *agWorld
		s           *kernel.Session
		pluginCalls *atomic.Int32
		compacted   *atomic.Int32
	}
	setup := func(t *testing.T, budget int, script ...modeltest.Step) world {
		pluginCalls, compacted := new(atomic.Int32), new(atomic.Int32)
		big := contract.Tool{Name: "Big", Description: "Prints a lot.", Call: func(context.Context, json.RawMessage) (contract.ToolResult, error) {
			return contract.ToolResult{Content: hiddenResult}, nil
		}}
		plugin := &agCap{name: "plugin-compactor", mounts: []hooks.Mount{
			agFirstWin(hooks.ContextCompact, "plugin-compactor", func(_ context.Context, in kernel.CompactIn) (kernel.Compaction, bool, error) {
				pluginCalls.Add(1)
				return kernel.Compaction{From: 1, To: 1, Summary: "PLUGIN-SUMMARY"}, true, nil
			}),
		}}
		w := agNewWorld(t, agSetup{caps: []kernel.Capability{&agCap{name: "big", tools: []contract.Tool{big}}}, plugins: []kernel.Capability{plugin}, budget: budget}, script...)
		s := w.open(t, kernel.SessionConfig{Observe: func(u kernel.Update) {
			if u.Kind == kernel.UpdateCompacted {
				compacted.Add(1)
			}
		}})
		// The plugin's mount is there, after the builtin compactor: its
		// call count below is not zero by absence.
		assert.Empty(t, cmp.Diff([]hooks.HandlerInfo{{Name: "compactor", Origin: "builtin"}, {Name: "plugin-compactor", Origin: "plugin"}},
			agHandlers(s.Hooks(), hooks.ContextCompact.Name)), "context:compact handlers (-want +got)")
		return world{w, s, pluginCalls, compacted}
	}

	t.Run("over budget, builtin compacts", func(t *testing.T) {
		x := setup(t, budget,
			modeltest.Call("Big", `{}`),
			modeltest.Say(a1),
			modeltest.Say(a2),
			modeltest.Say(summary), // the compactor's request, after turn 2
			modeltest.Say(a3),
		)
		agRun(t, x.s, q1)
		n := agCount(x.s.Log(), session.Compaction)
		require.Zero(t, n, "%d compactions after turn 1 (under budget), want 0", n)
		agRun(t, x.s, q2)
		agRun(t, x.s, q3)

		reqs := x.w.srv.Requests()
		require.Len(t, reqs, 5, "requests")
		for i, req := range reqs {
			isSummary := strings.HasPrefix(req.System, summarizePrompt)
			assert.Equal(t, i == 3, isSummary, "request %d: summarization prompt %v, want %v:\n%s", i+1, isSummary, i == 3, req.System)
		}
		sum := reqs[3]
		assert.Empty(t, sum.Tools, "summary request tools")
		if assert.Len(t, sum.Messages, 1, "summary request messages") {
			m := sum.Messages[0].Content
			assert.Contains(t, m, q1, "summary request covers the wrong span")
			assert.Contains(t, m, "HIDDEN-RESULT", "summary request covers the wrong span")
			assert.NotContains(t, m, a1, "summary request covers the wrong span")
		}

		var comps []session.Event
		for _, ev := range agEvents(x.s.Log()) {
			if ev.Type == session.Compaction {
				comps = append(comps, ev)
			}
		}
		if assert.Len(t, comps, 1, "compactions = %+v; want one hiding seq 1..4 behind %q", comps, summary) {
			assert.Equal(t, int64(1), comps[0].From, "compaction From")
			assert.Equal(t, int64(4), comps[0].To, "compaction To")
			assert.Equal(t, summary, comps[0].Text, "compaction text")
		}
		assert.Equal(t, int32(1), x.compacted.Load(), "compaction updates")

		next := reqs[4].Messages
		var texts []string
		for _, m := range next {
			texts = append(texts, m.Content)
			assert.NotContains(t, m.Content, "HIDDEN", "next request still carries hidden text")
		}
		require.Len(t, next, 5, "next request messages = %.80q; want the summary, then 4 recent messages", texts)
		require.Contains(t, next[0].Content, summary, "next request messages = %.80q; want the summary, then 4 recent messages", texts)
		assert.Empty(t, cmp.Diff([]string{a1, q2, a2, q3}, texts[1:]), "recent messages (-want +got)")
		agCheckPairs(t, "next request", next)
		assert.Zero(t, x.pluginCalls.Load(), "plugin compactor calls")
		assert.Empty(t, x.w.warnings(), "warnings")
	})

	t.Run("over budget, builtin passes, plugin decides", func(t *testing.T) {
		// One event larger than the budget and nothing older: the builtin
		// has no span to summarize and passes.
		x := setup(t, budget, modeltest.Say("ok"), modeltest.Say("fine"))
		agRun(t, x.s, strings.Repeat("x", budget+1))
		agRun(t, x.s, "next")
		assert.Equal(t, int32(1), x.pluginCalls.Load(), "plugin compactor called")
		reqs := x.w.srv.Requests()
		m := reqs[1].Messages
		if assert.Len(t, m, 3, "request 2 messages = %.80q; want the plugin's summary first", m) {
			assert.Contains(t, m[0].Content, "PLUGIN-SUMMARY", "request 2: want the plugin's summary first")
		}
	})

	t.Run("under budget", func(t *testing.T) {
		x := setup(t, 1_000_000,
			modeltest.Call("Big", `{}`),
			modeltest.Say(a1),
			modeltest.Say(a2),
			modeltest.Say(a3),
		)
		agRun(t, x.s, q1)
		agRun(t, x.s, q2)
		agRun(t, x.s, q3)
		assert.Zero(t, agCount(x.s.Log(), session.Compaction), "compactions")
		assert.Zero(t, x.pluginCalls.Load()+x.compacted.Load(), "compaction ran")
		last := x.w.srv.Requests()[3]
		assert.Contains(t, fmt.Sprint(last.Messages), q1, "last request lost the first question under budget")
	})
}

// Protects: session:start (C1 concat, C6): the handlers' texts (builtins,
// then the plugin; blank ones dropped) are joined in dispatch order into
// one injected message at the start of a new session, which the model gets
// first; resuming the session does not run the handlers again.
func TestAgentSessionStart(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	var payloads []kernel.SessionStartIn
	starter := func(name, text string) hooks.Mount {
		return agConcat(hooks.SessionStart, name, func(_ context.Context, in kernel.SessionStartIn) (string, bool, error) {
			mu.Lock()
			defer mu.Unlock()
			calls[name]++
			payloads = append(payloads, in)
			return text, true, nil
		})
	}
	w := agNewWorld(t, agSetup{
		caps: []kernel.Capability{
			&agCap{name: "one", mounts: []hooks.Mount{starter("start-one", "START-ONE")}},
			&agCap{name: "blank", mounts: []hooks.Mount{starter("start-blank", " \n")}},
			&agCap{name: "two", mounts: []hooks.Mount{starter("start-two", "START-TWO")}},
		},
		plugins: []kernel.Capability{&agCap{name: "plug", mounts: []hooks.Mount{starter("start-plugin", "START-PLUGIN")}}},
	}, modeltest.Say("hi"), modeltest.Say("hi again"))
	const want = "START-ONE\n\nSTART-TWO\n\nSTART-PLUGIN"

	s := w.open(t, kernel.SessionConfig{})
	evs := agEvents(s.Log())
	require.Len(t, evs, 1, "new session log = %+v; want one injected session:start event %q", evs, want)
	require.Equal(t, session.Injected, evs[0].Type, "new session log = %+v; want one injected session:start event %q", evs, want)
	require.Equal(t, "session:start", evs[0].Provenance, "new session log = %+v; want one injected session:start event %q", evs, want)
	require.Equal(t, want, evs[0].Text, "new session log = %+v; want one injected session:start event %q", evs, want)
	agRun(t, s, "hello")
	first := w.srv.Requests()[0].Messages
	if assert.Len(t, first, 2, "request 1 messages = %+v; want the session:start text, then the prompt", first) {
		assert.Equal(t, model.RoleUser, first[0].Role, "request 1: role of the session:start text")
		assert.Equal(t, want, first[0].Content, "request 1: the session:start text")
		assert.Equal(t, "hello", first[1].Content, "request 1: the prompt")
	}
	id := s.ID()
	s.Close()

	r := w.open(t, kernel.SessionConfig{Resume: id})
	agRun(t, r, "hello again")
	mu.Lock()
	assert.Empty(t, cmp.Diff(map[string]int{"start-one": 1, "start-blank": 1, "start-two": 1, "start-plugin": 1}, calls), "session:start calls (-want +got)")
	for _, p := range payloads {
		assert.Equal(t, id, p.SessionID, "payload %+v; want session %s, work dir %s", p, id, w.k.WorkDir())
		assert.Equal(t, w.k.WorkDir(), p.WorkDir, "payload %+v; want session %s, work dir %s", p, id, w.k.WorkDir())
	}
	mu.Unlock()
	starts := 0
	for _, ev := range agEvents(r.Log()) {
		if ev.Provenance == "session:start" {
			starts++
		}
	}
	assert.Equal(t, 1, starts, "session:start events after resume")
	n := strings.Count(fmt.Sprint(w.srv.Requests()[1].Messages), "START-ONE")
	assert.Equal(t, 1, n, "resumed request carries the session:start text")
}

// Protects: resume (C6, C8): a second OpenSession with Resume continues the
// same log (Seq continues, the earlier conversation is in the next request);
// tool call IDs a server repeats, across responses and within one, stay
// unique in the log and every result pairs with its own call.
func TestAgentResume(t *testing.T) {
	call0 := func(n int) model.ToolCall {
		return model.ToolCall{ID: "call_0", Name: "Echo", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
	}
	echo, probe := agEcho("Echo", "Echoes.")
	w := agNewWorld(t, agSetup{caps: []kernel.Capability{&agCap{name: "echo", tools: []contract.Tool{echo}}}},
		modeltest.Calls(call0(1)),
		modeltest.Calls(call0(2)),
		modeltest.Say("first answer"),
		modeltest.Calls(call0(3), call0(4)),
		modeltest.Say("second answer"),
	)
	s := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "first prompt")
	id := s.ID()
	firstLen := s.Log().Len()
	require.NoError(t, s.Close())

	r := w.open(t, kernel.SessionConfig{Resume: id})
	require.Equal(t, id, r.ID(), "resumed session ID")
	assert.Equal(t, "second answer", agRun(t, r, "second prompt"), "answer")
	n := len(probe.calls())
	assert.Equal(t, 4, n, "Echo ran")

	evs := agEvents(r.Log())
	require.Greater(t, len(evs), firstLen, "log has %d events after resume, %d before", len(evs), firstLen)
	for i, ev := range evs {
		assert.Equal(t, int64(i+1), ev.Seq, "event %d has Seq %d; want the log to continue without a gap", i, ev.Seq)
	}
	assert.Equal(t, session.User, evs[firstLen].Type, "first event after resume = %+v; want the second prompt", evs[firstLen])
	assert.Equal(t, "second prompt", evs[firstLen].Text, "first event after resume = %+v; want the second prompt", evs[firstLen])
	agCheckLogPairs(t, r.Log())
	var ids []string
	for _, ev := range evs {
		if ev.Type == session.ToolUse {
			ids = append(ids, ev.ToolUseID)
		}
	}
	if assert.Len(t, ids, 4, "tool use IDs") {
		assert.Equal(t, "call_0", ids[0], "the first tool use ID is kept")
	}

	reqs := w.srv.Requests()
	resumed := fmt.Sprint(reqs[3].Messages)
	for _, s := range []string{"first prompt", "first answer", `Echo got {"n":1}`, `Echo got {"n":2}`, "second prompt"} {
		assert.Contains(t, resumed, s, "first request after resume lacks %q", s)
	}
	for i, req := range reqs {
		agCheckPairs(t, fmt.Sprintf("request %d", i+1), req.Messages)
	}
}

// agCap is an in-process capability: a name, a manifest line (empty: not
// listed), tools and hook mounts. Installed in Config.Plugins, its mounts
// land in the plugin band.
type agCap struct {
	name   string
	desc   string
	tools  []contract.Tool
	mounts []hooks.Mount
}

var (
	_ kernel.Describer    = (*agCap)(nil)
	_ kernel.ToolProvider = (*agCap)(nil)
	_ kernel.HookProvider = (*agCap)(nil)
)

func (c *agCap) Name() string                                   { return c.name }
func (c *agCap) Description() string                            { return c.desc }
func (c *agCap) Tools(context.Context) ([]contract.Tool, error) { return c.tools, nil }
func (c *agCap) Mounts() []hooks.Mount                          { return c.mounts }

// agSetup is what a test world installs.
type agSetup struct {
	caps, plugins []kernel.Capability
	budget        int
}

// agWorld is a kernel over a temp work dir, with the project skills
// capability, a memory store, and the real adapter talking to a scripted
// model; warnings are collected.
type agWorld struct {
	work string
	srv  *modeltest.Server
	k    *kernel.Kernel

	mu    sync.Mutex
	warns []contract.Warning
}

func agNewWorld(t *testing.T, setup agSetup, script ...modeltest.Step) *agWorld {
	t.Helper()
	w := &agWorld{work: t.TempDir()}
	w.srv = modeltest.NewServer(t, script...)
	client, err := openai.New(openai.Config{BaseURL: w.srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	port, err := workfs.New(w.work)
	require.NoError(t, err)
	w.k, err = kernel.New(kernel.Config{
		WorkDir:        w.work,
		UserSkillRoots: []string{},
		Project:        capskills.New(port, nil),
		Capabilities:   setup.caps,
		Plugins:        setup.plugins,
		Model:          client,
		Store:          session.NewMemoryStore(),
		ContextBudget:  setup.budget,
		OnWarning: func(wn contract.Warning) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.warns = append(w.warns, wn)
		},
	})
	if err != nil {
		port.Close()
	}
	require.NoError(t, err)
	t.Cleanup(func() { w.k.Close() })
	return w
}

func (w *agWorld) open(t *testing.T, cfg kernel.SessionConfig) *kernel.Session {
	t.Helper()
	s, err := w.k.OpenSession(t.Context(), cfg)
	require.NoError(t, err, "OpenSession")
	t.Cleanup(func() { s.Close() })
	return s
}

func (w *agWorld) warnings() []contract.Warning {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]contract.Warning(nil), w.warns...)
}

// agRun runs one turn and returns the answer; an error fails the test.
func agRun(t *testing.T, s *kernel.Session, prompt string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	answer, err := s.Run(ctx, prompt)
	require.NoError(t, err, "Run(%q)", prompt)
	return answer
}

// agProbe records the arguments of each call of a tool.
type agProbe struct {
	mu   sync.Mutex
	args []string
}

func (p *agProbe) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.args...)
}

// agEcho is a tool answering "<name> got <args>", and its probe.
func agEcho(name, desc string) (contract.Tool, *agProbe) {
	p := &agProbe{}
	return contract.Tool{Name: name, Description: desc, Call: func(_ context.Context, args json.RawMessage) (contract.ToolResult, error) {
		p.mu.Lock()
		p.args = append(p.args, string(args))
		p.mu.Unlock()
		return contract.ToolResult{Content: name + " got " + string(args)}, nil
	}}, p
}

// agConcat and agFirstWin build a capability's mount for a typed point; the
// kernel sets the origin from how the capability is installed.
func agConcat[In, Out any](p hooks.ConcatPoint[In, Out], name string, h func(context.Context, In) (Out, bool, error)) hooks.Mount {
	return hooks.Mount{Point: p.Name, Name: name, Handler: agHandler(h)}
}

func agFirstWin[In, Out any](p hooks.FirstWinPoint[In, Out], name string, h func(context.Context, In) (Out, bool, error)) hooks.Mount {
	return hooks.Mount{Point: p.Name, Name: name, Handler: agHandler(h)}
}

func agHandler[In, Out any](h func(context.Context, In) (Out, bool, error)) hooks.Handler {
	return func(ctx context.Context, in any) (hooks.Result, error) {
		v, ok := in.(In)
		if !ok {
			return hooks.Pass, fmt.Errorf("payload is %T", in)
		}
		out, handled, err := h(ctx, v)
		if err != nil || !handled {
			return hooks.Pass, err
		}
		return hooks.Handled(out), nil
	}
}

// agHandlers lists a point's handlers in dispatch order.
func agHandlers(r *hooks.Registry, point string) []hooks.HandlerInfo {
	for _, p := range r.Describe() {
		if p.Name == point {
			return p.Handlers
		}
	}
	return nil
}

func agEvents(l session.Log) []session.Event {
	evs := make([]session.Event, l.Len())
	for i := range evs {
		evs[i] = l.At(i)
	}
	return evs
}

func agResults(l session.Log) []session.Event {
	var out []session.Event
	for _, ev := range agEvents(l) {
		if ev.Type == session.ToolResult {
			out = append(out, ev)
		}
	}
	return out
}

func agCount(l session.Log, typ session.Type) int {
	n := 0
	for _, ev := range agEvents(l) {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

func agContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// agCheckLogPairs checks that tool use IDs are unique in the log and that
// each result follows its own call, once.
func agCheckLogPairs(t *testing.T, l session.Log) {
	t.Helper()
	uses := map[string]session.Event{}
	answered := map[string]bool{}
	for _, ev := range agEvents(l) {
		switch ev.Type {
		case session.ToolUse:
			_, dup := uses[ev.ToolUseID]
			assert.False(t, dup, "tool use ID %q used twice", ev.ToolUseID)
			uses[ev.ToolUseID] = ev
		case session.ToolResult:
			use, ok := uses[ev.ToolUseID]
			// The first failed check is reported; the later ones depend on it.
			if assert.True(t, ok, "result %q has no call before it", ev.ToolUseID) &&
				assert.False(t, answered[ev.ToolUseID], "call %q answered twice", ev.ToolUseID) &&
				assert.Equal(t, use.ToolName, ev.ToolName, "result %q: tool of its call", ev.ToolUseID) &&
				strings.HasPrefix(ev.Text, ev.ToolName+" got ") {
				assert.Equal(t, ev.ToolName+" got "+string(use.Input), ev.Text, "result %q does not answer its call's input", ev.ToolUseID)
			}
			answered[ev.ToolUseID] = true
		}
	}
	for id := range uses {
		assert.True(t, answered[id], "call %q has no result", id)
	}
}

// agCheckPairs is agCheckLogPairs over the messages a request carried.
func agCheckPairs(t *testing.T, what string, msgs []model.Message) {
	t.Helper()
	calls := map[string]bool{}
	answered := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			assert.False(t, calls[c.ID], "%s: tool call ID %q used twice", what, c.ID)
			calls[c.ID] = true
		}
		if m.Role == model.RoleTool {
			assert.True(t, calls[m.ToolCallID] && !answered[m.ToolCallID], "%s: tool message for %q has no call before it, or repeats", what, m.ToolCallID)
			answered[m.ToolCallID] = true
		}
	}
	for id := range calls {
		assert.True(t, answered[id], "%s: call %q has no result", what, id)
	}
}

// agInjected returns the catalog messages a request carried, in order.
func agInjected(req modeltest.Recorded) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == model.RoleUser && strings.Contains(m.Content, "<available_skills>") {
			out = append(out, m.Content)
		}
	}
	return out
}

// agToolResult returns the content of the tool message answering id.
func agToolResult(t *testing.T, req modeltest.Recorded, id string) string {
	t.Helper()
	for _, m := range req.Messages {
		if m.Role == model.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("request has no tool result for %s; messages: %+v", id, req.Messages)
	return ""
}
