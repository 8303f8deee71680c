package hooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/kernel/hooks"
)

// One spelling per standard point: the typed points of package hooks carry
// the names, kinds and scopes the registry, the plugin wire and the SDK
// use, and StandardPoints lists exactly them, in lifecycle order.
func TestStandardPointsAreTheTypedPoints(t *testing.T) {
	want := []hooks.Point{
		{Name: "session:start", Kind: hooks.Concat, Scope: hooks.ScopeSession},
		{Name: "prompt:submit", Kind: hooks.Concat, Scope: hooks.ScopeRun},
		{Name: "context:prepare", Kind: hooks.Concat, Scope: hooks.ScopeRun},
		{Name: "compact:before", Kind: hooks.Concat, Scope: hooks.ScopeSession},
		{Name: "context:compact", Kind: hooks.FirstWin, Scope: hooks.ScopeSession},
		{Name: "tool:before", Kind: hooks.FirstWin, Scope: hooks.ScopeRun},
		{Name: "tool:after", Kind: hooks.Concat, Scope: hooks.ScopeRun},
		{Name: "turn:end", Kind: hooks.FirstWin, Scope: hooks.ScopeRun},
		{Name: "session:end", Kind: hooks.Concat, Scope: hooks.ScopeSession},
	}
	typed := []hooks.Point{
		hooks.SessionStart.Point, hooks.PromptSubmit.Point, hooks.ContextPrepare.Point,
		hooks.CompactBefore.Point, hooks.ContextCompact.Point, hooks.ToolBefore.Point,
		hooks.ToolAfter.Point, hooks.TurnEnd.Point, hooks.SessionEnd.Point,
	}
	assert.Equal(t, want, typed)
	assert.Equal(t, want, hooks.StandardPoints())
	assert.Equal(t, hooks.Point{Name: "instructions:loaded", Kind: hooks.Concat, Scope: hooks.ScopeRun}, hooks.InstructionsLoaded.Point)
}
