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

// Protects: a SubagentStop hook that exits 2 or decides "block" keeps the
// subagent going, its stderr or reason the next prompt; one that does
// neither passes; stop_hook_active says the subagent was kept going.
func TestSubagentStopBlocks(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "inputs")
	ms := newHooks(t, `{"SubagentStop": [
		{"matcher": "exit2", "hooks": [{"type": "command", "command": `+jsonString("cat >> '"+out+"'; echo 'run the tests' >&2; exit 2")+`}]},
		{"matcher": "json", "hooks": [{"type": "command", "command": "cat >/dev/null; echo '{\"decision\": \"block\", \"reason\": \"check the docs\"}'"}]},
		{"matcher": "quiet", "hooks": [{"type": "command", "command": "cat >/dev/null"}]}
	]}`, cmdhooks.Config{})
	require.Len(t, ms, 3)
	for i, tc := range []struct {
		agent, reason string
		blocks        bool
	}{
		{"exit2", "run the tests", true},
		{"json", "check the docs", true},
		{"quiet", "", false},
	} {
		res, err := ms[i].Handler(context.Background(), kernel.SubagentStopIn{SessionID: "s1", AgentID: "c1", AgentType: tc.agent, LastAssistantMessage: "done", Continued: true})
		require.NoError(t, err, tc.agent)
		assert.Equal(t, tc.blocks, res.Handled, tc.agent)
		if tc.blocks {
			assert.Equal(t, kernel.TurnDecision{End: false, Reason: tc.reason}, res.Value, tc.agent)
		}
	}
	var in map[string]any
	require.NoError(t, json.Unmarshal([]byte(readFile(t, out)), &in))
	assert.Equal(t, true, in["stop_hook_active"])
}
