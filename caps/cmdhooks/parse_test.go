package cmdhooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/cmdhooks"
)

// problems is every problem of src, Check's included, as assembly reports
// them.
func problems(src cmdhooks.Source) []string {
	out := append([]string(nil), src.Problems...)
	for _, p := range cmdhooks.Check(src.Settings) {
		if src.File != "" {
			p = src.File + ": " + p
		}
		out = append(out, p)
	}
	return out
}

// Protects: every handler field Claude Code documents for a command hook
// is accepted and read.
func TestParseAcceptsClaudeCodeFields(t *testing.T) {
	src := cmdhooks.Parse([]byte(`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh",
		"timeout": 5, "async": true, "shell": "bash", "once": true, "statusMessage": "Guarding…"}]}]}`), t.TempDir())
	require.Empty(t, problems(src))
	assert.Empty(t, src.Warnings)
	c := src.Settings[cmdhooks.PreToolUse][0].Hooks[0]
	assert.Equal(t, "./guard.sh", c.Command)
	require.NotNil(t, c.Timeout)
	assert.InDelta(t, 5, *c.Timeout, 0)
	assert.True(t, c.Async)
	assert.True(t, c.Once)
	assert.Equal(t, "bash", c.Shell)
	assert.Equal(t, "Guarding…", c.StatusMessage)
}

// Protects: keys of a newer Claude Code are one warning each, named by
// JSON path, and the rest of the hook is read.
func TestParseUnknownFieldsWarn(t *testing.T) {
	src := cmdhooks.Parse([]byte(`{"Stop": [{"matcher": "", "label": "x", "hooks": [{"type": "command", "command": "true", "asyncRewake": true, "onFailure": "ignore"}]}]}`), t.TempDir())
	require.Empty(t, problems(src))
	assert.Equal(t, []string{
		"hooks.Stop[0].hooks[0].asyncRewake: unknown field (of a newer Claude Code?): ignored",
		"hooks.Stop[0].hooks[0].onFailure: unknown field (of a newer Claude Code?): ignored",
		"hooks.Stop[0].label: unknown field (of a newer Claude Code?): ignored",
	}, src.Warnings)
	assert.Equal(t, "true", src.Settings[cmdhooks.Stop][0].Hooks[0].Command)
}

// Protects: every problem of a hooks value is reported at once, each by
// its JSON path and with its real cause.
func TestParseReportsEveryProblem(t *testing.T) {
	src := cmdhooks.Parse([]byte(`{
		"Stop": [{"hooks": [
			{"type": "agent", "prompt": "are the tests green?", "model": "sonnet"},
			{"type": "prompt", "prompt": "done?"},
			{"type": "command", "command": "true", "timeout": "5s"},
			{"type": "command", "command": "true", "if": "Bash(git *)"},
			{"type": "command", "command": "true", "shell": "zsh"},
			{"type": "command", "async": "yes", "command": "true"}]}],
		"PreToolUse": "nope"}`), t.TempDir())
	got := strings.Join(problems(src), "\n")
	for _, want := range []string{
		`hooks.Stop[0].hooks[0].type: "agent" hooks are not supported`,
		`hooks.Stop[0].hooks[1].type: "prompt" hooks are not supported`,
		`hooks.Stop[0].hooks[2].timeout: want a number, got a string`,
		`hooks.Stop[0].hooks[3].if: "if" filters tool calls, and Stop has none`,
		`hooks.Stop[0].hooks[4].shell: "zsh" is not a shell Claude Code knows`,
		`hooks.Stop[0].hooks[5].async: want a boolean, got a string`,
		`hooks.PreToolUse: want a list, got a string`,
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "model", "an agent hook's keys are not problems of their own")
	assert.Len(t, problems(src), 7, got)
	assert.Empty(t, src.Warnings)
}

