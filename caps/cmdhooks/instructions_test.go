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

// Protects: InstructionsLoaded runs once per file given to the model, with
// Claude Code's file_path, memory_type and load_reason, its matcher
// selecting the load_reason.
func TestInstructionsLoadedPerFile(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "inputs")
	ms := newHooks(t, `{"InstructionsLoaded": [{"matcher": "session_start", "hooks": [{"type": "command", "command": `+jsonString("cat >> '"+out+"'")+`}]}]}`, cmdhooks.Config{})
	require.Len(t, ms, 1)
	assert.Equal(t, hooks.InstructionsLoaded.Name, ms[0].Point)

	_, err := ms[0].Handler(context.Background(), kernel.InstructionsLoadedIn{SessionID: "s1", Files: []kernel.InstructionFile{
		{Path: "/home/u/.claude/CLAUDE.md", MemoryType: "User", LoadReason: "session_start"},
		{Path: "/p/AGENTS.md", MemoryType: "Project", LoadReason: "session_start"},
	}})
	require.NoError(t, err)
	_, err = ms[0].Handler(context.Background(), kernel.InstructionsLoadedIn{SessionID: "s1", Files: []kernel.InstructionFile{
		{Path: "/p/sub/AGENTS.md", MemoryType: "Project", LoadReason: "nested_traversal"},
	}})
	require.NoError(t, err)

	lines := strings.Split(strings.TrimSpace(readFile(t, out)), "\n")
	require.Len(t, lines, 2, "once per file, the nested one not matched")
	var got []map[string]any
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		got = append(got, m)
	}
	assert.Equal(t, "InstructionsLoaded", got[0]["hook_event_name"])
	assert.Equal(t, "s1", got[0]["session_id"])
	assert.Equal(t, "/home/u/.claude/CLAUDE.md", got[0]["file_path"])
	assert.Equal(t, "User", got[0]["memory_type"])
	assert.Equal(t, "session_start", got[0]["load_reason"])
	assert.Equal(t, "/p/AGENTS.md", got[1]["file_path"])
	assert.Equal(t, "Project", got[1]["memory_type"])
}
