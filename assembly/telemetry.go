package assembly

import (
	"context"
	"fmt"
	"os"

	"github.com/helios-agents/helios/otelsetup"
)

// telemetryConfig turns the "telemetry" key into otelsetup's config, with
// the file exporters' paths resolved against base and the OTEL_* variables
// filling what the key leaves out. The key's values were checked by
// Validate.
func telemetryConfig(c TelemetryConfig, base string, getenv func(string) string) (otelsetup.Config, error) {
	sig := func(s TelemetrySignal) otelsetup.Signal {
		out := otelsetup.Signal{Exporter: string(s.Exporter), Endpoint: s.Endpoint}
		if s.Path != "" {
			out.Path = resolve(base, s.Path)
		}
		return out
	}
	cfg := otelsetup.Config{Traces: sig(c.Traces), Metrics: sig(c.Metrics), CaptureContent: c.CaptureContent, ServiceName: c.ServiceName}
	cfg, err := otelsetup.FromEnv(cfg, getenv)
	if err != nil {
		return cfg, fmt.Errorf("read telemetry variables: %w", err)
	}
	return cfg, nil
}

// openTelemetry sets up the providers of the config; nil when telemetry is
// off. The caller closes them (they flush on Close).
func openTelemetry(ctx context.Context, cfg otelsetup.Config, opts Options) (*otelsetup.Providers, error) {
	out := opts.TelemetryStdout
	if out == nil {
		out = os.Stdout
	}
	return otelsetup.Setup(ctx, cfg, otelsetup.Options{Logger: opts.Logger, Stdout: out, Secrets: opts.Secrets})
}
