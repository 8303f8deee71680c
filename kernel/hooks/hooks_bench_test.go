package hooks_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/stretchr/testify/require"
)

// BenchmarkDispatch measures the registry's cost per dispatch. The "direct"
// sub-benchmark calls the same ten handler funcs in a plain loop, so the
// registry's overhead (lock, copy of the mount list, recover, result slice)
// reads side by side with the cost of the handlers themselves.
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
	concat := func(b *testing.B, r *hooks.Registry, want int) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := r.DispatchConcat(ctx, hooks.ContextPrepare.Name, payload)
			require.NoError(b, err, "DispatchConcat = %d values, %v; want %d", len(out), err, want)
			require.Len(b, out, want, "DispatchConcat = %d values, %v; want %d", len(out), err, want)
		}
	}
	firstWin := func(b *testing.B, r *hooks.Registry, wantHandled bool) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := r.DispatchFirstWin(ctx, hooks.ToolBefore.Name, payload)
			require.NoError(b, err, "DispatchFirstWin = %+v", res)
			require.Equal(b, wantHandled, res.Handled, "DispatchFirstWin = %+v", res)
		}
	}

	b.Run("concat/10builtins", func(b *testing.B) {
		concat(b, newRegistry(b, hooks.ContextPrepare.Name, contribute, 0), 10)
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
	b.Run("direct/10funcs", func(b *testing.B) {
		// What concat/10builtins does, minus the registry.
		b.ReportAllocs()
		for b.Loop() {
			var out []any
			for _, h := range contribute {
				res, err := h(ctx, payload)
				if err == nil && res.Handled {
					out = append(out, res.Value)
				}
			}
			require.Len(b, out, 10, "direct calls = %d values, want 10", len(out))
		}
	})
}
