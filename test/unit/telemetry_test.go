package unit_test

// Contract C14 across the kernel, a plugin and the helios binary. A
// handler span's outcome is tested in kernel/telemetry, the config keys in
// assembly.

import (
	"bufio"
	"context"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/internal/otlptest"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/session"
	kskills "github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/otelsetup"
	"github.com/helios-agents/helios/plugins/host"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
	"github.com/helios-agents/helios/workfs"
)

// The words of a turn's content: none may reach a span without
// captureContent.
const (
	telPrompt = "prompt-text-8431"
	telOutput = "tool-output-5127"
	telAnswer = "final-answer-7719"
)

// telWorld is a kernel with the builtin tools, the house-rules builtin and
// the example plugin, recording through tel, and a scripted model that
// loads the plugin's skill, runs Bash, then answers.
type telWorld struct {
	k   *kernel.Kernel
	srv *modeltest.Server
}

func newTelWorld(t *testing.T, tel *telemetry.T, plugin kernel.Capability, turns int, extra ...kernel.Capability) *telWorld {
	t.Helper()
	work := t.TempDir()
	var script []modeltest.Step
	for range turns {
		script = append(script,
			modeltest.Call("skill", `{"name":"release-notes"}`),
			modeltest.Call("Bash", `{"command":"echo `+telOutput+`"}`),
			modeltest.Say(telAnswer))
	}
	srv := modeltest.NewServer(t, script...)
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	port, err := workfs.New(work)
	require.NoError(t, err)
	set, err := tools.New(tools.Config{FS: port})
	require.NoError(t, err)
	caps := append([]kernel.Capability{telTools{set}, plBuiltin{}}, extra...)
	var plugins []kernel.Capability
	if plugin != nil {
		plugins = append(plugins, plugin)
	}
	k, err := kernel.New(kernel.Config{
		WorkDir:        work,
		UserSkillRoots: []string{},
		Project:        capskills.New(port, nil),
		Capabilities:   caps,
		Plugins:        plugins,
		Model:          client,
		Store:          session.NewMemoryStore(),
		Telemetry:      tel,
	})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	return &telWorld{k: k, srv: srv}
}

type telTools struct{ set *tools.Set }

func (telTools) Name() string                                     { return "builtin-tools" }
func (c telTools) Tools(context.Context) ([]contract.Tool, error) { return c.set.Tools(), nil }

func (w *telWorld) turn(t *testing.T) string {
	t.Helper()
	s, err := w.k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	answer, err := s.Run(ctx, "please "+telPrompt)
	require.NoError(t, err)
	require.Equal(t, telAnswer, answer)
	return s.ID()
}

// telTree indexes received spans by id.
type telTree struct {
	spans []otlptest.Span
	byID  map[string]otlptest.Span
}

func newTelTree(spans []otlptest.Span) telTree {
	tr := telTree{spans: spans, byID: map[string]otlptest.Span{}}
	for _, s := range spans {
		tr.byID[hex.EncodeToString(s.SpanId)] = s
	}
	return tr
}

