package unit_test

// Black-box contract tests of the hook registry (DESIGN.md "C1 Hook registry").
//
// Order tests here follow three rules learned the hard way (seed 003):
//   - a builtin and a plugin always share the point under test, or "the plugin
//     is last" holds whatever the order (hooksRequireBothBands guards this);
//   - firstWin tests count the calls of the handler that must lose, and assert
//     that no warning was emitted, because "builtin decided" and "builtin failed
//     so the plugin decided" look alike from the result alone;
//   - fixtures are typed and built by helpers, never forced with casts.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: M16 (plugin mounts run first). Every builtin of a point runs before
// every plugin, whatever order the Mount calls came in — on every standard
// point, in both scopes, seen through dispatch and through Describe.
func TestHooksPluginBandAfterBuiltins(t *testing.T) {
	callOrders := []struct {
		name  string
		order []string // mount call order; "b*" are builtins, "p*" plugins
	}{
		{"plugins mounted first", []string{"p1", "p2", "b1", "b2"}},
		{"builtins mounted first", []string{"b1", "b2", "p1", "p2"}},
		{"interleaved, builtin first", []string{"b1", "p1", "b2", "p2"}},
		{"interleaved, plugin first", []string{"p1", "b1", "p2", "b2"}},
	}
	wantOrder := []string{"b1", "b2", "p1", "p2"}
	wantDescribe := []hooks.HandlerInfo{
		{Name: "b1", Origin: "builtin"}, {Name: "b2", Origin: "builtin"},
		{Name: "p1", Origin: "plugin"}, {Name: "p2", Origin: "plugin"},
	}
	for _, pt := range hooks.StandardPoints() {
		for _, co := range callOrders {
			t.Run(pt.Name+"/"+co.name, func(t *testing.T) {
				h := newHooksHarness(pt.Scope)
				for _, name := range co.order {
					// Concat handlers contribute their name; firstWin ones
					// pass, so the whole dispatch order is observable.
					res := hooks.Pass
					if pt.Kind == hooks.Concat {
						res = hooks.Handled(name)
					}
					h.mount(t, pt.Name, hooksSpec{name: name, origin: hooksOriginOf(name), res: res})
				}
				hooksRequireBothBands(t, h.reg, pt.Name)

				assert.Empty(t, cmp.Diff(wantDescribe, hooksDescribeHandlers(t, h.reg, pt.Name)), "Describe(%s) handlers (-want +got)", pt.Name)
				switch pt.Kind {
				case hooks.Concat:
					got, err := h.reg.DispatchConcat(context.Background(), pt.Name, "payload")
					require.NoError(t, err, "DispatchConcat(%s)", pt.Name)
					assert.Empty(t, cmp.Diff(hooksAnys(wantOrder...), got), "DispatchConcat(%s) values (-want +got)", pt.Name)
				case hooks.FirstWin:
					got, err := h.reg.DispatchFirstWin(context.Background(), pt.Name, "payload")
					require.NoError(t, err, "DispatchFirstWin(%s)", pt.Name)
					assert.Empty(t, cmp.Diff(hooks.Pass, got), "DispatchFirstWin(%s) with every handler passing (-want +got)", pt.Name)
				}
				assert.Empty(t, cmp.Diff(wantOrder, h.calls()), "call order on %s (-want +got)", pt.Name)
				h.requireNoWarnings(t)
			})
		}
	}

	// On a firstWin point a deciding builtin must beat plugins mounted before it.
	for _, pt := range hooksStandardPointsOfKind(hooks.FirstWin) {
		t.Run(pt.Name+"/builtin decides over earlier-mounted plugins", func(t *testing.T) {
			h := newHooksHarness(pt.Scope)
			h.mount(t, pt.Name,
				hooksSpec{name: "p1", origin: hooks.Plugin, res: hooks.Handled("p1")},
				hooksSpec{name: "p2", origin: hooks.Plugin, res: hooks.Handled("p2")},
				hooksSpec{name: "b1", origin: hooks.Builtin, res: hooks.Pass},
				hooksSpec{name: "b2", origin: hooks.Builtin, res: hooks.Handled("b2")},
			)
			hooksRequireBothBands(t, h.reg, pt.Name)
			got, err := h.reg.DispatchFirstWin(context.Background(), pt.Name, "payload")
			require.NoError(t, err, "DispatchFirstWin(%s)", pt.Name)
			assert.Empty(t, cmp.Diff(hooks.Handled("b2"), got), "DispatchFirstWin(%s) (-want +got)", pt.Name)
			assert.Empty(t, cmp.Diff([]string{"b1", "b2"}, h.calls()), "call order on %s; plugins must never be called (-want +got)", pt.Name)
			h.requireNoWarnings(t)
		})
	}
}

// Protects: M17 (a plugin inserted among the builtins). Mount calls come in as
// builtin, plugin, builtin; the plugin must still run after both builtins, and
// on a firstWin point it must not be called when the second builtin decides.
func TestHooksPluginNotInsertedAmongBuiltins(t *testing.T) {
	for _, pt := range hooks.StandardPoints() {
		t.Run(pt.Name, func(t *testing.T) {
			h := newHooksHarness(pt.Scope)
			switch pt.Kind {
			case hooks.Concat:
				h.mount(t, pt.Name,
					hooksSpec{name: "b1", origin: hooks.Builtin, res: hooks.Handled("b1")},
					hooksSpec{name: "p1", origin: hooks.Plugin, res: hooks.Handled("p1")},
					hooksSpec{name: "b2", origin: hooks.Builtin, res: hooks.Handled("b2")},
				)
				hooksRequireBothBands(t, h.reg, pt.Name)
				got, err := h.reg.DispatchConcat(context.Background(), pt.Name, "payload")
				require.NoError(t, err, "DispatchConcat(%s)", pt.Name)
				assert.Empty(t, cmp.Diff(hooksAnys("b1", "b2", "p1"), got), "DispatchConcat(%s) values (-want +got)", pt.Name)
				assert.Empty(t, cmp.Diff([]string{"b1", "b2", "p1"}, h.calls()), "call order on %s (-want +got)", pt.Name)
			case hooks.FirstWin:
				h.mount(t, pt.Name,
					hooksSpec{name: "b1", origin: hooks.Builtin, res: hooks.Pass},
					hooksSpec{name: "p1", origin: hooks.Plugin, res: hooks.Handled("p1")},
					hooksSpec{name: "b2", origin: hooks.Builtin, res: hooks.Handled("b2")},
				)
				hooksRequireBothBands(t, h.reg, pt.Name)
				got, err := h.reg.DispatchFirstWin(context.Background(), pt.Name, "payload")
				require.NoError(t, err, "DispatchFirstWin(%s)", pt.Name)
				assert.Empty(t, cmp.Diff(hooks.Handled("b2"), got), "DispatchFirstWin(%s) (-want +got)", pt.Name)
				n := hooksCount(h.calls(), "p1")
				assert.Zero(t, n, "plugin p1 on %s called %d times, want 0 (a builtin decided)", pt.Name, n)
				assert.Empty(t, cmp.Diff([]string{"b1", "b2"}, h.calls()), "call order on %s (-want +got)", pt.Name)
			}
			assert.Empty(t, cmp.Diff([]hooks.HandlerInfo{
				{Name: "b1", Origin: "builtin"}, {Name: "b2", Origin: "builtin"}, {Name: "p1", Origin: "plugin"},
			}, hooksDescribeHandlers(t, h.reg, pt.Name)), "Describe(%s) handlers (-want +got)", pt.Name)
			h.requireNoWarnings(t)
		})
	}
}

