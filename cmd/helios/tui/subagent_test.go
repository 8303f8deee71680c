package tui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
)

// C33: each subagent's progress is one line under its own Agent call,
// rewritten as it goes; its tokens count in the status line's total.
func TestSubagentProgressOneLineUnderItsCall(t *testing.T) {
	m := newTestModel(t, Config{Kernel: newFakeKernel()})
	a := model.ToolCall{ID: "a1", Name: kernel.AgentToolName, Arguments: []byte(`{"subagent_type":"reviewer"}`)}
	b := model.ToolCall{ID: "a2", Name: kernel.AgentToolName, Arguments: []byte(`{"subagent_type":"tester"}`)}
	m.Update(updateMsg(kernel.Update{Kind: kernel.UpdateToolCall, Call: a}))
	m.Update(updateMsg(kernel.Update{Kind: kernel.UpdateToolCall, Call: b}))
	m.Update(updateMsg(kernel.Update{Kind: kernel.UpdateSubagent, Call: a, Text: "reviewer: Read"}))
	m.Update(updateMsg(kernel.Update{Kind: kernel.UpdateSubagent, Call: b, Text: "tester: Bash"}))
	m.Update(updateMsg(kernel.Update{Kind: kernel.UpdateSubagent, Call: a, Text: "reviewer: Grep", Usage: session.Usage{Input: 2000, Output: 100}}))
	screen := tuiScreen(m)
	lines := strings.Split(screen, "\n")
	idx := func(s string) int {
		for i, l := range lines {
			if strings.Contains(l, s) {
				return i
			}
		}
		return -1
	}
	require.GreaterOrEqual(t, idx("reviewer\"}"), 0, screen)
	assert.Equal(t, idx(`"reviewer"}`)+1, idx("⋯ reviewer: Grep"), screen)
	assert.Equal(t, idx(`"tester"}`)+1, idx("⋯ tester: Bash"), screen)
	assert.Equal(t, -1, idx("reviewer: Read"), "the line is rewritten")
	assert.Contains(t, screen, "tokens 2.0k in")
}
