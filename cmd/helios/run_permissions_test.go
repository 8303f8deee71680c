package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// permConfig writes a config for srv with perms as its "permissions".
func permConfig(t *testing.T, dir, url, perms string) string {
	t.Helper()
	cfg := filepath.Join(dir, "helios.config.json")
	writeCmd(t, cfg, `{"skills": {"userRoots": []}, "tools": {"sandbox": {"mode": "off"}},
  "model": {"baseURL": "`+url+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(dir, "sessions")+`"}, "permissions": `+perms+`}`)
	return cfg
}

func bashCall(cmd string) modeltest.Step {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return modeltest.Calls(model.ToolCall{Name: "Bash", Arguments: args})
}

// toolResults are the tool_result lines of run --json's output.
func toolResults(t *testing.T, out string) []map[string]any {
	t.Helper()
	var res []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		if m["kind"] == "tool_result" {
			res = append(res, m)
		}
	}
	return res
}

// Protects: M799 (the decision left out of run --json). Each tool_result
// line carries the decision, the rule and the list; `helios run` has no
// one to ask, so an ask rule denies and the model is told which rule
// asked.
func TestRunJSONPermissionDecisions(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	srv := modeltest.NewServer(t, bashCall("rm -rf build"), bashCall("git push origin main"), bashCall("echo ok"), modeltest.Say("done"))
	cfg := permConfig(t, t.TempDir(), srv.URL(), `{"deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"]}`)

	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run(t.Context(), []string{"--work-dir", work, "--config", cfg, "--json", "run", "go"}, &out, &errOut), errOut.String())
	res := toolResults(t, out.String())
	require.Len(t, res, 3, out.String())
	perm := func(i int) map[string]any {
		p, _ := res[i]["permission"].(map[string]any)
		return p
	}
	assert.Equal(t, "deny", perm(0)["decision"])
	assert.Equal(t, "Bash(rm:*)", perm(0)["rule"])
	assert.Equal(t, "ask", perm(1)["decision"])
	assert.Equal(t, "Bash(git push:*)", perm(1)["rule"])
	assert.Equal(t, true, res[1]["isError"])
	assert.Contains(t, res[1]["text"], `the ask rule "Bash(git push:*)" asks the person to confirm this call, and no one can be asked`)
	assert.Equal(t, "defaultMode", perm(2)["list"])
	assert.Equal(t, false, res[2]["isError"])
}

// Protects: M800 (a slash command's allowed-tools ignored). In dontAsk
// mode only what is allowed runs: `helios run /name` pre-approves the
// command's allowed-tools for its turn, a plain prompt does not.
func TestRunSlashCommandAllowedToolsPreapprove(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	writeCmd(t, filepath.Join(work, ".claude/commands/hello.md"), "---\nallowed-tools: Bash(echo:*)\n---\nSay hello with echo.\n")
	srv := modeltest.NewServer(t, bashCall("echo hello"), modeltest.Say("done"), bashCall("echo hello"), modeltest.Say("done"))
	cfg := permConfig(t, t.TempDir(), srv.URL(), `{"defaultMode": "dontAsk"}`)

	for _, tc := range []struct {
		prompt, decision, list string
	}{{"/hello", "allow", "allowed-tools"}, {"say hello", "deny", "defaultMode"}} {
		var out, errOut bytes.Buffer
		require.Equal(t, exitOK, run(t.Context(), []string{"--work-dir", work, "--config", cfg, "--json", "run", tc.prompt}, &out, &errOut), errOut.String())
		res := toolResults(t, out.String())
		require.Len(t, res, 1, out.String())
		p, _ := res[0]["permission"].(map[string]any)
		assert.Equal(t, tc.decision, p["decision"], tc.prompt)
		assert.Equal(t, tc.list, p["list"], tc.prompt)
	}
}

// Protects: M1030 (the CLI reading ~/.helios/settings.json its own way).
// `helios permissions check` and a session read the user's settings through
// the one reader: the same file gives the same decision, rule and reason
// through both, and a key only a lenient decoder would take ("Deny") is the
// same config error naming the file and the JSON path in both.
func TestPermissionsCheckAndRunReadSettingsAlike(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	settings := filepath.Join(home, ".helios", "settings.json")
	srv := modeltest.NewServer(t, bashCall("rm -rf build"), modeltest.Say("done"))
	cfg := permConfig(t, t.TempDir(), srv.URL(), `{"allow": ["Bash(echo:*)"]}`)

	writeCmd(t, settings, `{"theme": "dark", "permissions": {"deny": ["Bash(rm:*)"]}}`)
	var out, errOut bytes.Buffer
	require.Equal(t, exitDeny, run(t.Context(), []string{"--work-dir", work, "--config", cfg, "--json", "permissions", "check", "Bash(rm -rf build)"}, &out, &errOut), errOut.String())
	var check map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &check), out.String())

	out.Reset()
	require.Equal(t, exitOK, run(t.Context(), []string{"--work-dir", work, "--config", cfg, "--json", "run", "go"}, &out, &errOut), errOut.String())
	res := toolResults(t, out.String())
	require.Len(t, res, 1, out.String())
	p, _ := res[0]["permission"].(map[string]any)
	assert.Equal(t, "deny", check["decision"])
	assert.Equal(t, check["decision"], p["decision"])
	assert.Equal(t, check["rule"], p["rule"])
	assert.Equal(t, check["reason"], p["reason"])
	assert.Contains(t, p["reason"], settings)

	writeCmd(t, settings, `{"permissions": {"Deny": ["Bash(rm:*)"]}}`)
	var checkErr, runErr bytes.Buffer
	assert.Equal(t, exitFail, run(t.Context(), []string{"--work-dir", work, "--config", cfg, "permissions", "check", "Bash(rm -rf build)"}, &out, &checkErr))
	assert.Equal(t, exitFail, run(t.Context(), []string{"--work-dir", work, "--config", cfg, "run", "go"}, &out, &runErr))
	for _, e := range []string{checkErr.String(), runErr.String()} {
		assert.Contains(t, e, settings)
		assert.Contains(t, e, "permissions.Deny: unknown key")
	}
}