// hooksCompactIn and hooksCompactOut are the payload and decision of the
// session-level compaction point in TestHooksSessionCompactorBeatsPlugin.
type hooksCompactIn struct {
	Tokens, Budget int
}

type hooksCompactOut struct {
	By   string
	Kept int
}

// Protects: M18 (session-level plugin mounts before the compaction builtin).
// In a session registry the builtin compactor and a plugin share
// context:compact. When the compactor decides, the plugin is never called, the
// result is the compactor's, and no warning was emitted (so "the compactor
// crashed and the plugin won" cannot pass for success). When it has nothing to
// decide, the plugin gets its turn.
func TestHooksSessionCompactorBeatsPlugin(t *testing.T) {
	compact := hooks.NewFirstWin[hooksCompactIn, hooksCompactOut](hooks.ContextCompact.Point)
	tests := []struct {
		name          string
		pluginFirst   bool // mount call order
		in            hooksCompactIn
		want          hooksCompactOut
		wantCompactor int
		wantPlugin    int
	}{
		{"over budget, builtin mounted first", false, hooksCompactIn{Tokens: 900, Budget: 500}, hooksCompactOut{By: "compactor", Kept: 250}, 1, 0},
		{"over budget, plugin mounted first", true, hooksCompactIn{Tokens: 900, Budget: 500}, hooksCompactOut{By: "compactor", Kept: 250}, 1, 0},
		{"under budget, compactor passes to plugin", true, hooksCompactIn{Tokens: 100, Budget: 500}, hooksCompactOut{By: "plugin", Kept: 100}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHooksHarness(hooks.ScopeSession)
			var mu sync.Mutex
			compactorCalls, pluginCalls := 0, 0
			mountCompactor := func() {
				err := compact.Mount(h.reg, "compactor", hooks.Builtin, func(_ context.Context, in hooksCompactIn) (hooksCompactOut, bool, error) {
					mu.Lock()
					compactorCalls++
					mu.Unlock()
					if in.Tokens <= in.Budget {
						return hooksCompactOut{}, false, nil
					}
					return hooksCompactOut{By: "compactor", Kept: in.Budget / 2}, true, nil
				})
				require.NoError(t, err, "mount compactor")
			}
			mountPlugin := func() {
				err := compact.Mount(h.reg, "summarizer", hooks.Plugin, func(_ context.Context, in hooksCompactIn) (hooksCompactOut, bool, error) {
					mu.Lock()
					pluginCalls++
					mu.Unlock()
					return hooksCompactOut{By: "plugin", Kept: in.Tokens}, true, nil
				})
				require.NoError(t, err, "mount plugin")
			}
			if tt.pluginFirst {
				mountPlugin()
				mountCompactor()
			} else {
				mountCompactor()
				mountPlugin()
			}
			hooksRequireBothBands(t, h.reg, hooks.ContextCompact.Name)

			got, handled, err := compact.Dispatch(context.Background(), h.reg, tt.in)
			require.NoError(t, err, "Dispatch(context:compact) = %+v, handled, err; want handled, no", got)
			require.True(t, handled, "Dispatch(context:compact) = %+v, handled, err; want handled, no", got)
			assert.Empty(t, cmp.Diff(tt.want, got), "context:compact decision (-want +got)")
			mu.Lock()
			gotCompactor, gotPlugin := compactorCalls, pluginCalls
			mu.Unlock()
			assert.Equal(t, tt.wantCompactor, gotCompactor, "calls: compactor=%d plugin=%d, want compactor=%d plugin=%d", gotCompactor, gotPlugin, tt.wantCompactor, tt.wantPlugin)
			assert.Equal(t, tt.wantPlugin, gotPlugin, "calls: compactor=%d plugin=%d, want compactor=%d plugin=%d", gotCompactor, gotPlugin, tt.wantCompactor, tt.wantPlugin)
			assert.Empty(t, cmp.Diff([]hooks.HandlerInfo{
				{Name: "compactor", Origin: "builtin"}, {Name: "summarizer", Origin: "plugin"},
			}, hooksDescribeHandlers(t, h.reg, hooks.ContextCompact.Name)), "Describe(context:compact) handlers (-want +got)")
			h.requireNoWarnings(t)
		})
	}
}

// Protects: M19 (plugin order reversed inside its band), and the builtin band's
// registration order. Three plugins and two builtins, mounted interleaved, on
// one point of each kind in each scope.
func TestHooksPluginBandKeepsRegistrationOrder(t *testing.T) {
	callOrder := []string{"p1", "b1", "p2", "b2", "p3"}
	for _, pt := range hooks.StandardPoints() {
		t.Run(pt.Name, func(t *testing.T) {
			h := newHooksHarness(pt.Scope)
			for _, name := range callOrder {
				res := hooks.Handled(name)
				if pt.Kind == hooks.FirstWin && (name == "b1" || name == "b2" || name == "p1") {
					res = hooks.Pass // so that p2, the middle plugin, is the first to decide
				}
				h.mount(t, pt.Name, hooksSpec{name: name, origin: hooksOriginOf(name), res: res})
			}
			hooksRequireBothBands(t, h.reg, pt.Name)
			switch pt.Kind {
			case hooks.Concat:
				got, err := h.reg.DispatchConcat(context.Background(), pt.Name, "payload")
				require.NoError(t, err, "DispatchConcat(%s)", pt.Name)
				assert.Empty(t, cmp.Diff(hooksAnys("b1", "b2", "p1", "p2", "p3"), got), "DispatchConcat(%s) values (-want +got)", pt.Name)
				assert.Empty(t, cmp.Diff([]string{"b1", "b2", "p1", "p2", "p3"}, h.calls()), "call order on %s (-want +got)", pt.Name)
			case hooks.FirstWin:
				got, err := h.reg.DispatchFirstWin(context.Background(), pt.Name, "payload")
				require.NoError(t, err, "DispatchFirstWin(%s)", pt.Name)
				assert.Empty(t, cmp.Diff(hooks.Handled("p2"), got), "DispatchFirstWin(%s) (-want +got)", pt.Name)
				assert.Empty(t, cmp.Diff([]string{"b1", "b2", "p1", "p2"}, h.calls()), "call order on %s; p3 must not be called (-want +got)", pt.Name)
			}
			assert.Empty(t, cmp.Diff([]hooks.HandlerInfo{
				{Name: "b1", Origin: "builtin"}, {Name: "b2", Origin: "builtin"},
				{Name: "p1", Origin: "plugin"}, {Name: "p2", Origin: "plugin"}, {Name: "p3", Origin: "plugin"},
			}, hooksDescribeHandlers(t, h.reg, pt.Name)), "Describe(%s) handlers (-want +got)", pt.Name)
			h.requireNoWarnings(t)
		})
	}
}

