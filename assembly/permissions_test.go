package assembly_test

// The "permissions" key (C31) of helios.config.json and of the user's
// ~/.helios/settings.json, through an assembled kernel and a scripted model.

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model/modeltest"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// permRun assembles a kernel from a config holding perms (a JSON object,
// "" for none) over a scripted model that runs `rm victim` with Bash, then
// `echo still here`, and answers "done"; it returns the work dir and the
// session's tool results.
func permRun(t *testing.T, perms string) (string, []session.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, "victim"), []byte("keep me"), 0o644))
	srv := modeltest.NewServer(t,
		spineCall("b1", "Bash", `{"command":"echo cleaning && rm victim"}`),
		spineCall("b2", "Bash", `{"command":"echo still here"}`),
		modeltest.Say("done"))
	cfg := `{"workDir": ".", "skills": {"userRoots": []}, "tools": {"sandbox": {"mode": "off"}},
  "model": {"baseURL": "` + srv.URL() + `", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "` + filepath.Join(t.TempDir(), "sessions") + `"}`
	if perms != "" {
		cfg += `, "permissions": ` + perms
	}
	cfg += "}"
	path := filepath.Join(work, "helios.config.json")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	k, err := assembly.Load(ctx, path, assembly.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	answer, err := s.Run(ctx, "clean up")
	require.NoError(t, err)
	assert.Equal(t, "done", answer, "the turn goes on after a denial")
	var res []session.Event
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.ToolResult {
			res = append(res, ev)
		}
	}
	require.Len(t, res, 2)
	return work, res
}

// Protects: M794 (the config's permissions not wired to the kernel). A
// deny rule blocks `rm` even chained after an allowed command; the model
// reads the rule; the next call runs; the log records both decisions.
func TestPermissionsDenyRuleInARun(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	work, res := permRun(t, `{"deny": ["Bash(rm:*)"]}`)
	assert.FileExists(t, filepath.Join(work, "victim"), "the denied rm ran")
	assert.True(t, res[0].IsError)
	assert.Contains(t, res[0].Text, `"Bash(rm:*)"`, "the model is told the rule")
	assert.Equal(t, "deny", res[0].Meta[kernel.PermissionDecisionKey])
	assert.Equal(t, "Bash(rm:*)", res[0].Meta[kernel.PermissionRuleKey])
	assert.False(t, res[1].IsError, "the next call: %s", res[1].Text)
	assert.Contains(t, res[1].Text, "still here")
	assert.Equal(t, "allow", res[1].Meta[kernel.PermissionDecisionKey])
}

// Protects: M795 (user settings not applied). The permissions of
// ~/.helios/settings.json apply when the project has none; its other keys
// are left alone.
func TestPermissionsUserSettings(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".helios"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".helios", "settings.json"),
		[]byte(`{"theme": "dark", "permissions": {"deny": ["Bash(rm:*)"]}}`), 0o644))
	work, res := permRun(t, "")
	assert.FileExists(t, filepath.Join(work, "victim"), "the user's deny rule was not applied")
	assert.Contains(t, res[0].Text, `"Bash(rm:*)"`)
	assert.Contains(t, res[0].Text, "settings.json", "the reason names the file of the rule")
}

// Without any permissions the log stays as it was: no decision recorded.
func TestPermissionsNoneNoMeta(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	work, res := permRun(t, "")
	assert.NoFileExists(t, filepath.Join(work, "victim"))
	assert.Empty(t, res[0].Meta[kernel.PermissionDecisionKey])
}

// Bad rules are config errors naming the file, the JSON path and the
// position, all at once; a broken or bad user settings file is an error
// naming it; a missing one is fine.
func TestPermissionsBadInput(t *testing.T) {
	_, err := assembly.ParseConfig("helios.config.json", []byte(`{"permissions": {"allow": ["Read", "Bash(ls"], "deny": ["(x)"], "defaultMode": "yolo"}}`))
	require.ErrorIs(t, err, assembly.ErrConfig)
	assert.ErrorContains(t, err, "helios.config.json: ")
	assert.ErrorContains(t, err, "permissions.allow[1]")
	assert.ErrorContains(t, err, "permissions.deny[0]")
	assert.ErrorContains(t, err, "permissions.defaultMode")
	_, err = assembly.ParseConfig("helios.config.json", []byte(`{"permissions": {"allowed": ["Read"]}}`))
	assert.ErrorContains(t, err, "permissions.allowed: unknown key")

	for _, tc := range []struct{ name, settings, want string }{
		{"not JSON", `{"permissions": `, "settings.json"},
		{"bad rule", `{"permissions": {"ask": ["Bash(git push"]}}`, "permissions.ask[0]"},
		{"unknown key", `{"permissions": {"denny": []}}`, "permissions.denny: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			file := filepath.Join(home, ".helios", "settings.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
			require.NoError(t, os.WriteFile(file, []byte(tc.settings), 0o644))
			_, err := assembly.Build(t.Context(), assembly.Config{}, assembly.Options{BaseDir: t.TempDir()})
			require.ErrorIs(t, err, assembly.ErrConfig)
			assert.ErrorContains(t, err, file)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
