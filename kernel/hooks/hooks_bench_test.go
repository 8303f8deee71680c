package hooks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/stretchr/testify/require"
)

// BenchmarkDispatch measures the registry's cost per dispatch. The "direct"
// sub-benchmark calls the same ten handler funcs in a plain loop, so the
// registry's overhead (point lookup, recover, context and band checks,
// result slice) reads side by side with the cost of the handlers
// themselves. Each sub-benchmark reports its ratio to "direct" as the metric
// x-direct; concat/10builtins/interleaved alternates the two in batches,
// which keeps its ratio steady on a loaded machine.
//
// The typed/ sub-benchmarks take the path the kernel takes: handlers bound
// by hooks.ContextPrepare, dispatched by hooks.ContextPrepare.Dispatch
// with a kernel.PrepareIn, against ten direct calls of the same typed
// handlers into a presized []string (direct/10typed). Typed or not, every
// dispatch runs in the registry's one loop; the typed handlers are called
// as they are, the untyped ones (like a plugin's) through their Handler.
func BenchmarkDispatch(b *testing.B) {
	ctx := context.Background()
	const payload = "payload"

	contribute := make([]hooks.Handler, 10)
	pass := make([]hooks.Handler, 10)
	for i := range contribute {
		// Built once so that the handlers themselves allocate nothing.
		res := hooks.Handled(fmt.Sprintf("builtin-%d", i))
		contribute[i] = func(context.Context, any) (hooks.Result, error) { return res, nil }
		pass[i] = func(context.Context, any) (hooks.Result, error) { return hooks.Pass, nil }
	}
	pluginRes := hooks.Handled("plugin")
	plugin := func(context.Context, any) (hooks.Result, error) { return pluginRes, nil }

	newRegistry := func(b *testing.B, point string, builtins []hooks.Handler, plugins int) *hooks.Registry {
		b.Helper()
		r := hooks.New(hooks.Config{Scope: hooks.ScopeRun})
		for i, h := range builtins {
			require.NoError(b, r.Mount(hooks.Mount{Point: point, Name: fmt.Sprint("b", i), Origin: hooks.Builtin, Handler: h}))
		}
		for i := range plugins {
			require.NoError(b, r.Mount(hooks.Mount{Point: point, Name: fmt.Sprint("p", i), Origin: hooks.Plugin, Handler: plugin}))
		}
		return r
	}
	// The direct loop runs first; every other sub-benchmark reports its
	// ns/op as a multiple of it (x-direct), so one run gives the ratio.
	var directNs float64
	perOp := func(b *testing.B) float64 { return float64(b.Elapsed().Nanoseconds()) / float64(b.N) }
	ratio := func(b *testing.B) {
		if directNs > 0 {
			b.ReportMetric(perOp(b)/directNs, "x-direct")
		}
	}
	concat := func(b *testing.B, r *hooks.Registry, want int) {
		b.ReportAllocs()
		for b.Loop() {
			// Plain checks in the timed loop: an assertion library's
			// variadic arguments would allocate on every iteration.
			out, err := r.DispatchConcat(ctx, hooks.ContextPrepare.Name, payload)
			if err != nil || len(out) != want {
				b.Fatalf("DispatchConcat = %d values, %v; want %d", len(out), err, want)
			}
		}
		ratio(b)
	}
	firstWin := func(b *testing.B, r *hooks.Registry, wantHandled bool) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := r.DispatchFirstWin(ctx, hooks.ToolBefore.Name, payload)
			if err != nil || res.Handled != wantHandled {
				b.Fatalf("DispatchFirstWin = %+v, %v; want handled=%v", res, err, wantHandled)
			}
		}
		ratio(b)
	}

	b.Run("direct/10funcs", func(b *testing.B) {
		// What concat/10builtins does, minus the registry.
		b.ReportAllocs()
		for b.Loop() {
			out := make([]any, 0, len(contribute))
			for _, h := range contribute {
				res, err := h(ctx, payload)
				if err == nil && res.Handled {
					out = append(out, res.Value)
				}
			}
			if len(out) != 10 {
				b.Fatalf("direct calls = %d values, want 10", len(out))
			}
		}
		directNs = perOp(b)
	})
	b.Run("concat/10builtins/interleaved", func(b *testing.B) {
		// The ratio to the direct loop, timed in alternating batches so that
		// load from other processes falls on both sides alike.
		r := newRegistry(b, hooks.ContextPrepare.Name, contribute, 0)
		const batch = 256
		var reg, dir time.Duration
		b.ReportAllocs()
		for b.Loop() {
			t0 := time.Now()
			for range batch {
				out, err := r.DispatchConcat(ctx, hooks.ContextPrepare.Name, payload)
				if err != nil || len(out) != 10 {
					b.Fatalf("DispatchConcat = %d values, %v; want 10", len(out), err)
				}
			}
			t1 := time.Now()
			for range batch {
				out := make([]any, 0, len(contribute))
				for _, h := range contribute {
					res, err := h(ctx, payload)
					if err == nil && res.Handled {
						out = append(out, res.Value)
					}
				}
				if len(out) != 10 {
					b.Fatalf("direct calls = %d values, want 10", len(out))
				}
			}
			reg += t1.Sub(t0)
			dir += time.Since(t1)
		}
		b.ReportMetric(float64(reg)/float64(dir), "x-direct")
	})
	b.Run("concat/10builtins", func(b *testing.B) {
		concat(b, newRegistry(b, hooks.ContextPrepare.Name, contribute, 0), 10)
	})
	b.Run("concat/10builtins/telemetry-on", func(b *testing.B) {
		// A span per dispatch and per handler, to a batcher that discards
		// them: the price of tracing every handler.
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		defer tp.Shutdown(context.Background())
		tel, err := telemetry.New(tp, metricnoop.NewMeterProvider(), false)
		if err != nil {
			b.Fatal(err)
		}
		r := hooks.New(hooks.Config{Scope: hooks.ScopeRun, Telemetry: tel})
		for i, h := range contribute {
			if err := r.Mount(hooks.Mount{Point: hooks.ContextPrepare.Name, Name: fmt.Sprint("b", i), Origin: hooks.Builtin, Handler: h}); err != nil {
				b.Fatal(err)
			}
		}
		concat(b, r, 10)
	})
	b.Run("concat/10builtins+2plugins", func(b *testing.B) {
		concat(b, newRegistry(b, hooks.ContextPrepare.Name, contribute, 2), 12)
	})
	b.Run("firstWin/1stBuiltinHandles", func(b *testing.B) {
		hs := append([]hooks.Handler{contribute[0]}, pass[1:]...)
		firstWin(b, newRegistry(b, hooks.ToolBefore.Name, hs, 0), true)
	})
	b.Run("firstWin/all10Pass", func(b *testing.B) {
		firstWin(b, newRegistry(b, hooks.ToolBefore.Name, pass, 0), false)
	})
	b.Run("concat/10builtins/cancellable-ctx", func(b *testing.B) {
		// What a real caller passes: a context that can be cancelled, so
		// each handler is preceded by a non-blocking receive on Done (the
		// direct loop checks nothing).
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		r := newRegistry(b, hooks.ContextPrepare.Name, contribute, 0)
		b.ReportAllocs()
		for b.Loop() {
			out, err := r.DispatchConcat(ctx, hooks.ContextPrepare.Name, payload)
			if err != nil || len(out) != 10 {
				b.Fatalf("DispatchConcat = %d values, %v; want 10", len(out), err)
			}
		}
		ratio(b)
	})

	// The kernel's own path: typed handlers and a typed dispatch.
	in := kernel.PrepareIn{SessionID: "session", Step: 1}
	typed := make([]func(context.Context, kernel.PrepareIn) (string, bool, error), 10)
	for i := range typed {
		text := fmt.Sprintf("builtin-%d", i)
		typed[i] = func(context.Context, kernel.PrepareIn) (string, bool, error) { return text, true, nil }
	}
	typedRegistry := func(b *testing.B) *hooks.Registry {
		b.Helper()
		r := hooks.New(hooks.Config{Scope: hooks.ScopeRun})
		for i, h := range typed {
			require.NoError(b, hooks.ContextPrepare.Mount(r, fmt.Sprint("b", i), hooks.Builtin, h))
		}
		return r
	}
	var directTypedNs float64
	b.Run("direct/10typed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out := make([]string, 0, len(typed))
			for _, h := range typed {
				text, ok, err := h(ctx, in)
				if err == nil && ok {
					out = append(out, text)
				}
			}
			if len(out) != 10 {
				b.Fatalf("direct calls = %d values, want 10", len(out))
			}
		}
		directTypedNs = perOp(b)
	})
	b.Run("typed/concat/10builtins", func(b *testing.B) {
		r := typedRegistry(b)
		b.ReportAllocs()
		for b.Loop() {
			out, err := hooks.ContextPrepare.Dispatch(ctx, r, in)
			if err != nil || len(out) != 10 {
				b.Fatalf("ContextPrepare.Dispatch = %d values, %v; want 10", len(out), err)
			}
		}
		if directTypedNs > 0 {
			b.ReportMetric(perOp(b)/directTypedNs, "x-direct")
		}
	})
	b.Run("typed/firstWin/1stBuiltinHandles", func(b *testing.B) {
		r := hooks.New(hooks.Config{Scope: hooks.ScopeRun})
		deny := kernel.ToolDecision{Deny: true, Reason: "policy"}
		require.NoError(b, hooks.ToolBefore.Mount(r, "deny", hooks.Builtin, func(context.Context, kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
			return deny, true, nil
		}))
		for i := range 9 {
			require.NoError(b, hooks.ToolBefore.Mount(r, fmt.Sprint("pass", i), hooks.Builtin, func(context.Context, kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
				return kernel.ToolDecision{}, false, nil
			}))
		}
		in := kernel.ToolBeforeIn{SessionID: "session"}
		b.ReportAllocs()
		for b.Loop() {
			got, handled, err := hooks.ToolBefore.Dispatch(ctx, r, in)
			if err != nil || !handled || !got.Deny {
				b.Fatalf("ToolBefore.Dispatch = %+v, %v, %v; want the denial", got, handled, err)
			}
		}
	})
	b.Run("typed/concat/10builtins/interleaved", func(b *testing.B) {
		r := typedRegistry(b)
		const batch = 256
		var reg, dir time.Duration
		b.ReportAllocs()
		for b.Loop() {
			t0 := time.Now()
			for range batch {
				out, err := hooks.ContextPrepare.Dispatch(ctx, r, in)
				if err != nil || len(out) != 10 {
					b.Fatalf("ContextPrepare.Dispatch = %d values, %v; want 10", len(out), err)
				}
			}
			t1 := time.Now()
			for range batch {
				out := make([]string, 0, len(typed))
				for _, h := range typed {
					text, ok, err := h(ctx, in)
					if err == nil && ok {
						out = append(out, text)
					}
				}
				if len(out) != 10 {
					b.Fatalf("direct calls = %d values, want 10", len(out))
				}
			}
			reg += t1.Sub(t0)
			dir += time.Since(t1)
		}
		b.ReportMetric(float64(reg)/float64(dir), "x-direct")
	})
}