// Protects: M20 (handler error swallowed without a warning). A failing handler
// of either origin on every standard point: the warning sink AND the slog
// logger each get exactly one warning naming point, handler and origin; the
// failing handler's result is dropped; dispatch goes on to the next handler.
func TestHooksHandlerErrorWarnsAndContinues(t *testing.T) {
	for _, pt := range hooks.StandardPoints() {
		for _, origin := range []hooks.Origin{hooks.Builtin, hooks.Plugin} {
			t.Run(pt.Name+"/"+origin.String(), func(t *testing.T) {
				h := newHooksHarness(pt.Scope)
				errBroken := errors.New("disk on fire")
				// "broken" claims a result and fails: the failure must win over
				// the claim, or a half-done handler could decide a firstWin point.
				h.mount(t, pt.Name,
					hooksSpec{name: "broken", origin: origin, res: hooks.Handled("broken"), err: errBroken},
					hooksSpec{name: "next", origin: origin, res: hooks.Handled("next")},
				)
				hooksDispatchExpectNext(t, h, pt)
				assert.Empty(t, cmp.Diff([]string{"broken", "next"}, h.calls()), "call order on %s; dispatch must go on after a failure (-want +got)", pt.Name)
				hooksCheckOneWarning(t, h, pt.Name, "broken", origin, errBroken.Error())
			})
		}
	}
}

// Protects: "a handler panic is isolated like an error". Same shape as
// TestHooksHandlerErrorWarnsAndContinues, with a panic instead of an error.
func TestHooksHandlerPanicWarnsAndContinues(t *testing.T) {
	for _, pt := range hooks.StandardPoints() {
		for _, origin := range []hooks.Origin{hooks.Builtin, hooks.Plugin} {
			t.Run(pt.Name+"/"+origin.String(), func(t *testing.T) {
				h := newHooksHarness(pt.Scope)
				h.mount(t, pt.Name,
					hooksSpec{name: "broken", origin: origin, panics: "index out of range [7]"},
					hooksSpec{name: "next", origin: origin, res: hooks.Handled("next")},
				)
				hooksDispatchExpectNext(t, h, pt)
				assert.Empty(t, cmp.Diff([]string{"broken", "next"}, h.calls()), "call order on %s; dispatch must go on after a panic (-want +got)", pt.Name)
				hooksCheckOneWarning(t, h, pt.Name, "broken", origin, "index out of range [7]")
			})
		}
	}
}

// Protects: "builtin failed so the plugin won" is told apart from "builtin
// won" only by the warning. The plugin's result is right here, and the warning
// is what says a builtin failed.
func TestHooksFailedBuiltinLetsPluginDecideWithWarning(t *testing.T) {
	h := newHooksHarness(hooks.ScopeSession)
	h.mount(t, hooks.ContextCompact.Name,
		hooksSpec{name: "compactor", origin: hooks.Builtin, res: hooks.Handled("compactor"), err: errors.New("bad payload")},
		hooksSpec{name: "summarizer", origin: hooks.Plugin, res: hooks.Handled("summarizer")},
	)
	got, err := h.reg.DispatchFirstWin(context.Background(), hooks.ContextCompact.Name, "payload")
	require.NoError(t, err, "DispatchFirstWin")
	assert.Empty(t, cmp.Diff(hooks.Handled("summarizer"), got), "DispatchFirstWin (-want +got)")
	hooksCheckOneWarning(t, h, hooks.ContextCompact.Name, "compactor", hooks.Builtin, "bad payload")
}

// Protects: "concat really joins in order": builtins then plugins, each band in
// registration order across interleaved Mount calls; the payload reaches every
// handler; a handler that passes (or returns a value without Handled)
// contributes nothing and does not stop the others.
func TestHooksConcatJoinsInOrder(t *testing.T) {
	for _, pt := range hooksStandardPointsOfKind(hooks.Concat) {
		t.Run(pt.Name, func(t *testing.T) {
			h := newHooksHarness(pt.Scope)
			var mu sync.Mutex
			var payloads []any
			echo := func(name string, res hooks.Result) hooks.Mount {
				return hooks.Mount{Point: pt.Name, Name: name, Origin: hooksOriginOf(name), Handler: h.handler(name, func(_ context.Context, in any) (hooks.Result, error) {
					mu.Lock()
					payloads = append(payloads, in)
					mu.Unlock()
					return res, nil
				})}
			}
			mounts := []hooks.Mount{
				echo("p1", hooks.Handled("plugin one")),
				echo("b1", hooks.Handled("builtin one")),
				echo("p2", hooks.Pass),
				echo("b2", hooks.Result{Value: "not handled, so not added"}),
				echo("p3", hooks.Handled("plugin three")),
				echo("b3", hooks.Handled("builtin three")),
			}
			for _, m := range mounts {
				require.NoError(t, h.reg.Mount(m), "Mount(%s)", m.Name)
			}
			got, err := h.reg.DispatchConcat(context.Background(), pt.Name, "the payload")
			require.NoError(t, err, "DispatchConcat(%s)", pt.Name)
			want := hooksAnys("builtin one", "builtin three", "plugin one", "plugin three")
			assert.Empty(t, cmp.Diff(want, got), "DispatchConcat(%s) joined values (-want +got)", pt.Name)
			assert.Empty(t, cmp.Diff([]string{"b1", "b2", "b3", "p1", "p2", "p3"}, h.calls()), "call order on %s (-want +got)", pt.Name)
			mu.Lock()
			gotPayloads := payloads
			mu.Unlock()
			assert.Empty(t, cmp.Diff(hooksAnys("the payload", "the payload", "the payload", "the payload", "the payload", "the payload"), gotPayloads), "payload seen by each handler (-want +got)")
			h.requireNoWarnings(t)
		})
	}
}

// Protects: firstWin stops at the first Handled and passes over Pass. A zero
// value that is Handled is a decision; a value without Handled is a pass.
func TestHooksFirstWinStopsAtFirstHandled(t *testing.T) {
	tests := []struct {
		name      string
		mounts    []hooksSpec
		want      hooks.Result
		wantCalls []string
	}{
		{
			name: "first builtin decides",
			mounts: []hooksSpec{
				{name: "b1", res: hooks.Handled("b1")},
				{name: "b2", res: hooks.Handled("b2")},
				{name: "p1", origin: hooks.Plugin, res: hooks.Handled("p1")},
			},
			want:      hooks.Handled("b1"),
			wantCalls: []string{"b1"},
		},
		{
			name: "passes are skipped until a decision",
			mounts: []hooksSpec{
				{name: "b1", res: hooks.Pass},
				{name: "b2", res: hooks.Pass},
				{name: "p1", origin: hooks.Plugin, res: hooks.Handled("p1")},
				{name: "p2", origin: hooks.Plugin, res: hooks.Handled("p2")},
			},
			want:      hooks.Handled("p1"),
			wantCalls: []string{"b1", "b2", "p1"},
		},
		{
			name: "a Handled zero value is a decision",
			mounts: []hooksSpec{
				{name: "b1", res: hooks.Handled("")},
				{name: "p1", origin: hooks.Plugin, res: hooks.Handled("p1")},
			},
			want:      hooks.Handled(""),
			wantCalls: []string{"b1"},
		},
		{
			name: "a value without Handled is a pass",
			mounts: []hooksSpec{
				{name: "b1", res: hooks.Result{Value: "not a decision"}},
				{name: "p1", origin: hooks.Plugin, res: hooks.Handled("p1")},
			},
			want:      hooks.Handled("p1"),
			wantCalls: []string{"b1", "p1"},
		},
		{
			name: "every handler passes",
			mounts: []hooksSpec{
				{name: "b1", res: hooks.Pass},
				{name: "p1", origin: hooks.Plugin, res: hooks.Pass},
				{name: "p2", origin: hooks.Plugin, res: hooks.Pass},
			},
			want:      hooks.Pass,
			wantCalls: []string{"b1", "p1", "p2"},
		},
		{
			name:      "no handlers",
			want:      hooks.Pass,
			wantCalls: nil,
		},
	}
	for _, pt := range hooksStandardPointsOfKind(hooks.FirstWin) {
		for _, tt := range tests {
			t.Run(pt.Name+"/"+tt.name, func(t *testing.T) {
				h := newHooksHarness(pt.Scope)
				h.mount(t, pt.Name, tt.mounts...)
				got, err := h.reg.DispatchFirstWin(context.Background(), pt.Name, "payload")
				require.NoError(t, err, "DispatchFirstWin(%s)", pt.Name)
				assert.Empty(t, cmp.Diff(tt.want, got), "DispatchFirstWin(%s) (-want +got)", pt.Name)
				assert.Empty(t, cmp.Diff(tt.wantCalls, h.calls()), "calls on %s (-want +got)", pt.Name)
				h.requireNoWarnings(t)
			})
		}
	}
}

