// Package telemetry holds the kernel's OpenTelemetry instruments: the span
// names and attribute keys Helios records (the GenAI semantic conventions,
// which are still in development status and so are defined here rather
// than taken from a semconv package, plus Helios's own helios.* keys), and
// the T that starts spans and records metrics.
//
// A nil *T is telemetry off. Every method of a nil *T returns at once and
// allocates nothing, so the kernel calls them unconditionally and pays a nil
// check when telemetry is not configured. The SDK, the exporters and the
// configuration that builds a T live in otelsetup, so that
// packages which only record (hooks, the step loop) do not link exporters.
//
// Content stays out: prompts, completions, tool arguments and tool results
// are recorded only when T was made with CaptureContent.
package telemetry
