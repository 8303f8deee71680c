// Package otelsetup builds the OpenTelemetry SDK behind a telemetry.T from
// Helios's telemetry configuration and the standard OTEL_* variables: the
// tracer and meter providers, their exporters (OTLP over HTTP or gRPC,
// stdout, or an OTLP/JSON lines file) and the resource. The assembly uses it
// for the kernel, and plugins/sdk for a plugin, which receives the kernel's
// configuration through the environment (see Handover) so that its spans
// join the kernel's traces under its own service.name.
package otelsetup