// Protects: Describe. The standard points come in lifecycle order (then custom
// points in declaration order) with kind and scope; handlers come in dispatch
// order with their origin; and that order is the order in which the same
// registry really calls them.
func TestHooksDescribeMatchesDispatchOrder(t *testing.T) {
	assert.Empty(t, cmp.Diff([]hooks.Point{
		{Name: "session:start", Kind: hooks.Concat, Scope: hooks.ScopeSession},
		{Name: "prompt:submit", Kind: hooks.Concat, Scope: hooks.ScopeRun},
		{Name: "context:prepare", Kind: hooks.Concat, Scope: hooks.ScopeRun},
		{Name: "compact:before", Kind: hooks.Concat, Scope: hooks.ScopeSession},
		{Name: "context:compact", Kind: hooks.FirstWin, Scope: hooks.ScopeSession},
		{Name: "tool:before", Kind: hooks.FirstWin, Scope: hooks.ScopeRun},
		{Name: "tool:after", Kind: hooks.Concat, Scope: hooks.ScopeRun},
		{Name: "turn:end", Kind: hooks.FirstWin, Scope: hooks.ScopeRun},
		{Name: "session:end", Kind: hooks.Concat, Scope: hooks.ScopeSession},
	}, hooks.StandardPoints()), "StandardPoints() in lifecycle order (-want +got)")

	custom := map[hooks.Scope]hooks.Point{
		hooks.ScopeRun:     {Name: "review:after", Kind: hooks.FirstWin, Scope: hooks.ScopeRun},
		hooks.ScopeSession: {Name: "session:archived", Kind: hooks.Concat, Scope: hooks.ScopeSession},
	}
	tests := []struct {
		scope hooks.Scope
		want  []hooks.PointInfo
	}{
		{hooks.ScopeRun, []hooks.PointInfo{
			{Name: "prompt:submit", Kind: "concat", Scope: "run"},
			{Name: "context:prepare", Kind: "concat", Scope: "run"},
			{Name: "tool:before", Kind: "firstWin", Scope: "run"},
			{Name: "tool:after", Kind: "concat", Scope: "run"},
			{Name: "turn:end", Kind: "firstWin", Scope: "run"},
			{Name: "review:after", Kind: "firstWin", Scope: "run"},
		}},
		{hooks.ScopeSession, []hooks.PointInfo{
			{Name: "session:start", Kind: "concat", Scope: "session"},
			{Name: "compact:before", Kind: "concat", Scope: "session"},
			{Name: "context:compact", Kind: "firstWin", Scope: "session"},
			{Name: "session:end", Kind: "concat", Scope: "session"},
			{Name: "session:archived", Kind: "concat", Scope: "session"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scope.String(), func(t *testing.T) {
			h := newHooksHarness(tt.scope)
			require.NoError(t, h.reg.Declare(custom[tt.scope]), "Declare(%v)", custom[tt.scope])
			// Each point gets a different interleaving, prefixed by its
			// position so that no two points share handler names.
			orders := [][]string{
				{"p1", "b1", "p2", "b2"},
				{"b1", "p1", "b2", "p2", "b3"},
				{"p1", "p2", "b1"},
				{"b1", "p1"},
			}
			for i := range tt.want {
				pi := &tt.want[i]
				pi.Handlers = nil
				var bands [2][]hooks.HandlerInfo
				for _, n := range orders[i%len(orders)] {
					name := fmt.Sprintf("%s#%s", pi.Name, n)
					origin := hooksOriginOf(n)
					h.mount(t, pi.Name, hooksSpec{name: name, origin: origin, res: hooks.Pass})
					bands[origin] = append(bands[origin], hooks.HandlerInfo{Name: name, Origin: origin.String()})
				}
				pi.Handlers = append(bands[hooks.Builtin], bands[hooks.Plugin]...)
			}
			got := h.reg.Describe()
			require.Empty(t, cmp.Diff(tt.want, got, cmpopts.EquateEmpty()), "Describe() (-want +got)")

			// Behavioural check on the same registry: each point's real call
			// order equals what Describe printed for it.
			for _, pi := range got {
				h.resetCalls()
				var err error
				switch pi.Kind {
				case "concat":
					_, err = h.reg.DispatchConcat(context.Background(), pi.Name, "payload")
				case "firstWin":
					_, err = h.reg.DispatchFirstWin(context.Background(), pi.Name, "payload")
				default:
					t.Fatalf("Describe() point %s has kind %q", pi.Name, pi.Kind)
				}
				require.NoError(t, err, "dispatch %s", pi.Name)
				var described []string
				for _, hi := range pi.Handlers {
					described = append(described, hi.Name)
				}
				require.GreaterOrEqual(t, len(described), 2, "point %s has %d handlers; the comparison needs at least 2", pi.Name, len(described))
				assert.Empty(t, cmp.Diff(described, h.calls()), "%s: dispatch order differs from Describe order (-describe +dispatch)", pi.Name)
			}
			h.requireNoWarnings(t)
		})
	}
}

// Protects: scopes. Mounting (or declaring) a point of the other scope is
// ErrWrongScope in both directions, for either origin, and nothing lands.
func TestHooksWrongScopeMountFails(t *testing.T) {
	tests := []struct {
		registry hooks.Scope
		point    string
	}{
		{hooks.ScopeRun, "context:compact"},
		{hooks.ScopeRun, "session:start"},
		{hooks.ScopeSession, "tool:before"},
		{hooks.ScopeSession, "context:prepare"},
		{hooks.ScopeSession, "turn:end"},
	}
	for _, tt := range tests {
		for _, origin := range []hooks.Origin{hooks.Builtin, hooks.Plugin} {
			t.Run(fmt.Sprintf("%s into %s registry/%s", tt.point, tt.registry, origin), func(t *testing.T) {
				h := newHooksHarness(tt.registry)
				before := h.reg.Describe()
				err := h.reg.Mount(hooks.Mount{Point: tt.point, Name: "misplaced", Origin: origin, Handler: h.handler("misplaced", hooksReturn(hooks.Handled("x")))})
				require.ErrorIs(t, err, hooks.ErrWrongScope, "Mount(%s) into %s registry", tt.point, tt.registry)
				assert.Empty(t, cmp.Diff(before, h.reg.Describe()), "a refused mount changed Describe() (-before +after)")
				_, err = h.reg.DispatchConcat(context.Background(), tt.point, "payload")
				assert.ErrorIs(t, err, hooks.ErrUnknownPoint, "DispatchConcat(%s) in %s registry", tt.point, tt.registry)
				_, err = h.reg.DispatchFirstWin(context.Background(), tt.point, "payload")
				assert.ErrorIs(t, err, hooks.ErrUnknownPoint, "DispatchFirstWin(%s) in %s registry", tt.point, tt.registry)
				assert.Empty(t, h.calls(), "refused handler was called")
			})
		}
	}

	t.Run("declare a point of the other scope", func(t *testing.T) {
		r := hooks.New(hooks.Config{Scope: hooks.ScopeRun})
		err := r.Declare(hooks.Point{Name: "session:end", Kind: hooks.Concat, Scope: hooks.ScopeSession})
		assert.ErrorIs(t, err, hooks.ErrWrongScope, "Declare(session point) into run registry")
		assert.ErrorIs(t, r.Declare(hooks.ContextCompact.Point), hooks.ErrWrongScope, "Declare(context:compact) into run registry")
	})

	// A standard point's name cannot be re-declared with this registry's scope
	// to smuggle context:compact into a run registry.
	t.Run("standard name redeclared with another scope or kind", func(t *testing.T) {
		for _, p := range []hooks.Point{
			{Name: "context:compact", Kind: hooks.FirstWin, Scope: hooks.ScopeRun},
			{Name: "tool:before", Kind: hooks.Concat, Scope: hooks.ScopeSession},
		} {
			r := hooks.New(hooks.Config{Scope: p.Scope})
			assert.ErrorIs(t, r.Declare(p), hooks.ErrConflict, "Declare(%+v)", p)
			err := r.Mount(hooks.Mount{Point: p.Name, Name: "smuggled", Handler: hooksReturn(hooks.Pass)})
			assert.ErrorIs(t, err, hooks.ErrWrongScope, "Mount(%s) into %s registry after Declare", p.Name, p.Scope)
		}
	})
}

// Protects: unknown points and misuse are errors, not silent no-ops.
func TestHooksUnknownPointFails(t *testing.T) {
	for _, scope := range []hooks.Scope{hooks.ScopeRun, hooks.ScopeSession} {
		t.Run(scope.String(), func(t *testing.T) {
			h := newHooksHarness(scope)
			err := h.reg.Mount(hooks.Mount{Point: "no:such:point", Name: "x", Handler: h.handler("x", hooksReturn(hooks.Handled("x")))})
			assert.ErrorIs(t, err, hooks.ErrUnknownPoint, "Mount(no:such:point)")
			assert.NotErrorIs(t, err, hooks.ErrWrongScope, "Mount(no:such:point): err, must not be ErrWrongScope")
			_, err = h.reg.DispatchConcat(context.Background(), "no:such:point", nil)
			assert.ErrorIs(t, err, hooks.ErrUnknownPoint, "DispatchConcat(no:such:point)")
			_, err = h.reg.DispatchFirstWin(context.Background(), "no:such:point", nil)
			assert.ErrorIs(t, err, hooks.ErrUnknownPoint, "DispatchFirstWin(no:such:point)")
			assert.Error(t, h.reg.Mount(hooks.Mount{Point: "no:such:point", Name: "nil"}), "Mount with a nil handler")

			// Once declared, the point works; declaring it again is a no-op
			// and declaring it with another kind is ErrConflict.
			p := hooks.Point{Name: "no:such:point", Kind: hooks.Concat, Scope: scope}
			require.NoError(t, h.reg.Declare(p), "Declare(%+v)", p)
			h.mount(t, p.Name, hooksSpec{name: "x", res: hooks.Handled("x")})
			assert.NoError(t, h.reg.Declare(p), "Declare(%+v) again", p)
			assert.ErrorIs(t, h.reg.Declare(hooks.Point{Name: p.Name, Kind: hooks.FirstWin, Scope: scope}), hooks.ErrConflict, "Declare with another kind")
			got, err := h.reg.DispatchConcat(context.Background(), p.Name, nil)
			require.NoError(t, err, "DispatchConcat(%s)", p.Name)
			assert.Empty(t, cmp.Diff(hooksAnys("x"), got), "DispatchConcat(%s) after Declare (-want +got)", p.Name)

			// Dispatching a point as the other kind is an error and calls nothing.
			h.resetCalls()
			_, err = h.reg.DispatchFirstWin(context.Background(), p.Name, nil)
			assert.Error(t, err, "DispatchFirstWin on a concat point: err = nil, want an error")
			assert.Empty(t, h.calls(), "kind-mismatched dispatch called")
		})
	}
}

// Protects: typed points (hooks.NewConcat / NewFirstWin) round-trip values,
// keep dispatch order, report handler errors and payload type mismatches as
// warnings, and refuse a point of the other kind.
func TestHooksTypedPointsRoundTrip(t *testing.T) {
	t.Run("concat", func(t *testing.T) {
		h := newHooksHarness(hooks.ScopeRun)
		prepare := hooks.NewConcat[[]string, string](hooks.ContextPrepare.Point)
		mount := func(name string, origin hooks.Origin, fn func([]string) (string, bool, error)) {
			t.Helper()
			err := prepare.Mount(h.reg, name, origin, func(_ context.Context, in []string) (string, bool, error) {
				h.record(name)
				return fn(in)
			})
			require.NoError(t, err, "Mount(%s)", name)
		}
		mount("plugin-notes", hooks.Plugin, func(in []string) (string, bool, error) { return "notes for " + in[0], true, nil })
		mount("agents-md", hooks.Builtin, func(in []string) (string, bool, error) { return "AGENTS.md of " + in[0], true, nil })
		mount("nothing", hooks.Builtin, func([]string) (string, bool, error) { return "ignored", false, nil })
		mount("failing", hooks.Plugin, func([]string) (string, bool, error) { return "ignored", true, errors.New("timeout") })
		mount("skills", hooks.Builtin, func(in []string) (string, bool, error) { return strings.Join(in, "+"), true, nil })

		got, err := prepare.Dispatch(context.Background(), h.reg, []string{"repo", "x"})
		require.NoError(t, err, "Dispatch")
		assert.Empty(t, cmp.Diff([]string{"AGENTS.md of repo", "repo+x", "notes for repo"}, got), "typed concat (-want +got)")
		assert.Empty(t, cmp.Diff([]string{"agents-md", "nothing", "skills", "plugin-notes", "failing"}, h.calls()), "typed concat calls (-want +got)")
		hooksCheckOneWarning(t, h, hooks.ContextPrepare.Name, "failing", hooks.Plugin, "timeout")

		// The wrong payload type is that handler's failure, not a silent skip.
		h2 := newHooksHarness(hooks.ScopeRun)
		require.NoError(t, prepare.Mount(h2.reg, "typed", hooks.Builtin, func(context.Context, []string) (string, bool, error) { return "x", true, nil }), "Mount")
		_, err = h2.reg.DispatchConcat(context.Background(), hooks.ContextPrepare.Name, 42)
		require.NoError(t, err, "DispatchConcat")
		hooksCheckOneWarning(t, h2, hooks.ContextPrepare.Name, "typed", hooks.Builtin, "int")
	})

	t.Run("firstWin", func(t *testing.T) {
		type call struct{ Tool string }
		type verdict struct{ Deny bool }
		h := newHooksHarness(hooks.ScopeRun)
		before := hooks.NewFirstWin[call, verdict](hooks.ToolBefore.Point)
		mount := func(name string, origin hooks.Origin, fn func(call) (verdict, bool, error)) {
			t.Helper()
			err := before.Mount(h.reg, name, origin, func(_ context.Context, in call) (verdict, bool, error) {
				h.record(name)
				return fn(in)
			})
			require.NoError(t, err, "Mount(%s)", name)
		}
		mount("plugin-guard", hooks.Plugin, func(in call) (verdict, bool, error) { return verdict{Deny: false}, true, nil })
		mount("rm-guard", hooks.Builtin, func(in call) (verdict, bool, error) { return verdict{Deny: true}, in.Tool == "rm", nil })

		got, handled, err := before.Dispatch(context.Background(), h.reg, call{Tool: "rm"})
		require.NoError(t, err, "Dispatch(rm) = %+v", got)
		require.True(t, handled, "Dispatch(rm) = %+v", got)
		assert.Empty(t, cmp.Diff(verdict{Deny: true}, got), "Dispatch(rm) (-want +got)")
		assert.Empty(t, cmp.Diff([]string{"rm-guard"}, h.calls()), "Dispatch(rm) calls (-want +got)")

		h.resetCalls()
		got, handled, err = before.Dispatch(context.Background(), h.reg, call{Tool: "ls"})
		require.NoError(t, err, "Dispatch(ls) = %+v; want handled by the plugin", got)
		require.True(t, handled, "Dispatch(ls) = %+v; want handled by the plugin", got)
		assert.Empty(t, cmp.Diff(verdict{Deny: false}, got), "Dispatch(ls) (-want +got)")
		assert.Empty(t, cmp.Diff([]string{"rm-guard", "plugin-guard"}, h.calls()), "Dispatch(ls) calls (-want +got)")
		h.requireNoWarnings(t)

		// All pass: handled=false and the zero Out.
		h3 := newHooksHarness(hooks.ScopeRun)
		require.NoError(t, before.Mount(h3.reg, "pass", hooks.Builtin, func(context.Context, call) (verdict, bool, error) { return verdict{Deny: true}, false, nil }), "Mount")
		got, handled, err = before.Dispatch(context.Background(), h3.reg, call{Tool: "ls"})
		assert.NoError(t, err, "Dispatch with every handler passing; want zero, false, nil")
		assert.False(t, handled, "Dispatch with every handler passing; want zero, false, nil")
		assert.Equal(t, (verdict{}), got, "Dispatch with every handler passing; want zero, false, nil")
	})

	t.Run("kind mismatch panics", func(t *testing.T) {
		tests := []struct {
			name      string
			f         func()
			wantPanic bool
		}{
			{"NewConcat(tool:before)", func() { hooks.NewConcat[string, string](hooks.ToolBefore.Point) }, true},
			{"NewFirstWin(context:prepare)", func() { hooks.NewFirstWin[string, string](hooks.ContextPrepare.Point) }, true},
			{"NewConcat(session:start)", func() { hooks.NewConcat[string, string](hooks.SessionStart.Point) }, false},
			{"NewFirstWin(context:compact)", func() { hooks.NewFirstWin[string, string](hooks.ContextCompact.Point) }, false},
		}
		for _, tt := range tests {
			assert.Equal(t, tt.wantPanic, hooksPanics(tt.f), "%s panicked", tt.name)
		}
	})
}

// Protects: SplitByScope keeps each scope's mounts in their original order and
// routes session:start / context:compact to session, everything else to run;
// mounted after the builtins, a plugin's split mounts land behind them in both
// registries.
func TestHooksSplitByScopeKeepsOrder(t *testing.T) {
	noop := hooksReturn(hooks.Handled("plugin"))
	plugin := []hooks.Mount{
		{Point: "context:compact", Name: "m1", Origin: hooks.Plugin, Handler: noop},
		{Point: "tool:before", Name: "m2", Origin: hooks.Plugin, Handler: noop},
		{Point: "session:start", Name: "m3", Origin: hooks.Plugin, Handler: noop},
		{Point: "context:prepare", Name: "m4", Origin: hooks.Plugin, Handler: noop},
		{Point: "context:compact", Name: "m5", Origin: hooks.Plugin, Handler: noop},
		{Point: "turn:end", Name: "m6", Origin: hooks.Plugin, Handler: noop},
		{Point: "custom:point", Name: "m7", Origin: hooks.Plugin, Handler: noop},
		{Point: "tool:before", Name: "m8", Origin: hooks.Plugin, Handler: noop},
	}
	run, session := hooks.SplitByScope(plugin)
	names := func(ms []hooks.Mount) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Point+"/"+m.Name)
		}
		return out
	}
	assert.Empty(t, cmp.Diff([]string{"tool:before/m2", "context:prepare/m4", "turn:end/m6", "custom:point/m7", "tool:before/m8"}, names(run)), "SplitByScope run (-want +got)")
	assert.Empty(t, cmp.Diff([]string{"context:compact/m1", "session:start/m3", "context:compact/m5"}, names(session)), "SplitByScope session (-want +got)")
	for _, tt := range []struct {
		point string
		want  hooks.Scope
	}{
		{"session:start", hooks.ScopeSession},
		{"context:compact", hooks.ScopeSession},
		{"context:prepare", hooks.ScopeRun},
		{"tool:before", hooks.ScopeRun},
		{"turn:end", hooks.ScopeRun},
		{"custom:point", hooks.ScopeRun},
	} {
		assert.Equal(t, tt.want, hooks.ScopeOf(tt.point), "ScopeOf(%q)", tt.point)
	}

	// The plugin's split mounts go in first, as a careless assembly might do;
	// the builtins mounted afterwards still run first in both registries.
	runReg := hooks.New(hooks.Config{Scope: hooks.ScopeRun})
	sessReg := hooks.New(hooks.Config{Scope: hooks.ScopeSession})
	for _, m := range run {
		err := runReg.Mount(m)
		if m.Point == "custom:point" {
			assert.ErrorIs(t, err, hooks.ErrUnknownPoint, "Mount(custom:point) into run registry")
		} else {
			require.NoError(t, err, "run Mount(%s)", m.Name)
		}
	}
	for _, m := range session {
		require.NoError(t, sessReg.Mount(m), "session Mount(%s)", m.Name)
	}
	for _, reg := range []*hooks.Registry{runReg, sessReg} {
		for _, pi := range reg.Describe() {
			require.NoError(t, reg.Mount(hooks.Mount{Point: pi.Name, Name: "builtin", Origin: hooks.Builtin, Handler: hooksReturn(hooks.Handled("builtin"))}), "Mount(builtin on %s)", pi.Name)
		}
	}
	want := map[string][]string{
		"context:prepare": {"builtin", "m4"},
		"tool:before":     {"builtin", "m2", "m8"},
		"turn:end":        {"builtin", "m6"},
		"session:start":   {"builtin", "m3"},
		"context:compact": {"builtin", "m1", "m5"},
		// The points no split mount went to hold only the builtin.
		"prompt:submit": {"builtin"}, "tool:after": {"builtin"},
		"compact:before": {"builtin"}, "session:end": {"builtin"},
	}
	got := map[string][]string{}
	for _, reg := range []*hooks.Registry{runReg, sessReg} {
		for _, pi := range reg.Describe() {
			for _, hi := range pi.Handlers {
				got[pi.Name] = append(got[pi.Name], hi.Name)
			}
		}
	}
	assert.Empty(t, cmp.Diff(want, got), "handlers per point after mounting split plugin mounts then builtins (-want +got)")
}

