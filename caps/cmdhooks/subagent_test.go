//go:build unix

package cmdhooks_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
)

// Protects: Claude Code's SubagentStart and SubagentStop run on
// subagent:start and subagent:stop with agent_id and agent_type (and
// SubagentStop's last_assistant_message), their matcher selecting the
// agent_type.
func TestSubagentEventsMapped(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "inputs")
	cat := `[{"matcher": "review.*", "hooks": [{"type": "command", "command": ` + jsonString("cat >> '"+out+"'") + `}]}]`
	ms := newHooks(t, `{"SubagentStart": `+cat+`, "SubagentStop": `+cat+`}`, cmdhooks.Config{})
	require.Len(t, ms, 2)
	assert.Equal(t, hooks.SubagentStart.Name, ms[0].Point)
	assert.Equal(t, hooks.SubagentStop.Name, ms[1].Point)

	_, err := ms[0].Handler(context.Background(), kernel.SubagentStartIn{SessionID: "s1", AgentID: "c1", AgentType: "reviewer", ToolUseID: "t1"})
	require.NoError(t, err)
	_, err = ms[0].Handler(context.Background(), kernel.SubagentStartIn{SessionID: "s1", AgentID: "c2", AgentType: "tester", ToolUseID: "t2"})
	require.NoError(t, err)
	_, err = ms[1].Handler(context.Background(), kernel.SubagentStopIn{SessionID: "s1", AgentID: "c1", AgentType: "reviewer", LastAssistantMessage: "fine"})
	require.NoError(t, err)

	lines := strings.Split(strings.TrimSpace(readFile(t, out)), "\n")
	require.Len(t, lines, 2, "the tester is not matched")
	var got []map[string]any
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		got = append(got, m)
	}
	assert.Equal(t, "SubagentStart", got[0]["hook_event_name"])
	assert.Equal(t, "c1", got[0]["agent_id"])
	assert.Equal(t, "reviewer", got[0]["agent_type"])
	assert.Equal(t, "SubagentStop", got[1]["hook_event_name"])
	assert.Equal(t, "fine", got[1]["last_assistant_message"])
	assert.Equal(t, false, got[1]["stop_hook_active"])
}
