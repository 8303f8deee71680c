package unit_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: M461 and M466 through the CLI. `helios run` shows a hook past
// its timeout as one warning line naming the hook and the limit, and the
// call goes on; a call a hook wants confirmed is denied (nobody can be
// asked) and the model is told why; `helios hooks describe` lists the
// command hooks with origin "command".
func TestCmdHooksCLI(t *testing.T) {
	home, dir, cfgDir := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(cfgDir, "slow.sh"), "#!/bin/sh\nsleep 300\n")
	writeFile(t, filepath.Join(cfgDir, "ask.sh"), "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"writes need a look\"}}'\n")
	srv := modeltest.NewServer(t,
		modeltest.Call("Bash", `{"command": "echo went-on"}`),
		modeltest.Call("Write", `{"path": "w.txt", "content": "x"}`),
		modeltest.Say("done"))
	cfg := filepath.Join(cfgDir, "helios.config.json")
	writeFile(t, cfg, `{
  "skills": {"userRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(home, "sessions")+`"},
  "tools": {"sandbox": {"mode": "off"}},
  "hooks": {"PreToolUse": [
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "sh `+filepath.Join(cfgDir, "slow.sh")+`", "timeout": 1}]},
    {"matcher": "Write", "hooks": [{"type": "command", "command": "sh `+filepath.Join(cfgDir, "ask.sh")+`"}]}]}
}`)

	r := helios(t, home, dir, "run", "--config", cfg, "go")
	require.Zero(t, r.code, "helios run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	warnLines := 0
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "! ") {
			warnLines++
			assert.Contains(t, line, "hooks.PreToolUse[0].hooks[0]")
			assert.Contains(t, line, "timeout of 1s")
		}
	}
	assert.Equal(t, 1, warnLines, "one warning line:\n%s", r.stdout)
	assert.Contains(t, r.stdout, "went-on", "the Bash call went on")
	assert.Contains(t, srv.Requests()[2].Last().Content, "not interactive", "the model is told why the Write was denied")
	assert.NoFileExists(t, filepath.Join(dir, "w.txt"))

	r = helios(t, home, dir, "hooks", "describe", "--json", "--config", cfg)
	require.Zero(t, r.code, "hooks describe: %s", r.stderr)
	var desc struct {
		Points []struct {
			Name     string `json:"name"`
			Handlers []struct{ Name, Origin string }
		} `json:"points"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &desc), r.stdout)
	var origins []string
	for _, p := range desc.Points {
		if p.Name == "tool:before" {
			for _, h := range p.Handlers {
				origins = append(origins, h.Origin+" "+h.Name)
			}
		}
	}
	require.Len(t, origins, 2, "tool:before handlers: %v", origins)
	// The name is the JSON path and the command, shortened past 60 runes.
	assert.True(t, strings.HasPrefix(origins[0], "command hooks.PreToolUse[0].hooks[0] (sh /"), origins[0])
	assert.True(t, strings.HasPrefix(origins[1], "command hooks.PreToolUse[1].hooks[0] (sh /"), origins[1])
}

// Protects: C18 for hooks — the hooks of an untrusted work-dir config never
// run: `hooks describe` lists no command handler until `helios trust`.
func TestCmdHooksUntrustedConfigRunsNoHook(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "helios.config.json"), `{"skills": {"userRoots": []},
  "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]}}`)
	commands := func() int {
		t.Helper()
		r := helios(t, home, dir, "hooks", "describe", "--json")
		require.Zero(t, r.code, "hooks describe: %s", r.stderr)
		return strings.Count(r.stdout, `"origin": "command"`)
	}
	assert.Zero(t, commands(), "an untrusted config's hooks are mounted")
	r := helios(t, home, dir, "trust")
	require.Zero(t, r.code, "helios trust: %s", r.stderr)
	assert.Equal(t, 1, commands(), "the trusted config's hook is mounted")
	assert.NoFileExists(t, filepath.Join(dir, "pwned"))
}