// Protects: context cancellation stops dispatch: no later handler is called
// and the context's error comes back.
func TestHooksContextCancellationStopsDispatch(t *testing.T) {
	for _, pt := range hooks.StandardPoints() {
		t.Run(pt.Name+"/cancelled by a handler", func(t *testing.T) {
			h := newHooksHarness(pt.Scope)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			require.NoError(t, h.reg.Mount(hooks.Mount{Point: pt.Name, Name: "b1", Origin: hooks.Builtin, Handler: h.handler("b1", func(context.Context, any) (hooks.Result, error) {
				cancel()
				return hooks.Pass, nil
			})}), "Mount(b1)")
			h.mount(t, pt.Name,
				hooksSpec{name: "b2", res: hooks.Handled("b2")},
				hooksSpec{name: "p1", origin: hooks.Plugin, res: hooks.Handled("p1")},
			)
			err := hooksDispatch(ctx, h.reg, pt)
			assert.ErrorIs(t, err, context.Canceled, "dispatch after cancel")
			assert.Empty(t, cmp.Diff([]string{"b1"}, h.calls()), "calls after cancel (-want +got)")
		})
		t.Run(pt.Name+"/cancelled before dispatch", func(t *testing.T) {
			h := newHooksHarness(pt.Scope)
			h.mount(t, pt.Name, hooksSpec{name: "b1", res: hooks.Handled("b1")})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			assert.ErrorIs(t, hooksDispatch(ctx, h.reg, pt), context.Canceled, "dispatch with a cancelled context")
			assert.Empty(t, h.calls(), "handlers called with a cancelled context")
		})
	}
}

