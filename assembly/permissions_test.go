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
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
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

// Protects: M1032 (a tools-mode skill tool not decided as Skill(name)). In
// skills.mode "tools" each skill is a tool of its own name: Skill(name)
// rules decide it as they decide the catalog tool loading it, and plan mode
// counts it among the read-only tools.
func TestPermissionsSkillRuleInToolsMode(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, tc := range []struct {
		perms, decision, rule string
	}{
		{`{"deny": ["Skill(deploy*)"]}`, "deny", "Skill(deploy*)"},
		{`{"defaultMode": "plan"}`, "allow", ""},
	} {
		t.Run(tc.perms, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			work := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(work, ".helios", "skills", "deployer"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(work, ".helios", "skills", "deployer", "SKILL.md"),
				[]byte("---\nname: deployer\ndescription: Deploys the app.\n---\nRun the deploy.\n"), 0o644))
			srv := modeltest.NewServer(t, spineCall("s1", "deployer", `{}`), modeltest.Say("done"))
			path := filepath.Join(work, "helios.config.json")
			require.NoError(t, os.WriteFile(path, []byte(`{"workDir": ".", "skills": {"userRoots": [], "mode": "tools"},
  "tools": {"sandbox": {"mode": "off"}}, "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(t.TempDir(), "sessions")+`"}, "permissions": `+tc.perms+`}`), 0o644))
			k, err := assembly.Load(ctx, path, assembly.Options{})
			require.NoError(t, err)
			t.Cleanup(func() { k.Close() })
			s, err := k.OpenSession(ctx, kernel.SessionConfig{})
			require.NoError(t, err)
			t.Cleanup(func() { s.Close() })
			_, err = s.Run(ctx, "deploy")
			require.NoError(t, err)
			var res []session.Event
			for i := range s.Log().Len() {
				if ev := s.Log().At(i); ev.Type == session.ToolResult {
					res = append(res, ev)
				}
			}
			require.Len(t, res, 1)
			assert.Equal(t, tc.decision, res[0].Meta[kernel.PermissionDecisionKey], res[0].Text)
			assert.Equal(t, tc.rule, res[0].Meta[kernel.PermissionRuleKey])
			assert.Equal(t, tc.decision == "deny", res[0].IsError, res[0].Text)
		})
	}
}

// Protects: M1036 (Read deny rules not wired to Glob). A Glob whose pattern
// would list a file a Read deny rule covers runs, but leaves that file out,
// as Claude Code's Glob does; the files no deny rule covers are listed.
func TestPermissionsReadDenyHidesFromGlob(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	work := t.TempDir()
	for _, f := range []string{".env", "secrets/key.pem", "main.go"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(work, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(work, f), []byte("x"), 0o644))
	}
	srv := modeltest.NewServer(t, spineCall("g1", "Glob", `{"pattern":"**"}`), modeltest.Say("done"))
	path := filepath.Join(work, "helios.config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"workDir": ".", "skills": {"userRoots": []},
  "tools": {"sandbox": {"mode": "off"}}, "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(t.TempDir(), "sessions")+`"},
  "permissions": {"deny": ["Read(./.env)", "Read(secrets/**)"], "ask": ["Read(main.go)"]}}`), 0o644))
	k, err := assembly.Load(ctx, path, assembly.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	_, err = s.Run(ctx, "list")
	require.NoError(t, err)
	var res []session.Event
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.ToolResult {
			res = append(res, ev)
		}
	}
	require.Len(t, res, 1)
	require.False(t, res[0].IsError, res[0].Text)
	assert.Contains(t, res[0].Text, "main.go", "an ask rule hides nothing")
	assert.Contains(t, res[0].Text, "helios.config.json")
	assert.NotContains(t, res[0].Text, ".env")
	assert.NotContains(t, res[0].Text, "key.pem")
}
