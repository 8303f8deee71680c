package assembly_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects: M740, M743 (the config named with --config not hashed at
// load). Probe 2 through the step loop: the guard of docs/hooks.md's
// example lives in the work dir; a Bash step rewrites it; the next tool
// calls do not run the new content, and one warning names the file and
// `helios trust`.
func TestHookScriptRewrittenByBashStepDoesNotRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	work, out := t.TempDir(), t.TempDir()
	log := filepath.Join(out, "guard.log")
	guard := filepath.Join(work, ".claude", "hooks", "guard.sh")
	spineWriteFile(t, guard, "#!/bin/sh\ncat >/dev/null\necho v1 >> "+log+"\n")
	require.NoError(t, os.Chmod(guard, 0o755))
	rewrite := "printf '#!/bin/sh\\\\necho v2 >> " + log + "\\\\n' > .claude/hooks/guard.sh"
	srv := modeltest.NewServer(t,
		spineCall("b1", "Bash", `{"command":"`+rewrite+`"}`),
		spineCall("b2", "Bash", `{"command":"echo one"}`),
		spineCall("b3", "Bash", `{"command":"echo two"}`),
		modeltest.Say("done"),
	)
	cfgPath := filepath.Join(work, "helios.config.json")
	spineWriteFile(t, cfgPath, `{
  "skills": {"userRoots": [], "projectRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(out, "sessions")+`"},
  "tools": {"sandbox": {"mode": "off"}},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"}]}]}
}`)
	var mu sync.Mutex
	var warns []string
	k, err := assembly.Load(ctx, cfgPath, assembly.Options{WorkDir: work, OnWarning: func(w contract.Warning) {
		mu.Lock()
		defer mu.Unlock()
		warns = append(warns, w.Message)
	}})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	answer, err := s.Run(ctx, "go")
	require.NoError(t, err)
	require.Equal(t, "done", answer)

	got, err := os.ReadFile(guard)
	require.NoError(t, err)
	require.Contains(t, string(got), "v2", "the Bash step rewrote the guard")
	logged, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, "v1\n", string(logged), "the guard ran as trusted once, then never as rewritten")
	mu.Lock()
	defer mu.Unlock()
	var about []string
	for _, w := range warns {
		if strings.Contains(w, guard) {
			about = append(about, w)
		}
	}
	require.Len(t, about, 1, "%q", warns)
	assert.Contains(t, about[0], "helios trust")
}

// Protects: M744 (a stdio server runs in the work dir). Without "cwd" a
// stdio server runs in a folder the model cannot write: the config's
// folder when it lies outside the work dir, the home directory when the
// config is in the work dir; "cwd" still chooses.
func TestMCPServerWorkingDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := func(cfgDir, work, extra string) string {
		t.Helper()
		path := filepath.Join(cfgDir, "helios.config.json")
		spineWriteFile(t, path, `{"skills": {"userRoots": [], "projectRoots": []}, "sessions": {"dir": "`+filepath.Join(home, "sessions")+`"},
  "mcp": {"servers": {"s": {"command": "/bin/true"`+extra+`, "startTimeout": "5s"}}}}`)
		k, err := assembly.Load(t.Context(), path, assembly.Options{WorkDir: work})
		require.NoError(t, err)
		defer k.Close()
		return mcpServers(t, k)["s"].Config().Dir
	}
	work, cfgDir := t.TempDir(), t.TempDir()
	assert.Equal(t, cfgDir, dir(cfgDir, work, ""), "config outside the work dir")
	assert.Equal(t, home, dir(work, work, ""), "config in the work dir")
	assert.Equal(t, filepath.Join(work, "sub"), dir(cfgDir, work, `, "cwd": "sub"`))
}

// Protects: M747 (a ${VAR} of mcp.servers.*.args not redacted). Claude
// Code expands ${VAR} in args, so Helios does too; the value is a secret
// of the kernel's set (redacted from the session, logs and what the CLI
// prints: mcp list shows the command line), except the variables every
// command has (HOME).
func TestMCPArgsVariablesRedacted(t *testing.T) {
	t.Setenv("ARGS_TEST_TOKEN", "ghp_argsecretvalue123")
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	path := filepath.Join(dir, "helios.config.json")
	spineWriteFile(t, path, `{"skills": {"userRoots": [], "projectRoots": []}, "sessions": {"dir": "`+filepath.Join(dir, "sessions")+`"},
  "mcp": {"servers": {"s": {"command": "/bin/false", "args": ["--token=${ARGS_TEST_TOKEN}", "${HOME}/x"], "startTimeout": "5s"}}}}`)
	secrets := redact.New()
	k, err := assembly.Load(t.Context(), path, assembly.Options{WorkDir: dir, Secrets: secrets})
	require.NoError(t, err)
	defer k.Close()
	st := mcpServers(t, k)["s"].Status()
	require.Contains(t, st.Target, "ghp_argsecretvalue123", "the server gets the value")
	shown := secrets.String(st.Target)
	assert.NotContains(t, shown, "ghp_argsecretvalue123")
	assert.Contains(t, shown, "--token="+redact.Mark)
	assert.Contains(t, shown, home+"/x", "HOME is no secret")
}

// Protects: M749 (a plugin's pinned executable not checked). A plugin
// whose executable lies in the work dir and is not what the trust
// recorded is not launched: one warning names it and `helios trust`, and
// the kernel assembles without it.
func TestPluginExecutableChangedAfterTrustIsOff(t *testing.T) {
	work := t.TempDir()
	plugin := filepath.Join(work, "bin", "plugin")
	spineWriteFile(t, plugin, "#!/bin/sh\necho planted\n")
	require.NoError(t, os.Chmod(plugin, 0o755))
	cfg, err := assembly.ParseConfig(filepath.Join(work, "helios.config.json"), []byte(`{
  "skills": {"userRoots": [], "projectRoots": []}, "sessions": {"dir": "`+filepath.Join(t.TempDir(), "sessions")+`"},
  "plugins": [{"name": "p", "command": "bin/plugin"}]}`))
	require.NoError(t, err)
	var warns []string
	trusted := map[string]string{plugin: strings.Repeat("0", 64)}
	k, err := assembly.Build(t.Context(), cfg, assembly.Options{BaseDir: work, WorkDir: work, Trusted: trusted,
		OnWarning: func(w contract.Warning) { warns = append(warns, w.Path+": "+w.Message) }})
	require.NoError(t, err)
	defer k.Close()
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], "plugins[0]: ")
	assert.Contains(t, warns[0], plugin)
	assert.Contains(t, warns[0], "helios trust")
}
