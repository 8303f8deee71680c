package telemetry

import "go.opentelemetry.io/otel/trace/noop"

var noopTracer = noop.NewTracerProvider().Tracer(ScopeName)
