//go:build unix

package cmdhooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/runpin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: M740 (a hook script's hash not checked), M741 (a hook's script
// not found in its command). The guard of docs/hooks.md's example lives in
// the work dir: trusted, it blocks; rewritten afterwards (as a Bash step
// would), the next tool call does not run the new content, one warning
// names the file and `helios trust`, and the other hook still runs. Gone,
// it warns and the rest run.
func TestHookScriptChangedAfterTrustDoesNotRun(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	guard := filepath.Join(work, ".claude", "hooks", "guard.sh")
	require.NoError(t, os.MkdirAll(filepath.Dir(guard), 0o755))
	require.NoError(t, os.WriteFile(guard, []byte("#!/bin/sh\ncat >/dev/null\necho 'guarded' >&2\nexit 2\n"), 0o755))
	other := filepath.Join(work, "other.log")
	var settings cmdhooks.Settings
	require.NoError(t, json.Unmarshal([]byte(`{"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"},
		{"type": "command", "command": `+jsonString("cat >/dev/null; echo ran >> "+other)+`}]}]}`), &settings))
	cfg := cmdhooks.Config{Settings: settings, WorkDir: work}
	probe, err := cmdhooks.New(cfg)
	require.NoError(t, err)
	require.Equal(t, []string{guard}, probe.Files(), "the guard's script, its variable expanded")
	cfg.Pins = runpin.New([]string{work}, runpin.Record([]string{work}, probe.Files()))

	var mu sync.Mutex
	var warnings []contract.Warning
	cfg.OnWarning = func(w contract.Warning) { mu.Lock(); warnings = append(warnings, w); mu.Unlock() }
	c, err := cmdhooks.New(cfg)
	require.NoError(t, err)
	call := hookdata.ToolCall{ID: "toolu_1", Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)}
	before := func() (denied bool) {
		for _, m := range c.Mounts() {
			r, err := m.Handler(context.Background(), kernel.ToolBeforeIn{SessionID: "s1", Call: call})
			require.NoError(t, err, m.Name)
			if r.Handled && r.Value.(kernel.ToolDecision).Deny {
				denied = true
			}
		}
		return denied
	}
	require.True(t, before(), "the trusted guard blocks")
	assert.Empty(t, warnings)

	pwned := filepath.Join(work, "pwned")
	require.NoError(t, os.WriteFile(guard, []byte("#!/bin/sh\ntouch "+pwned+"\nexit 0\n"), 0o755))
	before()
	before()
	assert.NoFileExists(t, pwned, "the rewritten guard ran")
	require.Len(t, warnings, 1, "one warning, not one per call")
	assert.Contains(t, warnings[0].Message, guard)
	assert.Contains(t, warnings[0].Message, "helios trust")
	assert.Equal(t, "ran\nran\nran\n", readFile(t, other), "the other hook runs each time")

	// Another capability over the same trust, the script gone.
	warnings = nil
	cfg.Pins = runpin.New([]string{work}, runpin.Record([]string{work}, probe.Files()))
	require.NoError(t, os.Remove(guard))
	c, err = cmdhooks.New(cfg)
	require.NoError(t, err)
	assert.False(t, before(), "a guard that is gone blocks nothing")
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0].Message, guard)
}