// Protects: a GitHub Copilot hooks file is named as such, with the shape
// Helios reads, inline or as a file.
func TestParseCopilotHooks(t *testing.T) {
	const copilot = `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "echo hi", "timeoutSec": 10}]}}`
	inline := cmdhooks.Parse([]byte(copilot), t.TempDir())
	require.Len(t, inline.Problems, 1)
	assert.Contains(t, inline.Problems[0], "hooks: this is a GitHub Copilot hooks file")
	assert.Contains(t, inline.Problems[0], `"SessionStart": [{"matcher"`)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "copilot.json"), []byte(copilot), 0o600))
	file := cmdhooks.Parse([]byte(`"copilot.json"`), dir)
	require.Len(t, file.Problems, 1)
	assert.Contains(t, file.Problems[0], filepath.Join(dir, "copilot.json")+": (top level): this is a GitHub Copilot hooks file")

	// Its commands pasted alone into Claude Code's shape.
	cmds := cmdhooks.Parse([]byte(`{"SessionStart": [{"hooks": [{"type": "command", "bash": "echo hi", "timeoutSec": 10}]}]}`), dir)
	got := strings.Join(problems(cmds), "\n")
	assert.Contains(t, got, "hooks.SessionStart[0].hooks[0]: this is a GitHub Copilot hooks file")
}

// Protects: the hooks key names a hooks file relative to the config's
// folder; its description is allowed; a plugin's hooks/hooks.json gives
// the plugin root; a missing file is a problem naming it.
func TestParseHooksFile(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "plugins", "guard")
	require.NoError(t, os.MkdirAll(filepath.Join(plugin, "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "hooks", "hooks.json"), []byte(`{"description": "Guards Bash",
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh", "retries": 2}]}]}}`), 0o600))

	src := cmdhooks.Parse([]byte(`"plugins/guard/hooks/hooks.json"`), dir)
	require.Empty(t, problems(src))
	assert.Equal(t, filepath.Join(plugin, "hooks", "hooks.json"), src.File)
	assert.Equal(t, plugin, src.PluginRoot)
	assert.Equal(t, "Guards Bash", src.Description)
	assert.Equal(t, "${CLAUDE_PLUGIN_ROOT}/guard.sh", src.Settings[cmdhooks.PreToolUse][0].Hooks[0].Command)
	assert.Equal(t, []string{src.File + ": hooks.PreToolUse[0].hooks[0].retries: unknown field (of a newer Claude Code?): ignored"}, src.Warnings)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.json"), []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "agent"}]}]}}`), 0o600))
	other := cmdhooks.Parse([]byte(`"mine.json"`), dir)
	assert.Empty(t, other.PluginRoot, "only <root>/hooks/hooks.json is a plugin's")
	assert.Equal(t, []string{filepath.Join(dir, "mine.json") + `: hooks.Stop[0].hooks[0].type: "agent" hooks are not supported: Helios runs "command" hooks only`}, problems(other))

	missing := cmdhooks.Parse([]byte(`"nope.json"`), dir)
	require.Len(t, missing.Problems, 1)
	assert.Contains(t, missing.Problems[0], filepath.Join(dir, "nope.json"))
}

// Protects: published plugin hook files load unchanged (testdata/real,
// see its README).
func TestRealHookFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "real", "*", "hooks", "hooks.json"))
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, f := range files {
		abs, err := filepath.Abs(f)
		require.NoError(t, err)
		src := cmdhooks.ParseFile(abs)
		assert.Empty(t, problems(src), f)
		assert.True(t, cmdhooks.Configured(src.Settings), f)
		assert.Equal(t, filepath.Dir(filepath.Dir(abs)), src.PluginRoot, f)
		_, err = cmdhooks.New(cmdhooks.Config{Settings: src.Settings, WorkDir: t.TempDir(), PluginRoot: src.PluginRoot})
		assert.NoError(t, err, f)
	}
	audit, err := filepath.Abs(filepath.Join("testdata", "real", "audit-trail", "hooks", "hooks.json"))
	require.NoError(t, err)
	assert.Equal(t, []string{audit + ": hooks.SessionStart[0].hooks[0].additionalContextLimit: unknown field (of a newer Claude Code?): ignored"},
		cmdhooks.ParseFile(audit).Warnings)
}

// Protects: an unset timeout is Claude Code's default, 600 s.
func TestDefaultTimeout(t *testing.T) {
	info := cmdhooks.Describe(cmdhooks.Settings{cmdhooks.Stop: {{Hooks: []cmdhooks.Command{{Type: "command", Command: "true"}}}}})
	require.Len(t, info, 1)
	assert.InDelta(t, 600, info[0].TimeoutSeconds, 0)
	assert.Equal(t, "bash", info[0].Shell)
}
