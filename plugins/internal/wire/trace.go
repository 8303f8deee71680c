package wire

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/plugins/internal/proto"
)

// W3C trace context crosses the plugin connection in gRPC metadata
// (traceparent, tracestate), so the spans a plugin records join the
// kernel's trace as children of the hook handler, tool or skill-load span
// that called it.
var traceContext = propagation.TraceContext{}

// metadataCarrier adapts gRPC metadata to the propagator.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// traceClientInterceptor puts the caller's span context into each call's
// metadata. Without a valid span (telemetry off) it adds nothing.
func traceClientInterceptor(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if trace.SpanContextFromContext(ctx).IsValid() {
		md, _ := metadata.FromOutgoingContext(ctx)
		md = md.Copy()
		traceContext.Inject(ctx, metadataCarrier(md))
		ctx = metadata.NewOutgoingContext(ctx, md)
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// TraceServerOption makes a plugin's gRPC server continue the kernel's
// trace: each call carrying a trace context gets a server span of tp
// ("plugin.hook {point}", "plugin.tool {name}", "plugin.skill {name}")
// whose parent is the kernel's span, and the handler's context carries it,
// so the handler's own spans nest under it. plugin is the plugin's name.
func TraceServerOption(tp trace.TracerProvider, plugin string) grpc.ServerOption {
	tracer := tp.Tracer(telemetry.ScopeName + "/plugins")
	return grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		md, ok := metadata.FromIncomingContext(ctx)
		if !ok {
			return handler(ctx, req)
		}
		ctx = traceContext.Extract(ctx, metadataCarrier(md))
		if !trace.SpanContextFromContext(ctx).IsValid() {
			return handler(ctx, req)
		}
		name, attrs := serverSpan(req)
		if name == "" {
			return handler(ctx, req)
		}
		attrs = append(attrs, telemetry.PluginName.String(plugin))
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		resp, err := handler(ctx, req)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		if r, ok := resp.(*proto.HandleResponse); ok && err == nil {
			outcome := telemetry.OutcomePassed
			if r.GetHandled() {
				outcome = telemetry.OutcomeHandled
			}
			span.SetAttributes(telemetry.HookOutcome.String(outcome))
		}
		return resp, err
	})
}

// serverSpan names the span of a traced request; "" for calls not traced
// (Describe).
func serverSpan(req any) (string, []attribute.KeyValue) {
	switch r := req.(type) {
	case *proto.HandleRequest:
		return "plugin.hook " + r.GetPoint(), []attribute.KeyValue{telemetry.HookPoint.String(r.GetPoint()), telemetry.HookMount.String(r.GetMount())}
	case *proto.CallToolRequest:
		return "plugin.tool " + r.GetName(), []attribute.KeyValue{telemetry.GenAIToolName.String(r.GetName())}
	case *proto.LoadSkillRequest:
		return "plugin.skill " + r.GetName(), []attribute.KeyValue{telemetry.SkillName.String(r.GetName())}
	}
	return "", nil
}
