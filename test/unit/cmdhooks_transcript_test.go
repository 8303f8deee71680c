package unit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A PreToolUse hook as published for Claude Code: it reads the session's
// transcript at transcript_path with jq and records the person's last
// prompt and the call it is asked about, the last tool_use there.
const chTranscriptSh = `#!/usr/bin/env bash
set -euo pipefail
input=$(cat)
t=$(jq -r '.transcript_path' <<<"$input")
{
  echo "$t"
  jq -r 'select(.type == "user") | .message.content | strings' "$t" | tail -n 1
  jq -r 'select(.type == "assistant") | .message.content[] | select(.type == "text") | .text' "$t" | tail -n 1
  jq -c 'select(.type == "assistant") | .message.content[] | select(.type == "tool_use") | [.name, .input.command]' "$t" | tail -n 1
} >> "$CLAUDE_PROJECT_DIR/seen.txt"
`

// Protects: M547 (transcript_path not the session's transcript). Through a
// kernel assembled from a config: the hook's transcript_path is the
// session's transcript beside its log, holding, when the hook runs, the
// prompt, the model's text and the very call the hook gates.
func TestCmdHooksTranscript(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not found: install jq (.ci/run does) to run the jq hook test")
	}
	w := chNewWorld(t, map[string]string{"seen.sh": chTranscriptSh},
		`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "hooks/seen.sh"}]}]}`,
		func(modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Text: "Listing first.", ToolCalls: []model.ToolCall{{Name: "Bash", Arguments: json.RawMessage(`{"command": "ls"}`)}}}
		},
		modeltest.Call("Bash", `{"command": "echo second"}`),
		modeltest.Say("done"))
	s, _ := w.open(t, kernel.SessionConfig{})
	agRun(t, s, "look around")

	path := filepath.Join(w.sessions, "transcripts", s.ID()+".jsonl")
	assert.Equal(t, strings.Join([]string{
		path, "look around", "Listing first.", `["Bash","ls"]`,
		path, "look around", "Listing first.", `["Bash","echo second"]`,
	}, "\n")+"\n", chRead(t, filepath.Join(w.work, "seen.txt")))
	_, err := os.Stat(filepath.Join(w.sessions, s.ID()+".jsonl"))
	require.NoError(t, err, "the session's own log is beside it")
	assert.Empty(t, w.warnings())
}
