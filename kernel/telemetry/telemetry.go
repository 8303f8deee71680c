package telemetry

import (
	"context"
	"errors"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the kernel's spans and metrics.
const ScopeName = "github.com/helios-agents/helios"

// Attribute keys of the GenAI semantic conventions (development status).
const (
	GenAIOperationName    = attribute.Key("gen_ai.operation.name")
	GenAIAgentName        = attribute.Key("gen_ai.agent.name")
	GenAIConversationID   = attribute.Key("gen_ai.conversation.id")
	GenAIProviderName     = attribute.Key("gen_ai.provider.name")
	GenAIRequestModel     = attribute.Key("gen_ai.request.model")
	GenAIResponseModel    = attribute.Key("gen_ai.response.model")
	GenAIInputTokens      = attribute.Key("gen_ai.usage.input_tokens")
	GenAIOutputTokens     = attribute.Key("gen_ai.usage.output_tokens")
	GenAICacheReadTokens  = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	GenAICacheWriteTokens = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	GenAIFinishReasons    = attribute.Key("gen_ai.response.finish_reasons")
	GenAIToolName         = attribute.Key("gen_ai.tool.name")
	GenAIToolCallID       = attribute.Key("gen_ai.tool.call.id")
	GenAIToolType         = attribute.Key("gen_ai.tool.type")
	GenAIToolArguments    = attribute.Key("gen_ai.tool.call.arguments")
	GenAIToolResult       = attribute.Key("gen_ai.tool.call.result")
	GenAIInputMessages    = attribute.Key("gen_ai.input.messages")
	GenAIOutputMessages   = attribute.Key("gen_ai.output.messages")
	GenAISystemInstrs     = attribute.Key("gen_ai.system_instructions")
	GenAITokenType        = attribute.Key("gen_ai.token.type")
	ErrorType             = attribute.Key("error.type")
	ServerAddress         = attribute.Key("server.address")
	HookPoint             = attribute.Key("helios.hook.point")
	PermissionDecision    = attribute.Key("permission.decision")
	PermissionRule        = attribute.Key("permission.rule")
	HookKind              = attribute.Key("helios.hook.kind")
	HookOrigin            = attribute.Key("helios.hook.origin")
	HookHandler           = attribute.Key("helios.hook.handler")
	HookOutcome           = attribute.Key("helios.hook.outcome")
	HookMount             = attribute.Key("helios.hook.mount")
	SkillsComplete        = attribute.Key("helios.skills.complete")
	SkillsCount           = attribute.Key("helios.skills.count")
	SkillsProvidersAsked  = attribute.Key("helios.skills.providers_asked")
	SkillName             = attribute.Key("helios.skill.name")
	SkillSource           = attribute.Key("helios.skill.source")
	CatalogReason         = attribute.Key("helios.catalog.reason")
	CatalogDigest         = attribute.Key("helios.catalog.digest")
	PluginName            = attribute.Key("helios.plugin.name")
	PluginRestartAttempt  = attribute.Key("helios.plugin.restart.attempt")
	SessionStep           = attribute.Key("helios.session.step")
	ToolConfinedMode      = attribute.Key("helios.tool.sandbox")
	MCPServer             = attribute.Key("helios.mcp.server")
	genAIOperationChat    = "chat"
	genAIOperationInvoke  = "invoke_agent"
	genAIOperationExecute = "execute_tool"
)

// Hook handler outcomes (helios.hook.outcome).
const (
	OutcomeHandled  = "handled"
	OutcomePassed   = "passed"
	OutcomeFailed   = "failed"
	OutcomePanicked = "panicked"
	OutcomeTimedOut = "timed_out"
)

// AgentName is gen_ai.agent.name of every turn.
const AgentName = "helios"

// T records the kernel's spans and metrics. The zero value is not usable;
// make one with New. A nil *T records nothing.
type T struct {
	tracer         trace.Tracer
	captureContent bool

	tokenUsage       metric.Int64Histogram
	opDuration       metric.Float64Histogram
	hookDuration     metric.Float64Histogram
	snapshotDuration metric.Float64Histogram
	pluginRestarts   metric.Int64Counter
}

// New makes a T over the given providers. captureContent allows prompts,
// completions and tool payloads into spans.
func New(tp trace.TracerProvider, mp metric.MeterProvider, captureContent bool) (*T, error) {
	t := &T{tracer: tp.Tracer(ScopeName), captureContent: captureContent}
	m := mp.Meter(ScopeName)
	var errs []error
	var err error
	t.tokenUsage, err = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used per model request."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304))
	errs = append(errs, err)
	t.opDuration, err = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of model requests."),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	errs = append(errs, err)
	t.hookDuration, err = m.Float64Histogram("helios.hook.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of one hook handler call, by point and origin."))
	errs = append(errs, err)
	t.snapshotDuration, err = m.Float64Histogram("helios.skills.snapshot.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of a skills catalog snapshot."))
	errs = append(errs, err)
	t.pluginRestarts, err = m.Int64Counter("helios.plugin.restarts", metric.WithUnit("{restart}"),
		metric.WithDescription("Plugin processes restarted after a crash."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// Enabled reports whether t records anything.
func (t *T) Enabled() bool { return t != nil }

// CaptureContent reports whether content may be recorded.
func (t *T) CaptureContent() bool { return t != nil && t.captureContent }

// Tracer returns the tracer, or a no-op tracer when t is nil.
func (t *T) Tracer() trace.Tracer {
	if t == nil {
		return noopTracer
	}
	return t.tracer
}

// noSpan is what a nil T hands out: the span already in the context, which
// is a non-recording span when there is none. It allocates nothing.
func noSpan(ctx context.Context) (context.Context, trace.Span) {
	return ctx, trace.SpanFromContext(ctx)
}

// StartTurn starts "invoke_agent helios" for one turn of a session.
func (t *T) StartTurn(ctx context.Context, sessionID string) (context.Context, trace.Span) {
	if t == nil {
		return noSpan(ctx)
	}
	return t.tracer.Start(ctx, genAIOperationInvoke+" "+AgentName, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(GenAIOperationName.String(genAIOperationInvoke), GenAIAgentName.String(AgentName),
			GenAIConversationID.String(sessionID)))
}

// ModelInfo names the model of a chat span; Provider and Server may be empty.
type ModelInfo struct {
	Provider string // gen_ai.provider.name
	Model    string // gen_ai.request.model
	Server   string // server.address
}

// Chat is one model request in progress; End it exactly once.
type Chat struct {
	t     *T
	span  trace.Span
	start time.Time
	attrs []attribute.KeyValue // metric dimensions
}

// StartChat starts "chat {model}".
func (t *T) StartChat(ctx context.Context, m ModelInfo, step int) (context.Context, *Chat) {
	if t == nil {
		return ctx, nil
	}
	dims := []attribute.KeyValue{GenAIOperationName.String(genAIOperationChat), GenAIRequestModel.String(m.Model)}
	if m.Provider != "" {
		dims = append(dims, GenAIProviderName.String(m.Provider))
	}
	if m.Server != "" {
		dims = append(dims, ServerAddress.String(m.Server))
	}
	attrs := append(append([]attribute.KeyValue(nil), dims...), SessionStep.Int(step))
	ctx, span := t.tracer.Start(ctx, genAIOperationChat+" "+m.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, &Chat{t: t, span: span, start: time.Now(), attrs: dims}
}

// ChatResult is what the model answered, for End.
type ChatResult struct {
	ResponseModel string
	FinishReason  string
	// InputTokens is the whole prompt, cached tokens included (as the
	// conventions ask); CacheReadTokens and CacheWriteTokens are the parts
	// read from and written to the provider's prompt cache.
	InputTokens      int
	OutputTokens     int
	CacheReadTokens  int
	CacheWriteTokens int
	// Input and Output are the request and the answer as JSON; recorded only
	// with CaptureContent.
	Input, Output string
}

// End records the answer (or err) and ends the span.
func (c *Chat) End(ctx context.Context, r ChatResult, err error) {
	if c == nil {
		return
	}
	attrs := []attribute.KeyValue{GenAIInputTokens.Int(r.InputTokens), GenAIOutputTokens.Int(r.OutputTokens),
		GenAICacheReadTokens.Int(r.CacheReadTokens), GenAICacheWriteTokens.Int(r.CacheWriteTokens)}
	if r.ResponseModel != "" {
		attrs = append(attrs, GenAIResponseModel.String(r.ResponseModel))
	}
	if r.FinishReason != "" {
		attrs = append(attrs, GenAIFinishReasons.StringSlice([]string{r.FinishReason}))
	}
	if c.t.captureContent {
		attrs = append(attrs, GenAIInputMessages.String(r.Input), GenAIOutputMessages.String(r.Output))
	}
	c.span.SetAttributes(attrs...)
	dims := c.attrs
	if err != nil {
		dims = append(dims[:len(dims):len(dims)], ErrorType.String(errorType(err)))
		fail(c.span, err)
	}
	c.span.End()
	c.t.opDuration.Record(ctx, time.Since(c.start).Seconds(), metric.WithAttributes(dims...))
	if err == nil {
		c.t.tokenUsage.Record(ctx, int64(r.InputTokens), metric.WithAttributes(append(c.attrs[:len(c.attrs):len(c.attrs)], GenAITokenType.String("input"))...))
		c.t.tokenUsage.Record(ctx, int64(r.OutputTokens), metric.WithAttributes(append(c.attrs[:len(c.attrs):len(c.attrs)], GenAITokenType.String("output"))...))
	}
}

// StartTool starts "execute_tool {name}". toolType is "function" for the
// kernel's and capabilities' tools, "extension" for a plugin's.
func (t *T) StartTool(ctx context.Context, name, callID, toolType, args string) (context.Context, trace.Span) {
	if t == nil {
		return noSpan(ctx)
	}
	attrs := []attribute.KeyValue{GenAIOperationName.String(genAIOperationExecute), GenAIToolName.String(name),
		GenAIToolCallID.String(callID), GenAIToolType.String(toolType)}
	if t.captureContent {
		attrs = append(attrs, GenAIToolArguments.String(args))
	}
	return t.tracer.Start(ctx, genAIOperationExecute+" "+name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// EndTool ends a tool span. errType is "" for a result the tool delivered,
// else a short class ("denied", "tool_error", "unknown_tool", ...) that
// becomes error.type.
func (t *T) EndTool(span trace.Span, errType, result string) {
	if t == nil {
		return
	}
	if t.captureContent {
		span.SetAttributes(GenAIToolResult.String(result))
	}
	if errType != "" {
		span.SetAttributes(ErrorType.String(errType))
		span.SetStatus(codes.Error, errType)
	}
	span.End()
}

// StartHook starts "hook {point}" around one dispatch.
func (t *T) StartHook(ctx context.Context, point, kind string) (context.Context, trace.Span) {
	if t == nil {
		return noSpan(ctx)
	}
	return t.tracer.Start(ctx, "hook "+point, trace.WithAttributes(HookPoint.String(point), HookKind.String(kind)))
}

// Handler is one hook handler call in progress; End it exactly once.
type Handler struct {
	t     *T
	span  trace.Span
	start time.Time
	point string
	orig  string
}

// StartHandler starts the child span of one handler call of a hook dispatch.
func (t *T) StartHandler(ctx context.Context, point, kind, origin, handler string) (context.Context, *Handler) {
	if t == nil {
		return ctx, nil
	}
	ctx, span := t.tracer.Start(ctx, "hook.handler "+handler, trace.WithAttributes(HookPoint.String(point), HookKind.String(kind),
		HookOrigin.String(origin), HookHandler.String(handler)))
	return ctx, &Handler{t: t, span: span, start: time.Now(), point: point, orig: origin}
}

// End records the handler's outcome (one of the Outcome constants) and err.
func (h *Handler) End(ctx context.Context, outcome string, err error) {
	if h == nil {
		return
	}
	h.span.SetAttributes(HookOutcome.String(outcome))
	if err != nil {
		fail(h.span, err)
	}
	h.span.End()
	h.t.hookDuration.Record(ctx, time.Since(h.start).Seconds(), metric.WithAttributes(HookPoint.String(h.point), HookOrigin.String(h.orig), HookOutcome.String(outcome)))
}

// HandlerOutcome classifies a failed handler call: timed_out when err is a
// deadline, else failed.
func HandlerOutcome(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return OutcomeTimedOut
	}
	return OutcomeFailed
}

// Snapshot is one catalog snapshot in progress.
type Snapshot struct {
	t     *T
	span  trace.Span
	start time.Time
}

// StartSnapshot starts "skills.snapshot".
func (t *T) StartSnapshot(ctx context.Context) (context.Context, *Snapshot) {
	if t == nil {
		return ctx, nil
	}
	ctx, span := t.tracer.Start(ctx, "skills.snapshot")
	return ctx, &Snapshot{t: t, span: span, start: time.Now()}
}

// End records the snapshot's completeness, its size and how many providers
// were asked (0 when it came from cache).
func (s *Snapshot) End(ctx context.Context, complete bool, count, providersAsked int) {
	if s == nil {
		return
	}
	s.span.SetAttributes(SkillsComplete.Bool(complete), SkillsCount.Int(count), SkillsProvidersAsked.Int(providersAsked))
	s.span.End()
	s.t.snapshotDuration.Record(ctx, time.Since(s.start).Seconds(), metric.WithAttributes(SkillsComplete.Bool(complete)))
}

// StartSkillLoad starts "skills.load" for one skill.
func (t *T) StartSkillLoad(ctx context.Context, name, source string) (context.Context, trace.Span) {
	if t == nil {
		return noSpan(ctx)
	}
	return t.tracer.Start(ctx, "skills.load", trace.WithAttributes(SkillName.String(name), SkillSource.String(source)))
}

// End ends a span, marking it failed when err is not nil. It is for the
// spans of StartTurn, StartHook and StartSkillLoad.
func (t *T) End(span trace.Span, err error) {
	if t == nil {
		return
	}
	if err != nil {
		fail(span, err)
	}
	span.End()
}

// CatalogInjected adds the event "catalog.injected" with its reason to the
// span in ctx.
func (t *T) CatalogInjected(ctx context.Context, reason, digest string) {
	if t == nil {
		return
	}
	trace.SpanFromContext(ctx).AddEvent("catalog.injected", trace.WithAttributes(CatalogReason.String(reason), CatalogDigest.String(digest)))
}

// PluginStart records the start (restart > 0: the restart after that many
// consecutive failures) of a plugin process as a span, ended by the caller.
func (t *T) PluginStart(ctx context.Context, plugin string, restart int) (context.Context, trace.Span) {
	if t == nil {
		return noSpan(ctx)
	}
	name := "plugin.start"
	attrs := []attribute.KeyValue{PluginName.String(plugin)}
	if restart > 0 {
		name = "plugin.restart"
		attrs = append(attrs, PluginRestartAttempt.Int(restart))
		t.pluginRestarts.Add(ctx, 1, metric.WithAttributes(PluginName.String(plugin)))
	}
	return t.tracer.Start(ctx, name, trace.WithAttributes(attrs...))
}

func fail(span trace.Span, err error) {
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// errorType is a low-cardinality error.type: the deadline class or "_OTHER".
func errorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "_OTHER"
}
