package hooks_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// act is what a handler of boundCase does when called.
type act int

const (
	actContribute act = iota // contributes (concat) or decides (firstWin)
	actPass                  // has nothing to add
	actFail                  // returns an error
	actPanic                 // panics
	actCancel                // cancels the dispatch's context, then passes
	acts
)

// boundHandler is one handler of a boundCase, mounted in slice order.
type boundHandler struct {
	name   string
	origin hooks.Origin
	act    act
}

// boundOutcome is what a dispatch did: its result, the handlers called in
// order with the payload each got, and the warnings.
type boundOutcome struct {
	values   []string
	won      string
	handled  bool
	canceled bool
	calls    []string
	payloads []prepare
	warnings []string
}

// model is what the hooks contract (C1) says a dispatch of hs does:
// builtins in mount order, then plugins; a failure or panic costs its own
// handler only, with a warning; a concat point joins the contributions, a
// firstWin point stops at the first decision; a cancelled context stops
// the dispatch before the next handler.
func model(hs []boundHandler, firstWin bool, in prepare) boundOutcome {
	var o boundOutcome
	var order []boundHandler
	for _, band := range []hooks.Origin{hooks.Builtin, hooks.Plugin} {
		for _, h := range hs {
			if h.origin == band {
				order = append(order, h)
			}
		}
	}
	for _, h := range order {
		if o.canceled {
			return o
		}
		o.calls = append(o.calls, h.name)
		o.payloads = append(o.payloads, in)
		switch h.act {
		case actContribute:
			if firstWin {
				o.won, o.handled = h.name, true
				return o
			}
			o.values = append(o.values, h.name)
		case actFail:
			o.warnings = append(o.warnings, fmt.Sprintf("%s handler %q failed: refused by %s", h.origin, h.name, h.name))
		case actPanic:
			o.warnings = append(o.warnings, fmt.Sprintf("%s handler %q failed: panic: crash in %s", h.origin, h.name, h.name))
		case actCancel:
			// Cancelled after its own call: the next handler is not called.
			o.canceled = true
		}
	}
	// A cancel by the last handler is seen by nobody: nothing is left to run.
	o.canceled = o.canceled && len(o.calls) < len(order)
	return o
}

// dispatchBound mounts hs with Bind on a fresh registry (traced or not) and
// dispatches once.
func dispatchBound(t *testing.T, hs []boundHandler, firstWin, traced bool, in prepare) boundOutcome {
	t.Helper()
	var o boundOutcome
	cfg := hooks.Config{Scope: hooks.ScopeRun, OnWarning: func(w contract.Warning) { o.warnings = append(o.warnings, w.Message) }}
	if traced {
		tel, err := telemetry.New(sdktrace.NewTracerProvider(), metricnoop.NewMeterProvider(), false)
		require.NoError(t, err)
		cfg.Telemetry = tel
	}
	r := hooks.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := func(h boundHandler, in prepare) (string, bool, error) {
		o.calls = append(o.calls, h.name)
		o.payloads = append(o.payloads, in)
		switch h.act {
		case actContribute:
			return h.name, true, nil
		case actFail:
			return "ignored", true, fmt.Errorf("refused by %s", h.name)
		case actPanic:
			panic("crash in " + h.name)
		case actCancel:
			cancel()
		}
		return "", false, nil
	}
	cp := hooks.NewConcat[prepare, string](hooks.ContextPrepare.Point)
	fw := hooks.NewFirstWin[prepare, string](hooks.ToolBefore.Point)
	for _, h := range hs {
		f := func(_ context.Context, in prepare) (string, bool, error) { return run(h, in) }
		if firstWin {
			require.NoError(t, fw.Mount(r, h.name, h.origin, f))
		} else {
			require.NoError(t, cp.Mount(r, h.name, h.origin, f))
		}
	}
	var err error
	if firstWin {
		o.won, o.handled, err = fw.Dispatch(ctx, r, in)
	} else {
		o.values, err = cp.Dispatch(ctx, r, in)
		if len(o.values) == 0 {
			o.values = nil
		}
	}
	if err != nil {
		require.ErrorIs(t, err, context.Canceled)
		o.canceled = true
	}
	return o
}

// Protects the one dispatch loop on the kernel's own path, handlers all
// bound for the point's types (M280–M286): traced or not, over random
// handler sets it gives what the contract says: dispatch order,
// contributions and decisions, warnings for failures and panics that cost
// their handler only (the loop resumes after a panic with what came before
// it), the payload to each, and cancellation before the next handler.
func TestDispatchBoundHandlersFollowTheContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2026))
	in := prepare{Session: "s1", Step: 4, Notes: []string{"a note"}}
	for trial := range 400 {
		hs := make([]boundHandler, rng.IntN(13))
		for i := range hs {
			hs[i] = boundHandler{name: fmt.Sprintf("h%d", i), origin: hooks.Origin(rng.IntN(2)), act: act(rng.IntN(int(acts)))}
		}
		for _, firstWin := range []bool{false, true} {
			want := model(hs, firstWin, in)
			for _, traced := range []bool{false, true} {
				got := dispatchBound(t, hs, firstWin, traced, in)
				if !assert.Equal(t, want, got, "trial %d, firstWin=%v, traced=%v, handlers %+v", trial, firstWin, traced, hs) {
					return
				}
			}
		}
	}
}

// A Mount after a dispatch is part of the next one, and a bare Handler
// mounted among bound ones still runs (and is vetted).
func TestDispatchBoundHandlersFollowLaterMounts(t *testing.T) {
	w := newTypedWorld()
	pt := hooks.NewConcat[prepare, string](hooks.ContextPrepare.Point)
	bound := func(name string) {
		t.Helper()
		require.NoError(t, pt.Mount(w.r, name, hooks.Builtin, func(context.Context, prepare) (string, bool, error) {
			w.calls = append(w.calls, name)
			return name, true, nil
		}))
	}
	ctx := context.Background()
	bound("a")
	got, err := pt.Dispatch(ctx, w.r, prepare{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, got)

	bound("b")
	bound("c")
	got, err = pt.Dispatch(ctx, w.r, prepare{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, got, "after two more mounts")

	w.bare(t, pt.Name, "bare", hooks.Builtin, hooks.Handled("from bare"))
	w.bare(t, pt.Name, "foreign", hooks.Builtin, hooks.Handled(7))
	got, err = pt.Dispatch(ctx, w.r, prepare{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "from bare"}, got, "after bare mounts")
	require.Len(t, w.warnings, 1)
	assert.Contains(t, w.warnings[0], `"foreign" failed: handler returned int, want string`)

	// The same point dispatched for other types takes its handlers through
	// Handler, and refuses those bound for string.
	other := hooks.NewConcat[prepare, int](hooks.ContextPrepare.Point)
	w.warnings = nil
	ints, err := other.Dispatch(ctx, w.r, prepare{})
	require.NoError(t, err)
	assert.Equal(t, []int{7}, ints)
	assert.Len(t, w.warnings, 4, "a, b, c and bare return a string: %q", w.warnings)
	assert.NotContains(t, fmt.Sprint(w.warnings), "panic", "no handler was called as the wrong type")
}
