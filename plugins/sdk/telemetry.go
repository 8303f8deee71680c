package sdk

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/helios-agents/helios/otelsetup"
)

// startTelemetry sets up the exporters the kernel handed over (nil when the
// kernel traces nothing). The plugin's spans carry its own service.name and
// join the kernel's traces through the trace context of each call. Stdout
// exporters write to stderr: a plugin's stdout belongs to go-plugin.
func startTelemetry(name string, stderr io.Writer, logger *slog.Logger) (*otelsetup.Providers, error) {
	cfg, err := otelsetup.FromHandover(os.Getenv(otelsetup.HandoverEnv))
	if err != nil {
		return nil, err
	}
	return otelsetup.Setup(context.Background(), cfg, otelsetup.Options{Logger: logger, Stdout: stderr, DefaultServiceName: name})
}
