package assembly_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects: the "hooks" key may name a plugin's hooks/hooks.json relative
// to the config's folder: its description is allowed, its commands run
// with CLAUDE_PLUGIN_ROOT, and its unknown fields and the events Helios
// does not run are warnings naming them.
func TestHooksKeyNamesAPluginFile(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	plugin := filepath.Join(dir, "plugins", "notes")
	require.NoError(t, os.MkdirAll(filepath.Join(plugin, "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "hooks", "hooks.json"), []byte(`{
  "description": "Writes down where it lives",
  "hooks": {
    "SessionStart": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo \"$CLAUDE_PLUGIN_ROOT\" > \"$CLAUDE_PROJECT_DIR/root.txt\"", "async": false, "shell": "bash", "future": 1}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "true"}]}]
  }
}`), 0o600))
	srv := modeltest.NewServer(t) // the session opens, no turn runs
	cfgPath := filepath.Join(dir, "helios.config.json")
	require.NoError(t, os.WriteFile(cfgPath, []byte(`{
  "skills": {"userRoots": [], "projectRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(dir, "sessions")+`"},
  "tools": {"sandbox": {"mode": "off"}},
  "hooks": "plugins/notes/hooks/hooks.json"
}`), 0o600))

	cfg, base, err := assembly.ReadConfig(cfgPath)
	require.NoError(t, err)
	var warns []string
	k, err := assembly.Build(t.Context(), cfg, assembly.Options{BaseDir: base, WorkDir: work, OnWarning: func(w contract.Warning) {
		warns = append(warns, w.Path+": "+w.Message)
	}})
	require.NoError(t, err)
	defer k.Close()
	all := strings.Join(warns, "\n")
	assert.Contains(t, all, "Notification")
	assert.Contains(t, all, filepath.Join(plugin, "hooks", "hooks.json")+": hooks.SessionStart[0].hooks[0].future: unknown field")

	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	got, err := os.ReadFile(filepath.Join(work, "root.txt"))
	require.NoError(t, err)
	assert.Equal(t, plugin+"\n", string(got))
}

// Protects: every problem of the "hooks" key is reported at once, each with
// its JSON path and real cause, the hooks file named.
func TestHooksProblemsAllAtOnce(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h.json"), []byte(`{"hooks": {"Stop": [{"hooks": [
		{"type": "agent", "prompt": "check", "model": "haiku"},
		{"type": "command", "command": "true", "if": "Bash(rm *)"}]}]}}`), 0o600))
	_, err := assembly.ParseConfig(filepath.Join(dir, "helios.config.json"), []byte(`{"hooks": "h.json"}`))
	require.ErrorIs(t, err, assembly.ErrConfig)
	at := filepath.Join(dir, "h.json") + ": hooks.Stop[0].hooks"
	assert.Contains(t, err.Error(), at+`[0].type: "agent" hooks are not supported`)
	assert.Contains(t, err.Error(), at+`[1].if: "if" filters tool calls, and Stop has none`)
	assert.NotContains(t, err.Error(), "unknown key")

	_, err = assembly.ParseConfig("c.json", []byte(`{"hooks": {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./x.sh"}]}}}`))
	require.ErrorIs(t, err, assembly.ErrConfig)
	assert.Contains(t, err.Error(), "hooks: this is a GitHub Copilot hooks file")
}
