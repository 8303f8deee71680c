package hooks_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// prepare is a payload shaped like the kernel's: a struct, which an any
// holds only by boxing it.
type prepare struct {
	Session string
	Step    int
	Notes   []string
}

// verdict is a decision shaped like the kernel's.
type verdict struct {
	Deny   bool
	Reason string
}

// typedWorld is a run registry that records warnings, handler calls and
// the payload each handler got.
type typedWorld struct {
	r        *hooks.Registry
	warnings []string
	calls    []string
	payloads []any
}

func newTypedWorld() *typedWorld {
	w := &typedWorld{}
	w.r = hooks.New(hooks.Config{Scope: hooks.ScopeRun, OnWarning: func(wn contract.Warning) {
		w.warnings = append(w.warnings, wn.Message)
	}})
	return w
}

// bare mounts a Handler built by hand, as a plugin's are.
func (w *typedWorld) bare(t *testing.T, point, name string, origin hooks.Origin, res hooks.Result) {
	t.Helper()
	require.NoError(t, w.r.Mount(hooks.Mount{Point: point, Name: name, Origin: origin, Handler: func(_ context.Context, in any) (hooks.Result, error) {
		w.calls = append(w.calls, name)
		w.payloads = append(w.payloads, in)
		return res, nil
	}}))
}

// Protects the typed fast path (M155, M156): a typed dispatch calls the
// handlers Bind made as they are and bare Handlers through Handler, and
// gives what the Handler path gives: one dispatch order across both, the
// payload to each, passes skipped, errors and panics warned about and
// skipped, a value of another type refused.
func TestDispatchTypedConcatMixesBoundAndBareHandlers(t *testing.T) {
	w := newTypedWorld()
	pt := hooks.NewConcat[prepare, string](hooks.ContextPrepare.Point)
	typed := func(name string, origin hooks.Origin, f func() (string, bool, error)) {
		t.Helper()
		require.NoError(t, pt.Mount(w.r, name, origin, func(_ context.Context, in prepare) (string, bool, error) {
			w.calls = append(w.calls, name)
			w.payloads = append(w.payloads, in)
			return f()
		}))
	}
	// The plugin is mounted first and still runs last.
	typed("plugin", hooks.Plugin, func() (string, bool, error) { return "plugin", true, nil })
	typed("a", hooks.Builtin, func() (string, bool, error) { return "a", true, nil })
	w.bare(t, pt.Name, "b", hooks.Builtin, hooks.Handled("b"))
	typed("passing", hooks.Builtin, func() (string, bool, error) { return "ignored", false, nil })
	typed("failing", hooks.Builtin, func() (string, bool, error) { return "ignored", true, errors.New("disk on fire") })
	typed("panicking", hooks.Builtin, func() (string, bool, error) { panic("index out of range [7]") })
	w.bare(t, pt.Name, "foreign", hooks.Builtin, hooks.Handled(42))
	typed("c", hooks.Builtin, func() (string, bool, error) { return "c", true, nil })

	in := prepare{Session: "s1", Step: 3, Notes: []string{"n"}}
	got, err := pt.Dispatch(context.Background(), w.r, in)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "plugin"}, got, "contributions in dispatch order")
	assert.Equal(t, []string{"a", "b", "passing", "failing", "panicking", "foreign", "c", "plugin"}, w.calls, "calls")
	for i, p := range w.payloads {
		assert.Equal(t, in, p, "payload of %s", w.calls[i])
	}
	require.Len(t, w.warnings, 3, "warnings: %q", w.warnings)
	assert.Contains(t, w.warnings[0], `"failing" failed: disk on fire`)
	assert.Contains(t, w.warnings[1], `"panicking" failed: panic: index out of range [7]`)
	assert.Contains(t, w.warnings[2], `"foreign" failed: handler returned int, want string`)
}

