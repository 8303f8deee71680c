//go:build unix

package cmdhooks_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: M796 ("if" ignored). A hook with "if" runs only on the calls
// its permission rule matches (for Bash, any simple command of the chain),
// on PreToolUse as on PostToolUse; without "if" it runs on every match.
func TestHookIfFiltersCalls(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	ran := func(name string) string { return filepath.Join(out, name) }
	settings, err := json.Marshal(map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "command": `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no pushing"}}'`, "if": "Bash(git push:*)"},
		}}},
		"PostToolUse": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": "touch " + ran("post-if"), "if": "Read(./secret/**)"},
			map[string]any{"type": "command", "command": "touch " + ran("post-all")},
		}}},
	})
	require.NoError(t, err)
	ms := newHooks(t, string(settings), cmdhooks.Config{})
	require.Len(t, ms, 3)

	before := func(cmd string) (kernel.ToolDecision, bool) {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		r, err := ms[0].Handler(context.Background(), kernel.ToolBeforeIn{SessionID: "s", Call: hookdata.ToolCall{ID: "c", Name: "Bash", Arguments: args}})
		require.NoError(t, err)
		if !r.Handled {
			return kernel.ToolDecision{}, false
		}
		return r.Value.(kernel.ToolDecision), true
	}
	_, handled := before("git status")
	assert.False(t, handled, "the hook ran on a call its rule does not match")
	d, handled := before("echo hi && git push origin main")
	require.True(t, handled, "the hook did not run on a chain with a matching command")
	assert.True(t, d.Deny)
	assert.Equal(t, "no pushing", d.Reason)

	afterTool(t, ms[1:], kernel.ToolAfterIn{SessionID: "s", Call: hookdata.ToolCall{ID: "r1", Name: "Read", Arguments: json.RawMessage(`{"path":"notes.txt"}`)}})
	assert.NoFileExists(t, ran("post-if"), "PostToolUse with if ran on a call its rule does not match")
	assert.FileExists(t, ran("post-all"), "a hook without if runs on every call")
}

// A bad "if" rule is an error naming its JSON path.
func TestHookIfBadRule(t *testing.T) {
	t.Parallel()
	var s cmdhooks.Settings
	require.NoError(t, json.Unmarshal([]byte(`{"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(git push"}]}]}`), &s))
	_, err := cmdhooks.New(cmdhooks.Config{Settings: s, WorkDir: t.TempDir()})
	require.Error(t, err)
	assert.ErrorContains(t, err, `hooks.PreToolUse[0].hooks[0].if: "Bash(git push": `)
}