func (tr telTree) named(name string) []otlptest.Span {
	var out []otlptest.Span
	for _, s := range tr.spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func (tr telTree) one(t *testing.T, name string, where func(otlptest.Span) bool) otlptest.Span {
	t.Helper()
	var found []otlptest.Span
	for _, s := range tr.named(name) {
		if where == nil || where(s) {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "spans named %q", name)
	return found[0]
}

func (tr telTree) parent(s otlptest.Span) (otlptest.Span, bool) {
	p, ok := tr.byID[hex.EncodeToString(s.ParentSpanId)]
	return p, ok
}

func (tr telTree) children(of otlptest.Span, name string) []otlptest.Span {
	var out []otlptest.Span
	for _, s := range tr.named(name) {
		if string(s.ParentSpanId) == string(of.SpanId) {
			out = append(out, s)
		}
	}
	return out
}

func attrIs(key, want string) func(otlptest.Span) bool {
	return func(s otlptest.Span) bool { v, _ := s.Attr(key); return v == want }
}

func assertAttrs(t *testing.T, s otlptest.Span, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := s.Attr(k)
		if assert.True(t, ok, "%s: attribute %s missing", s.Name, k) {
			assert.Equal(t, v, got, "%s: attribute %s", s.Name, k)
		}
	}
}

// Protects C14: a scripted turn with a skill load, a Bash call, a builtin
// and a plugin tool:before handler is one trace, exported over OTLP/HTTP to
// a real receiver, kernel and plugin alike; the plugin's span is a child of
// the kernel's handler span; the GenAI attributes are set; no content is
// recorded without opt-in.
func TestTelemetryTurnTree(t *testing.T) {
	rcv := otlptest.Start(t)
	cfg := otelsetup.Config{
		Traces:  otelsetup.Signal{Exporter: otelsetup.OTLPHTTP, Endpoint: rcv.URL()},
		Metrics: otelsetup.Signal{Exporter: otelsetup.OTLPHTTP, Endpoint: rcv.URL()},
	}
	prov, err := otelsetup.Setup(t.Context(), cfg, otelsetup.Options{BatchTimeout: 20 * time.Millisecond})
	require.NoError(t, err)
	require.NotNil(t, prov)
	plugin := plLaunch(t, host.Config{Name: "release-notes", Env: []string{otelsetup.HandoverEnv + "=" + otelsetup.Handover(cfg)}})
	w := newTelWorld(t, prov.T, plugin, 1)
	sessionID := w.turn(t)

	require.NoError(t, w.k.Close()) // stops the plugin, which flushes
	require.NoError(t, prov.Shutdown(context.Background()))
	require.Eventually(t, func() bool {
		for _, s := range rcv.Spans() {
			if s.Name == "plugin.hook tool:before" {
				return true
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "the plugin's span never arrived")
	tr := newTelTree(rcv.Spans())

	turn := tr.one(t, "invoke_agent helios", nil)
	assert.Equal(t, "helios", turn.Service)
	assertAttrs(t, turn, map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helios", "gen_ai.conversation.id": sessionID})
	for _, s := range tr.spans {
		if s.Name != "hook session:start" && s.Name != "hook session:end" { // opening and closing the session are not part of the turn
			assert.Equal(t, turn.TraceId, s.TraceId, "span %q (%s) is in another trace", s.Name, s.Service)
		}
	}

	chats := tr.children(turn, "chat scripted")
	require.Len(t, chats, 3, "one chat span per model request, under the turn")
	for _, c := range chats {
		assertAttrs(t, c, map[string]string{"gen_ai.operation.name": "chat", "gen_ai.request.model": "scripted",
			"gen_ai.response.model": "scripted", "gen_ai.provider.name": "_OTHER", "server.address": "127.0.0.1"})
		for _, k := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"} {
			v, ok := c.Attr(k)
			assert.True(t, ok && v != "0", "%s = %q: token usage missing", k, v)
		}
		_, ok := c.Attr("gen_ai.response.finish_reasons")
		assert.True(t, ok, "finish reasons missing")
	}

	skill := tr.one(t, "execute_tool skill", nil)
	assertAttrs(t, skill, map[string]string{"gen_ai.tool.name": "skill", "gen_ai.tool.type": "function"})
	if p, ok := tr.parent(skill); assert.True(t, ok) {
		assert.Equal(t, "invoke_agent helios", p.Name)
	}
	load := tr.children(skill, "skills.load")
	require.Len(t, load, 1)
	assertAttrs(t, load[0], map[string]string{"helios.skill.name": "release-notes", "helios.skill.source": "capability:release-notes"})
	pskill := tr.children(load[0], "plugin.skill release-notes")
	require.Len(t, pskill, 1, "the plugin's skill load is a child of the kernel's")
	assert.Equal(t, "release-notes", pskill[0].Service)

	bash := tr.one(t, "execute_tool Bash", nil)
	id, _ := bash.Attr("gen_ai.tool.call.id")
	assert.NotEmpty(t, id)
	hookSpans := tr.children(bash, "hook tool:before")
	require.Len(t, hookSpans, 1, "tool:before runs inside the tool's span")
	assertAttrs(t, hookSpans[0], map[string]string{"helios.hook.point": "tool:before", "helios.hook.kind": "firstWin"})
	builtin := tr.children(hookSpans[0], "hook.handler house-guard")
	require.Len(t, builtin, 1)
	assertAttrs(t, builtin[0], map[string]string{"helios.hook.origin": "builtin", "helios.hook.handler": "house-guard", "helios.hook.outcome": "passed"})
	var pluginHandler otlptest.Span
	for _, s := range tr.spans {
		if p, ok := tr.parent(s); ok && string(p.SpanId) == string(hookSpans[0].SpanId) && strings.HasPrefix(s.Name, "hook.handler ") {
			if o, _ := s.Attr("helios.hook.origin"); o == "plugin" {
				pluginHandler = s
			}
		}
	}
	require.NotNil(t, pluginHandler.Span, "no plugin handler span under hook tool:before")
	assertAttrs(t, pluginHandler, map[string]string{"helios.hook.outcome": "passed"})
	assert.Less(t, builtin[0].StartTimeUnixNano, pluginHandler.StartTimeUnixNano, "the builtin runs first")
	remote := tr.children(pluginHandler, "plugin.hook tool:before")
	require.Len(t, remote, 1, "the plugin's span is a child of the kernel's handler span")
	assert.Equal(t, "release-notes", remote[0].Service)
	assertAttrs(t, remote[0], map[string]string{"helios.hook.point": "tool:before", "helios.plugin.name": "release-notes"})

	snap := tr.named("skills.snapshot")
	require.NotEmpty(t, snap)
	assertAttrs(t, snap[0], map[string]string{"helios.skills.complete": "true"})
	_, ok := snap[0].Attr("helios.skills.providers_asked")
	assert.True(t, ok)
	prepare := tr.children(turn, "hook context:prepare")
	assert.Len(t, prepare, 3, "context:prepare once per step")

	telNoContent(t, tr.spans)

	names := map[string]bool{}
	for _, rm := range rcv.Metrics() {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				names[m.Name] = true
			}
		}
	}
	for _, n := range []string{"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "helios.hook.duration", "helios.skills.snapshot.duration"} {
		assert.True(t, names[n], "metric %s not exported", n)
	}
}

func telNoContent(t *testing.T, spans []otlptest.Span) {
	t.Helper()
	for _, s := range spans {
		var texts []string
		for _, kv := range s.Attributes {
			texts = append(texts, kv.Value.String())
		}
		for _, ev := range s.Events {
			texts = append(texts, ev.Name)
			for _, kv := range ev.Attributes {
				texts = append(texts, kv.Value.String())
			}
		}
		for _, text := range texts {
			for _, secret := range []string{telPrompt, telOutput, telAnswer} {
				assert.NotContains(t, text, secret, "span %q records content without captureContent", s.Name)
			}
		}
	}
}

// Protects C14 content opt-in: with captureContent the chat span carries
// the messages and the tool span its arguments and result.
func TestTelemetryCaptureContent(t *testing.T) {
	for _, capture := range []bool{false, true} {
		exp := tracetest.NewInMemoryExporter()
		tel, err := telemetry.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), metricnoop.NewMeterProvider(), capture)
		require.NoError(t, err)
		newTelWorld(t, tel, nil, 1, telSkill{}).turn(t)
		var all strings.Builder
		for _, s := range exp.GetSpans() {
			for _, kv := range s.Attributes {
				all.WriteString(kv.Value.Emit() + "\n")
			}
		}
		for _, secret := range []string{telPrompt, telOutput, telAnswer} {
			if capture {
				assert.Contains(t, all.String(), secret, "captureContent: %s recorded", secret)
			} else {
				assert.NotContains(t, all.String(), secret, "no content without captureContent")
			}
		}
	}
}

