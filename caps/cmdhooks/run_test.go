//go:build unix

package cmdhooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newHooks makes the capability of settings (JSON) with cfg's other fields.
func newHooks(t *testing.T, settings string, cfg cmdhooks.Config) []hooks.Mount {
	t.Helper()
	require.NoError(t, json.Unmarshal([]byte(settings), &cfg.Settings))
	if cfg.WorkDir == "" {
		cfg.WorkDir = t.TempDir()
	}
	c, err := cmdhooks.New(cfg)
	require.NoError(t, err)
	return c.Mounts()
}

// afterTool runs every tool:after handler of ms on in, as the kernel's
// dispatch does, and returns the feedback of those that answered.
func afterTool(t *testing.T, ms []hooks.Mount, in kernel.ToolAfterIn) []kernel.ToolFeedback {
	t.Helper()
	var out []kernel.ToolFeedback
	for _, m := range ms {
		require.Equal(t, hooks.ToolAfter.Name, m.Point, m.Name)
		r, err := m.Handler(context.Background(), in)
		require.NoError(t, err, m.Name)
		if r.Handled {
			out = append(out, r.Value.(kernel.ToolFeedback))
		}
	}
	return out
}

// stdinTo is a command that saves its stdin in path.
func stdinTo(path string) string { return "cat > '" + path + "'" }

// Protects: PostToolUse runs only after a call that succeeded, and a failed
// call (here a Bash non-zero exit) runs PostToolUseFailure instead, with
// Claude Code's input (error, is_interrupt) and its answer reaching the
// model, both on tool:after.
func TestPostToolUseFailure(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	post, failure := filepath.Join(out, "post.json"), filepath.Join(out, "failure.json")
	ms := newHooks(t, `{
		"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": `+jsonString(stdinTo(post))+`}]}],
		"PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": `+jsonString(stdinTo(failure)+"; echo 'run the tests first' >&2; exit 2")+`}]}]
	}`, cmdhooks.Config{})
	call := hookdata.ToolCall{ID: "toolu_1", Name: "Bash", Arguments: json.RawMessage(`{"command":"make test"}`)}

	got := afterTool(t, ms, kernel.ToolAfterIn{SessionID: "s1", Call: call, Content: "ok\n"})
	assert.Empty(t, got, "PostToolUse answered nothing; PostToolUseFailure did not run")
	assert.FileExists(t, post)
	assert.NoFileExists(t, failure, "PostToolUseFailure after a call that succeeded")

	require.NoError(t, os.Remove(post))
	got = afterTool(t, ms, kernel.ToolAfterIn{SessionID: "s1", Call: call, Content: "FAIL\n[exit code 2]", IsError: true})
	assert.NoFileExists(t, post, "PostToolUse after a call that failed")
	require.FileExists(t, failure, "PostToolUseFailure did not run after a failed call")
	var in map[string]any
	require.NoError(t, json.Unmarshal([]byte(readFile(t, failure)), &in))
	assert.Equal(t, "PostToolUseFailure", in["hook_event_name"])
	assert.Equal(t, "Bash", in["tool_name"])
	assert.Equal(t, "toolu_1", in["tool_use_id"])
	assert.Equal(t, "FAIL\n[exit code 2]", in["error"])
	assert.Equal(t, false, in["is_interrupt"])
	assert.Equal(t, map[string]any{"command": "make test"}, in["tool_input"])
	assert.NotContains(t, in, "tool_response")
	assert.Equal(t, []kernel.ToolFeedback{{Context: "run the tests first"}}, got)
}

// Protects: hook commands inherit Helios's environment (what the person
// started it with), but for the secrets Helios holds: the variables named
// in Hide, HELIOS_*, and any variable whose value is a held secret; the
// work dir's CLAUDE_PROJECT_DIR wins over an inherited one.
func TestHooksInheritEnvironment(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "env")
	work := t.TempDir()
	ms := newHooks(t, `{"SessionEnd": [{"hooks": [{"type": "command", "command": `+jsonString("env > '"+out+"'")+`}]}]}`, cmdhooks.Config{
		WorkDir: work,
		Env: []string{
			"PATH=" + os.Getenv("PATH"),
			"SLACK_WEBHOOK_URL=https://hooks.example/T0",
			"MODEL_KEY=sk-ant-0123456789",
			"DATABASE_URL=postgres://u:pw@db/app",
			"SAME_KEY_ELSEWHERE=sk-ant-0123456789",
			"CONTAINS_KEY=x-sk-ant-0123456789",
			"HELIOS_POSTGRES_URL=postgres://u:pw@db/h",
			"CLAUDE_PROJECT_DIR=/somewhere/else",
		},
		Hide:    []string{"MODEL_KEY", "DATABASE_URL"},
		Secrets: redact.New("sk-ant-0123456789"),
	})
	require.Len(t, ms, 1)
	_, err := ms[0].Handler(context.Background(), kernel.SessionEndIn{SessionID: "s1"})
	require.NoError(t, err)
	env := strings.Split(strings.TrimSpace(readFile(t, out)), "\n")
	assert.Contains(t, env, "SLACK_WEBHOOK_URL=https://hooks.example/T0")
	assert.Contains(t, env, "CONTAINS_KEY=x-sk-ant-0123456789", "a value is compared whole")
	assert.Contains(t, env, "CLAUDE_PROJECT_DIR="+work)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		assert.NotContains(t, []string{"MODEL_KEY", "DATABASE_URL", "SAME_KEY_ELSEWHERE", "HELIOS_POSTGRES_URL"}, name, "a secret reached the hook")
	}
}

// Protects: with Env unset the commands inherit Helios's own environment,
// so a variable exported before helios starts is set inside every hook.
func TestHooksInheritProcessEnvironment(t *testing.T) {
	t.Setenv("CMDHOOKS_TEST_WEBHOOK", "https://hooks.example/T1")
	out := filepath.Join(t.TempDir(), "env")
	ms := newHooks(t, `{"SessionEnd": [{"hooks": [{"type": "command", "command": `+jsonString("env > '"+out+"'")+`}]}]}`, cmdhooks.Config{})
	_, err := ms[0].Handler(context.Background(), kernel.SessionEndIn{SessionID: "s1"})
	require.NoError(t, err)
	assert.Contains(t, strings.Split(readFile(t, out), "\n"), "CMDHOOKS_TEST_WEBHOOK=https://hooks.example/T1")
}

// Protects: each session's hooks get its own CLAUDE_ENV_FILE, made (with
// its folder) before the command runs, so `>> "$CLAUDE_ENV_FILE"` works.
func TestHooksGetEnvFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "sessions", "env")
	file := func(id string) string { return filepath.Join(dir, id+".sh") }
	ms := newHooks(t, `{"SessionEnd": [{"hooks": [{"type": "command", "command": "echo \"export FROM_HOOK=$CLAUDE_PROJECT_DIR\" >> \"$CLAUDE_ENV_FILE\""}]}]}`, cmdhooks.Config{
		WorkDir: "/work", EnvFile: file,
	})
	for _, id := range []string{"s1", "s2"} {
		_, err := ms[0].Handler(context.Background(), kernel.SessionEndIn{SessionID: id})
		require.NoError(t, err)
		assert.Equal(t, "export FROM_HOOK=/work\n", readFile(t, file(id)))
	}
	fi, err := os.Stat(file("s1"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the file is the person's alone")
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, names, 2)
	assert.True(t, slices.ContainsFunc(names, func(e os.DirEntry) bool { return e.Name() == "s2.sh" }))
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
