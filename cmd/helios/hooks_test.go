package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects: `hooks describe` shows each command hook's fields and the
// events Helios does not run, and `run --json` names those events and the
// unknown fields in its first event.
func TestHooksDescribeAndRunJSONNameWhatIsIgnored(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	srv := modeltest.NewServer(t, modeltest.Say("done"))
	cfg := filepath.Join(dir, "helios.config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{
  "skills": {"userRoots": [], "projectRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(dir, "sessions")+`"},
  "tools": {"sandbox": {"mode": "off"}},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "async": true, "once": true, "statusMessage": "Guarding", "shell": "bash", "newKey": 1}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    "Elicitation": [{"hooks": [{"type": "command", "command": "true"}]}],
    "PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./answer.sh"}]}]
  }
}`), 0o600))

	var out, errOut bytes.Buffer
	require.Zero(t, run(t.Context(), []string{"hooks", "describe", "--json", "--config", cfg}, &out, &errOut), errOut.String())
	var desc struct {
		CommandHooks []cmdhooks.Info `json:"commandHooks"`
		EventsNotRun []string        `json:"eventsNotRun"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &desc), out.String())
	assert.Equal(t, []string{"Elicitation", "Notification"}, desc.EventsNotRun)
	assert.Equal(t, []cmdhooks.Info{{Event: "PreToolUse", Path: "hooks.PreToolUse[0].hooks[0]", Matcher: "Bash", Command: "./guard.sh",
		TimeoutSeconds: 600, Shell: "bash", Async: true, Once: true, StatusMessage: "Guarding"},
		{Event: "PermissionRequest", Path: "hooks.PermissionRequest[0].hooks[0]", Matcher: "Bash", Command: "./answer.sh", TimeoutSeconds: 600, Shell: "bash"}}, desc.CommandHooks)

	out.Reset()
	require.Zero(t, run(t.Context(), []string{"hooks", "describe", "--config", cfg}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), `hooks.PreToolUse[0].hooks[0] matcher "Bash": ./guard.sh (timeout 600s, shell bash, async, once per session)`)
	assert.Contains(t, out.String(), "status: Guarding")
	assert.Contains(t, out.String(), "events Helios does not run (their hooks are ignored): Elicitation, Notification")
	assert.Regexp(t, `permission:request \(firstWin, run scope\)\n  1\. hooks\.PermissionRequest\[0\]\.hooks\[0\] \(\./answer\.sh\) \[command\]`, out.String())

	out.Reset()
	require.Zero(t, run(t.Context(), []string{"run", "--json", "--config", cfg, "go"}, &out, &errOut), errOut.String())
	first, _, _ := strings.Cut(out.String(), "\n")
	var start struct {
		Kind             string   `json:"kind"`
		HookEventsNotRun []string `json:"hookEventsNotRun"`
		Warnings         []string `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(first), &start), first)
	assert.Equal(t, "start", start.Kind)
	assert.Equal(t, []string{"Elicitation", "Notification"}, start.HookEventsNotRun)
	assert.Contains(t, strings.Join(start.Warnings, "\n"), "hooks.PreToolUse[0].hooks[0].newKey: unknown field")
}
