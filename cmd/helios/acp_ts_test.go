package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/proctest"
	"github.com/helios-agents/helios/provider/modeltest"
)

// acpSDKEnv names the folder where `npm install @agentclientprotocol/sdk`
// ran (it holds node_modules); .ci/run sets it.
const acpSDKEnv = "HELIOS_TEST_ACP_SDK"

// The official ACP TypeScript SDK's ClientSideConnection against helios
// acp (testdata/acp_client.mjs): initialize; a prompt with an embedded
// resource whose scripted model reads, edits (the diff arrives with the
// file's old text), runs a command and writes (the permission request
// answered reject: the file is not written); a prompt cancelled while its
// command runs (cancelled, the command gone); in a new process, the
// session loaded and replayed.
func TestACPTypeScriptSDK(t *testing.T) {
	sdk := os.Getenv(acpSDKEnv)
	if sdk == "" {
		t.Skipf("%s is not set: run `npm install @agentclientprotocol/sdk@1.9.0` in a folder and set it to that folder (.ci/run does)", acpSDKEnv)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(sdk, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		t.Skipf("%s=%s holds no node_modules/@agentclientprotocol/sdk", acpSDKEnv, sdk)
	}
	srv := modeltest.NewServer(t,
		modeltest.Call("Read", `{"path": "a.txt"}`),
		modeltest.Call("Edit", `{"path": "a.txt", "old_string": "hello", "new_string": "goodbye"}`),
		modeltest.Call("Bash", `{"command": "echo ran-a-command"}`),
		modeltest.Call("Write", `{"path": "b.txt", "content": "new"}`),
		modeltest.Say("Tidied."),
		modeltest.Call("Bash", `{"command": "sleep 63.37"}`))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ask.sh"), "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"writes need a look\"}}'\n")
	home, work, cfg := acpWorld(t, srv, `{"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "sh `+filepath.Join(dir, "ask.sh")+`"}]}]}`)
	writeFile(t, filepath.Join(work, "a.txt"), "hello world\n")

	// The script beside the SDK's node_modules, so its import resolves.
	script, err := os.ReadFile(filepath.Join("testdata", "acp_client.mjs"))
	require.NoError(t, err)
	run := t.TempDir()
	writeFile(t, filepath.Join(run, "client.mjs"), string(script))
	require.NoError(t, os.Symlink(filepath.Join(sdk, "node_modules"), filepath.Join(run, "node_modules")))
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(node, filepath.Join(run, "client.mjs"), exe, cfg, work)
	cmd.Env = append(os.Environ(), asHeliosEnv+"=1", "HOME="+home)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "the client script")

	type update struct {
		SessionUpdate string `json:"sessionUpdate"`
		ToolCallID    string `json:"toolCallId"`
		Title         string `json:"title"`
		Kind          string `json:"kind"`
		Status        string `json:"status"`
		Locations     []struct {
			Path string `json:"path"`
		} `json:"locations"`
		Content json.RawMessage `json:"content"`
	}
	type note struct {
		SessionID string `json:"sessionId"`
		Update    update `json:"update"`
	}
	var out struct {
		Init struct {
			AgentCapabilities struct {
				LoadSession        bool `json:"loadSession"`
				PromptCapabilities struct {
					Image           bool `json:"image"`
					EmbeddedContext bool `json:"embeddedContext"`
				} `json:"promptCapabilities"`
			} `json:"agentCapabilities"`
		} `json:"init"`
		SessionID  string          `json:"sessionId"`
		FirstStop  string          `json:"firstStop"`
		FirstUsage json.RawMessage `json:"firstUsage"`
		Updates    []note          `json:"updates"`
		Perms      []struct {
			ToolCall struct {
				ToolCallID string `json:"toolCallId"`
			} `json:"toolCall"`
		} `json:"perms"`
		CancelStop string `json:"cancelStop"`
		CancelMs   int    `json:"cancelMs"`
		FirstExit  int    `json:"firstExit"`
		Replay     []note `json:"replay"`
		SecondExit int    `json:"secondExit"`
	}
	require.NoError(t, json.Unmarshal(stdout, &out), "%s", stdout)
	t.Logf("cancel answered in %d ms", out.CancelMs)

	caps := out.Init.AgentCapabilities
	assert.True(t, caps.LoadSession)
	assert.True(t, caps.PromptCapabilities.EmbeddedContext)
	assert.False(t, caps.PromptCapabilities.Image)
	assert.Equal(t, "end_turn", out.FirstStop)
	assert.Contains(t, string(out.FirstUsage), "totalTokens")

	calls, results := map[string]update{}, map[string]update{}
	var text strings.Builder
	for _, n := range out.Updates {
		assert.Equal(t, out.SessionID, n.SessionID)
		switch u := n.Update; u.SessionUpdate {
		case "tool_call":
			calls[u.Kind+" "+strings.SplitN(u.Title, " ", 2)[0]] = u
		case "tool_call_update":
			results[u.ToolCallID] = u
		}
	}
	for _, n := range out.Updates {
		if n.Update.SessionUpdate == "agent_message_chunk" {
			text.WriteString(chunkText(t, n))
		}
	}
	assert.Equal(t, "Tidied.", text.String())
	for _, k := range []string{"read Read", "edit Edit", "execute Run", "edit Write"} {
		require.Contains(t, calls, k, "tool calls: %v", calls)
	}
	assert.Equal(t, filepath.Join(work, "a.txt"), calls["edit Edit"].Locations[0].Path)

	var diff []struct {
		Type    string  `json:"type"`
		Path    string  `json:"path"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
	}
	require.NoError(t, json.Unmarshal(results[calls["edit Edit"].ToolCallID].Content, &diff))
	require.Len(t, diff, 1)
	assert.Equal(t, "diff", diff[0].Type)
	require.NotNil(t, diff[0].OldText)
	assert.Equal(t, "hello world\n", *diff[0].OldText)
	assert.Equal(t, "goodbye world\n", diff[0].NewText)
	assert.Contains(t, string(results[calls["execute Run"].ToolCallID].Content), "ran-a-command")
	assert.Equal(t, "completed", results[calls["execute Run"].ToolCallID].Status)

	require.Len(t, out.Perms, 1)
	assert.Equal(t, calls["edit Write"].ToolCallID, out.Perms[0].ToolCall.ToolCallID)
	assert.Equal(t, "failed", results[calls["edit Write"].ToolCallID].Status)
	assert.NoFileExists(t, filepath.Join(work, "b.txt"))

	assert.Equal(t, "cancelled", out.CancelStop)
	assert.Empty(t, proctest.Running("sleep", "63.37"), "the cancelled command ended")
	assert.Zero(t, out.FirstExit)
	assert.Zero(t, out.SecondExit)

	// The replay: both prompts, the calls with their results, the answer.
	var kinds []string
	var replayed strings.Builder
	for _, n := range out.Replay {
		kinds = append(kinds, n.Update.SessionUpdate)
		if n.Update.SessionUpdate == "user_message_chunk" || n.Update.SessionUpdate == "agent_message_chunk" {
			replayed.WriteString(chunkText(t, n) + "\n")
		}
	}
	assert.Contains(t, replayed.String(), "tidy [@a.txt](file://"+work+"/a.txt)")
	assert.Contains(t, replayed.String(), "Tidied.")
	assert.Contains(t, replayed.String(), "wait")
	assert.Contains(t, kinds, "tool_call")
	assert.Contains(t, kinds, "tool_call_update")

	// The embedded resource reached the model as Claude Code's adapter
	// writes it: a link in the prompt and its text in a context block.
	first := srv.Requests()[0]
	last := first.Messages[len(first.Messages)-1]
	assert.Contains(t, last.Content, "<context ref=\"file://"+work+"/a.txt\">\nhello world\n\n</context>")
}

// chunkText is the text of a message chunk's content block.
func chunkText[N any](t *testing.T, n N) string {
	t.Helper()
	b, err := json.Marshal(n)
	require.NoError(t, err)
	var v struct {
		Update struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	}
	require.NoError(t, json.Unmarshal(b, &v))
	return v.Update.Content.Text
}
