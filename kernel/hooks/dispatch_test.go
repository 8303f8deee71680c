package hooks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
)

// handled returns a handler that contributes (or decides) v.
func handled(v string) hooks.Handler {
	return func(context.Context, any) (hooks.Result, error) { return hooks.Handled(v), nil }
}

func panics(msg string) hooks.Handler {
	return func(context.Context, any) (hooks.Result, error) { panic(msg) }
}

func pass(context.Context, any) (hooks.Result, error) { return hooks.Pass, nil }

func registry(t *testing.T, scope hooks.Scope, point string, hs ...hooks.Handler) (*hooks.Registry, *[]contract.Warning) {
	t.Helper()
	var warnings []contract.Warning
	r := hooks.New(hooks.Config{Scope: scope, OnWarning: func(w contract.Warning) { warnings = append(warnings, w) }})
	for i, h := range hs {
		require.NoError(t, r.Mount(hooks.Mount{Point: point, Name: string(rune('a' + i)), Origin: hooks.Builtin, Handler: h}))
	}
	return r, &warnings
}

// A panic costs its own handler only: what came before it is kept, what
// comes after still runs, in order, and each panic is one warning.
func TestDispatchConcatKeepsContributionsAroundPanics(t *testing.T) {
	r, warnings := registry(t, hooks.ScopeRun, hooks.ContextPrepare.Name,
		handled("1"), panics("first"), handled("2"), panics("second"), handled("3"))
	out, err := r.DispatchConcat(context.Background(), hooks.ContextPrepare.Name, "in")
	require.NoError(t, err)
	assert.Equal(t, []any{"1", "2", "3"}, out)
	require.Len(t, *warnings, 2)
	assert.Contains(t, (*warnings)[0].Message, `"b" failed: panic: first`)
	assert.Contains(t, (*warnings)[1].Message, `"d" failed: panic: second`)
}

func TestDispatchFirstWinDecidesAfterPanic(t *testing.T) {
	r, warnings := registry(t, hooks.ScopeRun, hooks.ToolBefore.Name, pass, panics("boom"), handled("decider"), handled("never"))
	res, err := r.DispatchFirstWin(context.Background(), hooks.ToolBefore.Name, "in")
	require.NoError(t, err)
	assert.Equal(t, hooks.Handled("decider"), res)
	assert.Len(t, *warnings, 1)
}

// The hot points dispatch on every tool call and every step: a firstWin
// dispatch allocates nothing, and a concat dispatch one slice for its result.
// Typed the same (M156): handlers from Bind are called as they are, so a
// struct payload and string or struct values are never boxed.
func TestDispatchAllocations(t *testing.T) {
	ctx := context.Background()
	fw, _ := registry(t, hooks.ScopeRun, hooks.ToolBefore.Name, pass, pass, handled("x"))
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		_, _ = fw.DispatchFirstWin(ctx, hooks.ToolBefore.Name, "in")
	}), "firstWin dispatch allocations")

	cc, _ := registry(t, hooks.ScopeRun, hooks.ContextPrepare.Name, handled("a"), handled("b"), pass)
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
		_, _ = cc.DispatchConcat(ctx, hooks.ContextPrepare.Name, "in")
	}), "concat dispatch allocations")

	in := prepare{Session: "s1", Step: 2, Notes: []string{"n"}}
	tr := hooks.New(hooks.Config{Scope: hooks.ScopeRun})
	tc := hooks.NewConcat[prepare, string](hooks.ContextPrepare.Point)
	for _, name := range []string{"a", "b"} {
		require.NoError(t, tc.Mount(tr, name, hooks.Builtin, func(_ context.Context, in prepare) (string, bool, error) {
			return in.Session, true, nil
		}))
	}
	require.NoError(t, tc.Mount(tr, "pass", hooks.Builtin, func(context.Context, prepare) (string, bool, error) { return "", false, nil }))
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
		_, _ = tc.Dispatch(ctx, tr, in)
	}), "typed concat dispatch allocations")

	tf := hooks.NewFirstWin[prepare, verdict](hooks.ToolBefore.Point)
	require.NoError(t, tf.Mount(tr, "pass", hooks.Builtin, func(context.Context, prepare) (verdict, bool, error) { return verdict{}, false, nil }))
	require.NoError(t, tf.Mount(tr, "deny", hooks.Builtin, func(_ context.Context, in prepare) (verdict, bool, error) {
		return verdict{Deny: true, Reason: in.Session}, true, nil
	}))
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		_, _, _ = tf.Dispatch(ctx, tr, in)
	}), "typed firstWin dispatch allocations")
}