// telSkill offers the release-notes skill in process, for worlds without
// the plugin.
type telSkill struct{}

func (telSkill) Name() string { return "notes" }
func (telSkill) Skills(context.Context) (kskills.Set, error) {
	return kskills.Set{Skills: []kskills.Skill{{Name: "release-notes", Description: "Draft release notes.", BaseDir: "/nowhere",
		Load: func(context.Context) (kskills.Content, error) {
			return kskills.Content{Name: "release-notes", Body: "body"}, nil
		}}}}, nil
}

// Protects C14: a collector that cannot be reached never fails a turn; the
// failed export is logged once, not once per batch.
func TestTelemetryUnreachableCollector(t *testing.T) {
	var logs testkit.SyncBuffer
	cfg := otelsetup.Config{Traces: otelsetup.Signal{Exporter: otelsetup.OTLPHTTP, Endpoint: "http://127.0.0.1:1"}}
	prov, err := otelsetup.Setup(t.Context(), cfg, otelsetup.Options{BatchTimeout: 5 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	w := newTelWorld(t, prov.T, nil, 2, telSkill{})
	w.turn(t)
	w.turn(t)
	require.NoError(t, prov.Shutdown(context.Background()))
	assert.Equal(t, 1, strings.Count(logs.String(), "export failed; dropping spans"), "one warning for the failing exports:\n%s", logs.String())
	assert.Contains(t, logs.String(), "spans were dropped because their export failed", "the total is told at exit")
}

// Protects C14's file exporter end to end: `helios run` with the file
// exporter and the plugin writes one file in which the plugin's spans join
// the kernel's trace.
func TestTelemetryFileExporterCLI(t *testing.T) {
	plDir := plExample(t)
	dir := t.TempDir()
	srv := modeltest.NewServer(t,
		modeltest.Call("Bash", `{"command":"echo hi"}`),
		modeltest.Say("done"),
	)
	trace := filepath.Join(dir, "trace.jsonl")
	cfgFile := filepath.Join(dir, "helios.config.json")
	require.NoError(t, os.WriteFile(cfgFile, []byte(`{
		"workDir": ".",
		"model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
		"sessions": {"dir": "sessions"},
		"plugins": [{"name": "release-notes", "command": "`+filepath.Join(plDir, "release-notes")+`"}],
		"telemetry": {"traces": {"exporter": "file", "path": "trace.jsonl"}}
	}`), 0o644))
	res := helios(t, t.TempDir(), dir, "--config", cfgFile, "run", "hello")
	require.Equal(t, 0, res.code, "stderr: %s", res.stderr)

	tr := newTelTree(telFileSpans(t, trace))
	remote := tr.one(t, "plugin.hook tool:before", nil)
	assert.Equal(t, "release-notes", remote.Service)
	handler, ok := tr.parent(remote)
	require.True(t, ok, "the plugin span's parent is in the same file")
	assert.Equal(t, "helios", handler.Service)
	assertAttrs(t, handler, map[string]string{"helios.hook.origin": "plugin"})
	turn := tr.one(t, "invoke_agent helios", nil)
	assert.Equal(t, turn.TraceId, remote.TraceId)
}

// telFileSpans reads the spans the file exporter wrote: one OTLP/JSON
// TracesData a line.
func telFileSpans(t *testing.T, path string) []otlptest.Span {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var spans []otlptest.Span
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var td tracepb.TracesData
		require.NoError(t, protojson.Unmarshal(sc.Bytes(), &td), "line %q", sc.Text())
		require.Len(t, td.ResourceSpans, 1, "one ResourceSpans per line")
		svc := ""
		for _, kv := range td.ResourceSpans[0].GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				svc = kv.Value.GetStringValue()
			}
		}
		for _, ss := range td.ResourceSpans[0].ScopeSpans {
			for _, s := range ss.Spans {
				spans = append(spans, otlptest.Span{Service: svc, Span: s})
			}
		}
	}
	require.NoError(t, sc.Err())
	return spans
}