// Protects: "safe for concurrent use" (run with -race): mounting while
// dispatching neither races nor loses mounts, and bands stay ordered.
func TestHooksConcurrentMountAndDispatch(t *testing.T) {
	r := hooks.New(hooks.Config{Scope: hooks.ScopeRun})
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			origin := hooks.Origin(i % 2)
			assert.NoError(t, r.Mount(hooks.Mount{Point: "context:prepare", Name: fmt.Sprint(i), Origin: origin, Handler: hooksReturn(hooks.Handled(origin.String()))}), "Mount(%d)", i)
		})
		wg.Go(func() {
			got, err := r.DispatchConcat(context.Background(), "context:prepare", nil)
			assert.NoError(t, err, "DispatchConcat")
			assert.True(t, hooksBuiltinsFirst(got), "DispatchConcat mid-mount = %v, a plugin ran before a builtin", got)
			_ = r.Describe()
		})
	}
	wg.Wait()
	got, err := r.DispatchConcat(context.Background(), "context:prepare", nil)
	require.NoError(t, err, "DispatchConcat")
	if assert.Len(t, got, n, "after %d concurrent mounts DispatchConcat = %v; want %d values, builtins first", n, got, n) {
		assert.True(t, hooksBuiltinsFirst(got), "after %d concurrent mounts DispatchConcat = %v; want %d values, builtins first", n, got, n)
	}
}

