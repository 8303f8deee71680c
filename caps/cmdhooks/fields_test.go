package cmdhooks_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
)

// promptHook makes the capability of one UserPromptSubmit command and
// returns its handler.
func promptHook(t *testing.T, c cmdhooks.Command, pluginRoot string) (*cmdhooks.Hooks, hooks.Handler) {
	t.Helper()
	c.Type = "command"
	h, err := cmdhooks.New(cmdhooks.Config{
		Settings:   cmdhooks.Settings{cmdhooks.UserPromptSubmit: {{Hooks: []cmdhooks.Command{c}}}},
		WorkDir:    t.TempDir(),
		PluginRoot: pluginRoot,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	ms := h.Mounts()
	require.Len(t, ms, 1)
	return h, ms[0].Handler
}

func prompt(t *testing.T, handler hooks.Handler, session string) hooks.Result {
	t.Helper()
	r, err := handler(t.Context(), kernel.PromptSubmitIn{SessionID: session, Prompt: "go"})
	require.NoError(t, err)
	return r
}

// Protects: an async hook runs in the background: the call goes on before
// it ends, and its exit 2 blocks nothing.
func TestAsyncHookRunsInBackground(t *testing.T) {
	dir := t.TempDir()
	fifo, done := filepath.Join(dir, "go"), filepath.Join(dir, "done")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	h, handler := promptHook(t, cmdhooks.Command{
		// It waits for the test to let it go: had the call waited for it,
		// the call would have ended by its timeout instead.
		Command: "cat >/dev/null; cat " + fifo + " >/dev/null; echo ran > " + done + "; echo no >&2; exit 2",
		Async:   true, Timeout: new(float64(5)),
	}, "")
	r := prompt(t, handler, "s1")
	assert.False(t, r.Handled, "an async hook neither blocks nor adds context")
	require.NoError(t, os.WriteFile(fifo, []byte("go\n"), 0o600)) // blocks until the hook reads
	require.NoError(t, h.Close())                                 // waits for it
	assert.FileExists(t, done)
}

// Protects: a once hook runs once per session.
func TestOnceHookRunsOncePerSession(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	_, handler := promptHook(t, cmdhooks.Command{Command: "cat >/dev/null; echo x >> " + count, Once: true}, "")
	for _, s := range []string{"s1", "s1", "s2", "s1"} {
		prompt(t, handler, s)
	}
	data, err := os.ReadFile(count)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(data), "x"), "once in s1, once in s2")
}

// Protects: "shell": "powershell" runs the command with pwsh -Command, and
// without pwsh on PATH it is an error naming the hook.
func TestPowerShellHook(t *testing.T) {
	bin := t.TempDir()
	args := filepath.Join(t.TempDir(), "args")
	t.Setenv("PATH", bin)
	_, err := cmdhooks.New(cmdhooks.Config{Settings: cmdhooks.Settings{cmdhooks.Stop: {{Hooks: []cmdhooks.Command{{Type: "command", Command: "Write-Output hi", Shell: "powershell"}}}}}, WorkDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `hooks.Stop[0].hooks[0].shell: "powershell" runs the command with pwsh, which is not on PATH`)

	// A pwsh that records how it was called.
	require.NoError(t, os.WriteFile(filepath.Join(bin, "pwsh"), []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > "+args+"\n"), 0o755))
	_, handler := promptHook(t, cmdhooks.Command{Command: "Write-Output hi", Shell: "powershell"}, "")
	prompt(t, handler, "s1")
	data, err := os.ReadFile(args)
	require.NoError(t, err)
	assert.Equal(t, "-NoProfile\n-NonInteractive\n-Command\nWrite-Output hi\n", string(data))
}

// Protects: a plugin's hooks get CLAUDE_PLUGIN_ROOT; other hooks do not.
func TestPluginRootEnv(t *testing.T) {
	root := t.TempDir()
	_, handler := promptHook(t, cmdhooks.Command{Command: `cat >/dev/null; echo "root=${CLAUDE_PLUGIN_ROOT-unset}"`}, root)
	r := prompt(t, handler, "s1")
	require.True(t, r.Handled)
	assert.Equal(t, "root="+root, r.Value.(kernel.PromptDecision).Context)

	_, handler = promptHook(t, cmdhooks.Command{Command: `cat >/dev/null; echo "root=${CLAUDE_PLUGIN_ROOT-unset}"`}, "")
	assert.Equal(t, "root=unset", prompt(t, handler, "s1").Value.(kernel.PromptDecision).Context)
}

// Protects: a plugin's hooks get all three dialects' root variables —
// CLAUDE_PLUGIN_ROOT, PLUGIN_ROOT, CODEX_PLUGIN_ROOT — naming its folder,
// and the capability takes the name it is given.
func TestPluginRootEnvEveryDialect(t *testing.T) {
	root := t.TempDir()
	h, handler := promptHook(t, cmdhooks.Command{Command: `cat >/dev/null; echo "${CLAUDE_PLUGIN_ROOT-unset} ${PLUGIN_ROOT-unset} ${CODEX_PLUGIN_ROOT-unset}"`}, root)
	assert.Equal(t, root+" "+root+" "+root, prompt(t, handler, "s1").Value.(kernel.PromptDecision).Context)
	assert.Equal(t, cmdhooks.Name, h.Name())

	named, err := cmdhooks.New(cmdhooks.Config{Name: "plugin:kit:hooks", WorkDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, "plugin:kit:hooks", named.Name())
}

// Protects: a hook's statusMessage is logged when the command starts.
func TestStatusMessageLogged(t *testing.T) {
	var log bytes.Buffer
	h, err := cmdhooks.New(cmdhooks.Config{
		Settings: cmdhooks.Settings{cmdhooks.UserPromptSubmit: {{Hooks: []cmdhooks.Command{{Type: "command", Command: "cat >/dev/null", StatusMessage: "Checking the prompt"}}}}},
		WorkDir:  t.TempDir(),
		Logger:   slog.New(slog.NewTextHandler(&log, nil)),
	})
	require.NoError(t, err)
	defer h.Close()
	prompt(t, h.Mounts()[0].Handler, "s1")
	assert.Contains(t, log.String(), `hook=hooks.UserPromptSubmit[0].hooks[0] status="Checking the prompt"`)
}
