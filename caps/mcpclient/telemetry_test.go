package mcpclient

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/helios-agents/helios/kernel"
	ksession "github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
)

// An MCP tool's execute_tool span names the server, and the call carries
// the span's W3C trace context in _meta, so the server can join the trace.
func TestToolSpanAndTraceContext(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel, err := telemetry.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), metricnoop.NewMeterProvider(), false)
	require.NoError(t, err)
	ss, _ := start(t, Config{Telemetry: tel}, stdioServer("t"))
	srv := modeltest.NewServer(t, modeltest.Call("mcp__t__meta", `{}`), modeltest.Say("done"))
	m, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Plugins: []kernel.Capability{ss[0]},
		Model: m, Store: ksession.NewMemoryStore(), Telemetry: tel})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(context.Background(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(ctxT(t), "trace me")
	require.NoError(t, err)

	var meta map[string]any
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == ksession.ToolResult {
			require.NoError(t, json.Unmarshal([]byte(ev.Text), &meta), ev.Text)
		}
	}
	var span sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		if sp.Name() == "execute_tool mcp__t__meta" {
			span = sp
		}
	}
	require.NotNil(t, span, "the tool call has its span")
	attrs := map[string]string{}
	for _, a := range span.Attributes() {
		attrs[string(a.Key)] = a.Value.Emit()
	}
	assert.Equal(t, "t", attrs["helios.mcp.server"])
	sc := span.SpanContext()
	assert.Equal(t, "00-"+sc.TraceID().String()+"-"+sc.SpanID().String()+"-01", meta["traceparent"], "the server got the tool span's context")
}