// Protects the typed fast path on a firstWin point: passes and failures
// (a refused value among them) give the next handler its turn; the first
// decision wins and later handlers are not called.
func TestDispatchTypedFirstWinMixesBoundAndBareHandlers(t *testing.T) {
	w := newTypedWorld()
	pt := hooks.NewFirstWin[prepare, verdict](hooks.ToolBefore.Point)
	typed := func(name string, origin hooks.Origin, v verdict, handled bool, err error) {
		t.Helper()
		require.NoError(t, pt.Mount(w.r, name, origin, func(_ context.Context, in prepare) (verdict, bool, error) {
			w.calls = append(w.calls, name)
			w.payloads = append(w.payloads, in)
			return v, handled, err
		}))
	}
	typed("passing", hooks.Builtin, verdict{Deny: true}, false, nil)
	w.bare(t, pt.Name, "foreign", hooks.Builtin, hooks.Handled("deny"))
	typed("failing", hooks.Builtin, verdict{Deny: true}, true, errors.New("bad payload"))
	typed("deciding", hooks.Plugin, verdict{Deny: true, Reason: "policy"}, true, nil)
	typed("never", hooks.Plugin, verdict{Reason: "late"}, true, nil)

	in := prepare{Session: "s1", Step: 1}
	got, handled, err := pt.Dispatch(context.Background(), w.r, in)
	require.NoError(t, err)
	require.True(t, handled, "Dispatch = %+v", got)
	assert.Equal(t, verdict{Deny: true, Reason: "policy"}, got)
	assert.Equal(t, []string{"passing", "foreign", "failing", "deciding"}, w.calls, "calls")
	for i, p := range w.payloads {
		assert.Equal(t, in, p, "payload of %s", w.calls[i])
	}
	require.Len(t, w.warnings, 2, "warnings: %q", w.warnings)
	assert.Contains(t, w.warnings[0], `"foreign" failed: handler returned string, want hooks_test.verdict`)
	assert.Contains(t, w.warnings[1], `"failing" failed: bad payload`)
}

// Protects M155: a typed point of an interface In or Out keeps the checks
// of the Handler path: a nil value is no Out, a nil payload no In.
func TestDispatchTypedInterfaceTypesKeepTheirChecks(t *testing.T) {
	t.Run("nil value", func(t *testing.T) {
		w := newTypedWorld()
		pt := hooks.NewConcat[string, fmt.Stringer](hooks.ContextPrepare.Point)
		require.NoError(t, pt.Mount(w.r, "nil", hooks.Builtin, func(context.Context, string) (fmt.Stringer, bool, error) {
			return nil, true, nil
		}))
		got, err := pt.Dispatch(context.Background(), w.r, "in")
		require.NoError(t, err)
		assert.Empty(t, got, "a nil value contributes nothing")
		require.Len(t, w.warnings, 1, "warnings: %q", w.warnings)
		assert.Contains(t, w.warnings[0], `"nil" failed: handler returned <nil>`)
	})
	t.Run("nil payload", func(t *testing.T) {
		w := newTypedWorld()
		pt := hooks.NewConcat[error, string](hooks.ContextPrepare.Point)
		require.NoError(t, pt.Mount(w.r, "typed", hooks.Builtin, func(context.Context, error) (string, bool, error) {
			return "x", true, nil
		}))
		got, err := pt.Dispatch(context.Background(), w.r, nil)
		require.NoError(t, err)
		assert.Empty(t, got, "a handler that cannot take the payload contributes nothing")
		require.Len(t, w.warnings, 1, "warnings: %q", w.warnings)
		assert.Contains(t, w.warnings[0], `"typed" failed: payload is <nil>`)
	})
}

// Protects M157: with telemetry on, a typed handler runs in its own span:
// a span it starts from its context is a child of "hook.handler <name>",
// and each handler span carries its outcome.
func TestDispatchTypedHandlerRunsInItsSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tel, err := telemetry.New(tp, metricnoop.NewMeterProvider(), false)
	require.NoError(t, err)
	r := hooks.New(hooks.Config{Scope: hooks.ScopeRun, Telemetry: tel})
	pt := hooks.NewConcat[prepare, string](hooks.ContextPrepare.Point)
	require.NoError(t, pt.Mount(r, "notes", hooks.Builtin, func(ctx context.Context, _ prepare) (string, bool, error) {
		_, span := tp.Tracer("test").Start(ctx, "inner")
		span.End()
		return "n", true, nil
	}))
	require.NoError(t, pt.Mount(r, "crashing", hooks.Builtin, func(context.Context, prepare) (string, bool, error) { panic("boom") }))
	require.NoError(t, pt.Mount(r, "quiet", hooks.Builtin, func(context.Context, prepare) (string, bool, error) { return "", false, nil }))

	got, err := pt.Dispatch(context.Background(), r, prepare{Session: "s1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"n"}, got)

	byName := map[string]sdktrace.ReadOnlySpan{}
	outcomes := map[string]string{}
	for _, s := range exp.GetSpans().Snapshots() {
		byName[s.Name()] = s
		for _, kv := range s.Attributes() {
			if kv.Key == telemetry.HookOutcome {
				outcomes[s.Name()] = kv.Value.AsString()
			}
		}
	}
	inner, handler := byName["inner"], byName["hook.handler notes"]
	require.NotNil(t, inner, "spans: %v", byName)
	require.NotNil(t, handler, "spans: %v", byName)
	assert.Equal(t, handler.SpanContext().SpanID(), inner.Parent().SpanID(), "the handler's own span is its context's span")
	assert.Equal(t, map[string]string{
		"hook.handler notes":    telemetry.OutcomeHandled,
		"hook.handler crashing": telemetry.OutcomePanicked,
		"hook.handler quiet":    telemetry.OutcomePassed,
	}, outcomes)
}
