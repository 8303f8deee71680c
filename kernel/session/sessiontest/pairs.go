package sessiontest

import (
	"testing"

	"github.com/helios-agents/helios/kernel/session"
)

// Events returns the events of l, in order.
func Events(l session.Log) []session.Event {
	evs := make([]session.Event, l.Len())
	for i := range evs {
		evs[i] = l.At(i)
	}
	return evs
}

// CheckToolPairs fails t unless l pairs every tool call with one result
// after it, of the same tool: no call ID is used twice, no result comes
// before its call or answers one twice, no call is left without a result.
func CheckToolPairs(t testing.TB, l session.Log) {
	t.Helper()
	uses := map[string]session.Event{}
	answered := map[string]bool{}
	for _, ev := range Events(l) {
		switch ev.Type {
		case session.ToolUse:
			if _, dup := uses[ev.ToolUseID]; dup {
				t.Errorf("tool use ID %q used twice", ev.ToolUseID)
			}
			uses[ev.ToolUseID] = ev
		case session.ToolResult:
			use, ok := uses[ev.ToolUseID]
			switch {
			case !ok:
				t.Errorf("result %q has no call before it", ev.ToolUseID)
			case answered[ev.ToolUseID]:
				t.Errorf("call %q answered twice", ev.ToolUseID)
			case use.ToolName != ev.ToolName:
				t.Errorf("result %q is of tool %q, its call of %q", ev.ToolUseID, ev.ToolName, use.ToolName)
			}
			answered[ev.ToolUseID] = true
		}
	}
	for id := range uses {
		if !answered[id] {
			t.Errorf("call %q has no result", id)
		}
	}
}
