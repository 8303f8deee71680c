package telemetry_test

// Contract C14: what a hook handler's span records.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// Protects C14 handler outcomes: a failing handler's span says failed with
// an error status, a panicking one panicked; the next handler still runs.
func TestTelemetryHandlerOutcomes(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tel, err := telemetry.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), metricnoop.NewMeterProvider(), false)
	require.NoError(t, err)
	r := hooks.New(hooks.Config{Scope: hooks.ScopeRun, Telemetry: tel})
	mount := func(name string, origin hooks.Origin, h hooks.Handler) {
		require.NoError(t, r.Mount(hooks.Mount{Point: hooks.ToolBefore.Name, Name: name, Origin: origin, Handler: h}))
	}
	mount("broken", hooks.Builtin, func(context.Context, any) (hooks.Result, error) { return hooks.Pass, errors.New("disk on fire") })
	mount("crashing", hooks.Builtin, func(context.Context, any) (hooks.Result, error) { panic("boom") })
	mount("slow", hooks.Plugin, func(context.Context, any) (hooks.Result, error) { return hooks.Pass, context.DeadlineExceeded })
	mount("deciding", hooks.Plugin, func(context.Context, any) (hooks.Result, error) { return hooks.Handled("deny"), nil })
	mount("never", hooks.Plugin, func(context.Context, any) (hooks.Result, error) { return hooks.Handled("late"), nil })
	res, err := r.DispatchFirstWin(context.Background(), hooks.ToolBefore.Name, "in")
	require.NoError(t, err)
	require.Equal(t, hooks.Handled("deny"), res)

	outcomes := map[string]string{}
	var hookSpan sdktrace.ReadOnlySpan
	for _, s := range exp.GetSpans().Snapshots() {
		if s.Name() == "hook tool:before" {
			hookSpan = s
			continue
		}
		for _, kv := range s.Attributes() {
			if kv.Key == telemetry.HookOutcome {
				outcomes[strings.TrimPrefix(s.Name(), "hook.handler ")] = kv.Value.AsString()
			}
		}
		if strings.HasPrefix(s.Name(), "hook.handler broken") || strings.HasPrefix(s.Name(), "hook.handler crashing") {
			assert.Equal(t, "Error", s.Status().Code.String(), "%s: status", s.Name())
		}
	}
	require.NotNil(t, hookSpan)
	assert.Equal(t, map[string]string{"broken": "failed", "crashing": "panicked", "slow": "timed_out", "deciding": "handled"}, outcomes)
}