// --- helpers -----------------------------------------------------------------

// hooksSpec describes one Mount call of a table and what its handler answers.
type hooksSpec struct {
	name   string
	origin hooks.Origin
	res    hooks.Result
	err    error
	panics string // when set, the handler panics with this value
}

// hooksHarness is a registry wired to record every warning (sink and slog) and
// the order in which its test handlers are called.
type hooksHarness struct {
	reg *hooks.Registry
	log *hooksLogStore

	mu       sync.Mutex
	warnings []contract.Warning
	trace    []string
}

func newHooksHarness(scope hooks.Scope) *hooksHarness {
	h := &hooksHarness{log: &hooksLogStore{}}
	h.reg = hooks.New(hooks.Config{
		Scope:  scope,
		Logger: slog.New(&hooksLogHandler{store: h.log}),
		OnWarning: func(w contract.Warning) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.warnings = append(h.warnings, w)
		},
	})
	return h
}

// handler wraps fn so that each call is recorded under name.
func (h *hooksHarness) handler(name string, fn hooks.Handler) hooks.Handler {
	return func(ctx context.Context, in any) (hooks.Result, error) {
		h.record(name)
		return fn(ctx, in)
	}
}

func (h *hooksHarness) mount(t *testing.T, point string, specs ...hooksSpec) {
	t.Helper()
	for _, s := range specs {
		fn := func(context.Context, any) (hooks.Result, error) {
			if s.panics != "" {
				panic(s.panics)
			}
			return s.res, s.err
		}
		require.NoError(t, h.reg.Mount(hooks.Mount{Point: point, Name: s.name, Origin: s.origin, Handler: h.handler(s.name, fn)}), "Mount(%s on %s)", s.name, point)
	}
}

func (h *hooksHarness) record(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trace = append(h.trace, name)
}

func (h *hooksHarness) calls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.trace...)
}

func (h *hooksHarness) resetCalls() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trace = nil
}

func (h *hooksHarness) sinkWarnings() []contract.Warning {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]contract.Warning(nil), h.warnings...)
}

// requireNoWarnings fails when any handler failed: a passing order or result
// assertion means nothing if it came from a fallback after a failure.
func (h *hooksHarness) requireNoWarnings(t *testing.T) {
	t.Helper()
	ws := h.sinkWarnings()
	assert.Empty(t, ws, "OnWarning received %d warnings, want none: %v", len(ws), ws)
	recs := h.log.records()
	assert.Empty(t, recs, "logger received %d records, want none: %+v", len(recs), recs)
}

// hooksCheckOneWarning asserts that exactly one handler failure was reported,
// to the sink and to slog, and that both name point, handler and origin.
func hooksCheckOneWarning(t *testing.T, h *hooksHarness, point, handler string, origin hooks.Origin, cause string) {
	t.Helper()
	ws := h.sinkWarnings()
	if assert.Len(t, ws, 1, "OnWarning received %d warnings, want 1: %v", len(ws), ws) {
		w := ws[0]
		assert.Equal(t, "hook", w.Source, "warning = %+v, want Source %q and Path %q", w, "hook", point)
		assert.Equal(t, point, w.Path, "warning = %+v, want Source %q and Path %q", w, "hook", point)
		for _, part := range []string{handler, origin.String(), cause} {
			assert.Contains(t, w.Message, part, "warning message %q does not name %q", w.Message, part)
		}
	}

	recs := h.log.records()
	if !assert.Len(t, recs, 1, "logger received %d records, want 1: %+v", len(recs), recs) {
		return
	}
	rec := recs[0]
	assert.Equal(t, slog.LevelWarn, rec.Level, "log level")
	want := map[string]string{"point": point, "handler": handler, "origin": origin.String()}
	got := map[string]string{}
	for k := range want {
		if v, ok := rec.Attrs[k]; ok {
			got[k] = v
		}
	}
	assert.Empty(t, cmp.Diff(want, got), "log record attrs (-want +got)\nrecord: %+v", rec)
	assert.Contains(t, rec.Attrs["error"], cause, "log record error attr = %q, want it to contain %q", rec.Attrs["error"], cause)
}

