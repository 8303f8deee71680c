package cmdhooks

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Protects: tool_input carries Claude Code's keys beside Helios's, and an
// updatedInput in either spelling reaches the tool in Helios's keys.
func TestToolInputKeys(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
	}{
		{"relative path", "Write", `{"path":"a/b.txt","content":"x"}`, `{"content":"x","file_path":"/w/a/b.txt","path":"a/b.txt"}`},
		{"absolute path", "Read", `{"path":"/etc/hosts"}`, `{"file_path":"/etc/hosts","path":"/etc/hosts"}`},
		{"bash timeout", "Bash", `{"command":"ls","timeout_seconds":5}`, `{"command":"ls","timeout":5000,"timeout_seconds":5}`},
		{"other tool", "mcp__x__y", `{"path":"p"}`, `{"path":"p"}`},
		{"not an object", "Bash", `[1]`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.JSONEq(t, tt.want, string(claudeInput(tt.tool, json.RawMessage(tt.args), "/w")))
		})
	}

	back := []struct {
		name, tool, given, updated, want string
	}{
		{"file_path changed wins", "Edit", `{"path":"a","file_path":"/w/a"}`, `{"path":"a","file_path":"/w/b"}`, `{"path":"/w/b"}`},
		{"path changed, file_path kept", "Edit", `{"path":"a","file_path":"/w/a"}`, `{"path":"c","file_path":"/w/a"}`, `{"path":"c"}`},
		{"only file_path", "Write", `{"path":"a","file_path":"/w/a"}`, `{"file_path":"/w/z","content":"q"}`, `{"path":"/w/z","content":"q"}`},
		{"timeout in ms rounds up to seconds", "Bash", `{"command":"ls","timeout":5000,"timeout_seconds":5}`, `{"command":"ls","timeout":1500,"timeout_seconds":5}`, `{"command":"ls","timeout_seconds":2}`},
		{"only timeout", "Bash", `{"command":"ls"}`, `{"command":"ls","timeout":10}`, `{"command":"ls","timeout_seconds":1}`},
	}
	for _, tt := range back {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := heliosInput(tt.tool, json.RawMessage(tt.updated), json.RawMessage(tt.given))
			assert.True(t, ok)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
	_, ok := heliosInput("Bash", json.RawMessage(`"rm"`), json.RawMessage(`{}`))
	assert.False(t, ok, "an updatedInput that is not an object")
}