// Protects C14 plugin lifecycle: a plugin's start and its restart after a
// crash are spans, and the restart is counted in helios.plugin.restarts.
func TestTelemetryPluginStartAndRestart(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	reader := sdkmetric.NewManualReader()
	tel, err := telemetry.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), false)
	require.NoError(t, err)
	c := plLaunch(t, host.Config{Name: "release-notes", Telemetry: tel, RestartBackoff: 10 * time.Millisecond})
	spanNamed := func(name string) (sdktrace.ReadOnlySpan, bool) {
		for _, s := range exp.GetSpans().Snapshots() {
			if s.Name() == name {
				return s, true
			}
		}
		return nil, false
	}
	start, ok := spanNamed("plugin.start")
	require.True(t, ok, "no plugin.start span")
	assert.Contains(t, start.Attributes(), telemetry.PluginName.String("release-notes"))

	require.NoError(t, syscall.Kill(c.Status().PID, syscall.SIGKILL))
	var prepare hooks.Mount
	for _, m := range c.Mounts() {
		if m.Point == hooks.ContextPrepare.Name {
			prepare = m
		}
	}
	require.NotNil(t, prepare.Handler)
	require.Eventually(t, func() bool {
		_, _ = prepare.Handler(context.Background(), kernel.PrepareIn{SessionID: "s", Step: 1})
		_, ok := spanNamed("plugin.restart")
		return ok
	}, 10*time.Second, 20*time.Millisecond, "the plugin was never restarted")
	restart, _ := spanNamed("plugin.restart")
	assert.Contains(t, restart.Attributes(), telemetry.PluginRestartAttempt.Int(1))

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	var restarts int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "helios.plugin.restarts" {
				for _, dp := range sum.DataPoints {
					restarts += dp.Value
				}
			}
		}
	}
	assert.Equal(t, int64(1), restarts)
}
