package hooks

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/helios-agents/helios/kernel/telemetry"
)

// Protects M167: the shortcut is taken exactly when it may be. A typed
// dispatch runs runBound over the handlers Bind made when every mount of
// the point was bound for its In and Out and the registry is untraced; a
// bare Handler, handlers bound for other types or telemetry send it
// through dispatchPoint. The two agree on outcomes (the contract tests run
// both); this is the test that the fast one is the one the kernel gets.
func TestBoundShortcutOnlyForHandlersAllBoundAndUntraced(t *testing.T) {
	cp := NewConcat[int, string](ContextPrepare)
	h := func(context.Context, int) (string, bool, error) { return "x", true, nil }

	r := New(Config{Scope: ScopeRun})
	p := r.std[standardIndex(ContextPrepare)-1]
	require.NotNil(t, p)
	require.Same(t, r.lookup(ContextPrepare.Name), p, "a typed dispatch finds the point without its name")

	_, fs := bound[int, string](r, p)
	assert.Empty(t, fs, "no mounts")

	require.NoError(t, cp.Mount(r, "a", Builtin, h))
	require.NoError(t, cp.Mount(r, "b", Plugin, h))
	require.NoError(t, cp.Mount(r, "c", Builtin, h))
	o, fs := bound[int, string](r, p)
	require.Len(t, fs, 3, "three bound handlers")
	assert.Equal(t, []string{"a", "c", "b"}, names(o.ms), "the order the handlers run in is the dispatch order")

	_, other := bound[int, int](r, p)
	assert.Nil(t, other, "a dispatch of other types")

	require.NoError(t, r.Mount(Mount{Point: ContextPrepare.Name, Name: "bare", Handler: func(context.Context, any) (Result, error) { return Pass, nil }}))
	_, fs = bound[int, string](r, p)
	assert.Nil(t, fs, "with a bare Handler among them")

	tel, err := telemetry.New(sdktrace.NewTracerProvider(), metricnoop.NewMeterProvider(), false)
	require.NoError(t, err)
	traced := New(Config{Scope: ScopeRun, Telemetry: tel})
	require.NoError(t, cp.Mount(traced, "a", Builtin, h))
	_, fs = bound[int, string](traced, traced.std[standardIndex(ContextPrepare)-1])
	assert.Nil(t, fs, "traced")

	session := New(Config{Scope: ScopeSession})
	_, err = cp.Dispatch(context.Background(), session, 1)
	assert.ErrorIs(t, err, ErrUnknownPoint, "a run point in a session registry")
}

func names(ms []Mount) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}