// hooksDispatchExpectNext dispatches pt and checks that only "next" made it
// into the result.
func hooksDispatchExpectNext(t *testing.T, h *hooksHarness, pt hooks.Point) {
	t.Helper()
	switch pt.Kind {
	case hooks.Concat:
		got, err := h.reg.DispatchConcat(context.Background(), pt.Name, "payload")
		require.NoError(t, err, "DispatchConcat(%s)", pt.Name)
		assert.Empty(t, cmp.Diff(hooksAnys("next"), got), "DispatchConcat(%s) (-want +got)", pt.Name)
	case hooks.FirstWin:
		got, err := h.reg.DispatchFirstWin(context.Background(), pt.Name, "payload")
		require.NoError(t, err, "DispatchFirstWin(%s)", pt.Name)
		assert.Empty(t, cmp.Diff(hooks.Handled("next"), got), "DispatchFirstWin(%s) (-want +got)", pt.Name)
	}
}

func hooksDispatch(ctx context.Context, r *hooks.Registry, pt hooks.Point) error {
	if pt.Kind == hooks.Concat {
		_, err := r.DispatchConcat(ctx, pt.Name, "payload")
		return err
	}
	_, err := r.DispatchFirstWin(ctx, pt.Name, "payload")
	return err
}

// hooksRequireBothBands stops a test whose point lacks a builtin or a plugin:
// without both on the same point an order assertion cannot fail.
func hooksRequireBothBands(t *testing.T, r *hooks.Registry, point string) {
	t.Helper()
	seen := map[string]int{}
	for _, hi := range hooksDescribeHandlers(t, r, point) {
		seen[hi.Origin]++
	}
	require.NotZero(t, seen["builtin"], "point %s has %d builtins and %d plugins; an order test needs both", point, seen["builtin"], seen["plugin"])
	require.NotZero(t, seen["plugin"], "point %s has %d builtins and %d plugins; an order test needs both", point, seen["builtin"], seen["plugin"])
}

func hooksDescribeHandlers(t *testing.T, r *hooks.Registry, point string) []hooks.HandlerInfo {
	t.Helper()
	for _, pi := range r.Describe() {
		if pi.Name == point {
			return pi.Handlers
		}
	}
	t.Fatalf("Describe() has no point %s", point)
	return nil
}

func hooksStandardPointsOfKind(k hooks.Kind) []hooks.Point {
	var out []hooks.Point
	for _, p := range hooks.StandardPoints() {
		if p.Kind == k {
			out = append(out, p)
		}
	}
	return out
}

// hooksOriginOf reads the band from a test handler name: "p..." is a plugin.
func hooksOriginOf(name string) hooks.Origin {
	if strings.HasPrefix(name, "p") {
		return hooks.Plugin
	}
	return hooks.Builtin
}

func hooksReturn(res hooks.Result) hooks.Handler {
	return func(context.Context, any) (hooks.Result, error) { return res, nil }
}

func hooksAnys(vs ...string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func hooksCount(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

func hooksBuiltinsFirst(vs []any) bool {
	sawPlugin := false
	for _, v := range vs {
		switch v {
		case "plugin":
			sawPlugin = true
		case "builtin":
			if sawPlugin {
				return false
			}
		}
	}
	return true
}

func hooksPanics(f func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	f()
	return false
}

// hooksLogRecord is one slog record, attrs flattened to strings.
type hooksLogRecord struct {
	Level slog.Level
	Msg   string
	Attrs map[string]string
}

type hooksLogStore struct {
	mu   sync.Mutex
	recs []hooksLogRecord
}

func (s *hooksLogStore) records() []hooksLogRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]hooksLogRecord(nil), s.recs...)
}

// hooksLogHandler is a slog.Handler that records every record, including
// attrs added through Logger.With, so tests can assert what was logged.
type hooksLogHandler struct {
	store  *hooksLogStore
	attrs  []slog.Attr
	prefix string
}

func (h *hooksLogHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *hooksLogHandler) Handle(_ context.Context, r slog.Record) error {
	rec := hooksLogRecord{Level: r.Level, Msg: r.Message, Attrs: map[string]string{}}
	for _, a := range h.attrs {
		rec.Attrs[a.Key] = a.Value.Resolve().String()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.Attrs[h.prefix+a.Key] = a.Value.Resolve().String()
		return true
	})
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	h.store.recs = append(h.store.recs, rec)
	return nil
}

func (h *hooksLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range as {
		c.attrs = append(c.attrs, slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
	}
	return &c
}

func (h *hooksLogHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}

// A typed point refuses a value of the wrong type from a handler mounted
// untyped: that handler failed (warned), the others still count. C1: a
// handler error is isolated and observable.
func TestHooksTypedPointWrongTypeIsAWarnedFailure(t *testing.T) {
	ctx := context.Background()

	t.Run("concat", func(t *testing.T) {
		h := newHooksHarness(hooks.ScopeRun)
		pt := hooks.NewConcat[string, string](hooks.ContextPrepare.Point)
		h.mount(t, pt.Name, hooksSpec{name: "foreign", origin: hooks.Builtin, res: hooks.Handled(42)})
		require.NoError(t, pt.Mount(h.reg, "typed", hooks.Plugin, func(context.Context, string) (string, bool, error) {
			return "ok", true, nil
		}))
		got, err := pt.Dispatch(ctx, h.reg, "in")
		require.NoError(t, err)
		assert.Empty(t, cmp.Diff([]string{"ok"}, got), "Dispatch (-want +got)")
		hooksCheckOneWarning(t, h, pt.Name, "foreign", hooks.Builtin, "int")
	})

	t.Run("firstWin", func(t *testing.T) {
		h := newHooksHarness(hooks.ScopeRun)
		pt := hooks.NewFirstWin[string, string](hooks.ToolBefore.Point)
		h.mount(t, pt.Name, hooksSpec{name: "foreign", origin: hooks.Builtin, res: hooks.Handled(42)})
		require.NoError(t, pt.Mount(h.reg, "typed", hooks.Plugin, func(context.Context, string) (string, bool, error) {
			return "deny", true, nil
		}))
		got, handled, err := pt.Dispatch(ctx, h.reg, "in")
		assert.NoError(t, err, "Dispatch; want the next handler's decision \"deny\"")
		assert.True(t, handled, "Dispatch; want the next handler's decision \"deny\"")
		assert.Equal(t, "deny", got, "Dispatch; want the next handler's decision \"deny\"")
		hooksCheckOneWarning(t, h, pt.Name, "foreign", hooks.Builtin, "int")
	})
}
