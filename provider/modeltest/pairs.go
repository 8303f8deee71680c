package modeltest

import (
	"testing"

	"github.com/helios-agents/helios/kernel/model"
)

// CheckToolPairs fails t unless msgs (a request's messages; what names
// them in a failure) pair every tool call with one tool message after it:
// no call ID is used twice, no tool message answers no earlier call or
// one already answered, no call is left without an answer.
func CheckToolPairs(t testing.TB, what string, msgs []model.Message) {
	t.Helper()
	calls := map[string]bool{}
	answered := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if calls[c.ID] {
				t.Errorf("%s: tool call ID %q used twice", what, c.ID)
			}
			calls[c.ID] = true
		}
		if m.Role == model.RoleTool {
			if !calls[m.ToolCallID] || answered[m.ToolCallID] {
				t.Errorf("%s: tool message for %q has no call before it, or repeats", what, m.ToolCallID)
			}
			answered[m.ToolCallID] = true
		}
	}
	for id := range calls {
		if !answered[id] {
			t.Errorf("%s: call %q has no result", what, id)
		}
	}
}
