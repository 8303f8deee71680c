package transcript_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/caps/cmdhooks/transcript"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Stop hook as published for Claude Code: it reads transcript_path with
// jq and picks the last assistant text, the last tool call and the last
// tool result. The python3 one does the same where there is no jq.
const stopJq = `#!/usr/bin/env bash
set -euo pipefail
t=$(jq -r '.transcript_path')
{
  jq -r 'select(.type == "assistant") | .message.content[] | select(.type == "text") | .text' "$t" | tail -n 1
  jq -c 'select(.type == "assistant") | .message.content[] | select(.type == "tool_use") | {id, name, command: .input.command}' "$t" | tail -n 1
  jq -c 'select(.type == "user") | .message.content | arrays | .[] | select(.type == "tool_result") | {tool_use_id, content, is_error}' "$t" | tail -n 1
} >> "$CLAUDE_PROJECT_DIR/seen.txt"
`

const stopPy = `#!/usr/bin/env python3
import json, os, sys
path = json.load(sys.stdin)["transcript_path"]
text = tool = res = None
with open(path) as f:
    for line in f:
        e = json.loads(line)
        content = e["message"]["content"]
        if not isinstance(content, list):
            continue
        for b in content:
            if e["type"] == "assistant" and b["type"] == "text":
                text = b["text"]
            if e["type"] == "assistant" and b["type"] == "tool_use":
                tool = {"id": b["id"], "name": b["name"], "command": b["input"].get("command")}
            if e["type"] == "user" and b["type"] == "tool_result":
                res = {"tool_use_id": b["tool_use_id"], "content": b["content"], "is_error": b["is_error"]}
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "seen.txt"), "a") as out:
    out.write(text + "\n" + json.dumps(tool, separators=(",", ":")) + "\n" + json.dumps(res, separators=(",", ":")) + "\n")
`

// stopHook makes a Stop command hook whose transcript_path comes from ts,
// and returns a function that runs it for a session.
func stopHook(t *testing.T, ts *transcript.Store, work string) func(id string) {
	t.Helper()
	script, body := "stop.sh", stopJq
	if _, err := exec.LookPath("jq"); err != nil {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("neither jq nor python3 found: install one (.ci/run does) to run the hook")
		}
		script, body = "stop.py", stopPy
	}
	p := filepath.Join(work, script)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o755))
	h, err := cmdhooks.New(cmdhooks.Config{
		Settings: cmdhooks.Settings{cmdhooks.Stop: {{Hooks: []cmdhooks.Command{{Type: "command", Command: p}}}}},
		WorkDir:  work,
		Env:      []string{"PATH=" + os.Getenv("PATH")},
		Transcript: func(id string) string {
			path, err := ts.Path(id)
			assert.NoError(t, err)
			return path
		},
	})
	require.NoError(t, err)
	ms := h.Mounts()
	require.Len(t, ms, 1)
	require.Equal(t, hooks.TurnEnd.Name, ms[0].Point)
	return func(id string) {
		_, err := ms[0].Handler(t.Context(), kernel.TurnEndIn{SessionID: id, Step: 1})
		require.NoError(t, err)
	}
}

// appendEvents appends evs, each its own batch, as the kernel does.
func appendEvents(t *testing.T, l session.Log, evs ...session.Event) {
	t.Helper()
	_, err := l.Append(t.Context(), evs...)
	require.NoError(t, err)
}

// Protects: M540 (wrong file), M541 (tool_use mislabelled), M542 (not
// brought up to date before the hook), M549 (is_error dropped). A Claude
// Code Stop hook finds the last answer, tool call and result of the session
// as it is when the hook runs, and the file only grows.
func TestHookReadsTranscript(t *testing.T) {
	work, dir := t.TempDir(), t.TempDir()
	ts := transcript.New(session.NewMemoryStore(), transcript.Config{Dir: dir, WorkDir: work})
	l, err := ts.Create(t.Context())
	require.NoError(t, err)
	defer l.Close()
	run := stopHook(t, ts, work)

	appendEvents(t, l, session.Event{Type: session.User, Text: "make the tests pass"})
	appendEvents(t, l,
		session.Event{Type: session.Assistant, Text: "Running the tests first."},
		session.Event{Type: session.ToolUse, ToolUseID: "call_1", ToolName: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)})
	appendEvents(t, l, session.Event{Type: session.ToolResult, ToolUseID: "call_1", Text: "FAIL: TestParse", IsError: true})
	appendEvents(t, l, session.Event{Type: session.Assistant, Text: "TestParse fails on empty input."})
	run(l.ID())

	path := filepath.Join(dir, l.ID()+".jsonl")
	require.FileExists(t, path)
	first, err := os.ReadFile(path)
	require.NoError(t, err)

	appendEvents(t, l, session.Event{Type: session.User, Text: "fix it"})
	appendEvents(t, l,
		session.Event{Type: session.Assistant}, // tool calls only: no text line
		session.Event{Type: session.ToolUse, ToolUseID: "call_2", ToolName: "Bash", Input: json.RawMessage(`{"command":"go test ./parse"}`)})
	appendEvents(t, l, session.Event{Type: session.ToolResult, ToolUseID: "call_2", Text: "ok parse"})
	appendEvents(t, l, session.Event{Type: session.Assistant, Text: "All green now."})
	run(l.ID())

	seen, err := os.ReadFile(filepath.Join(work, "seen.txt"))
	require.NoError(t, err)
	assert.Equal(t, strings.Join([]string{
		"TestParse fails on empty input.",
		`{"id":"call_1","name":"Bash","command":"go test ./..."}`,
		`{"tool_use_id":"call_1","content":"FAIL: TestParse","is_error":true}`,
		"All green now.",
		`{"id":"call_2","name":"Bash","command":"go test ./parse"}`,
		`{"tool_use_id":"call_2","content":"ok parse","is_error":false}`,
	}, "\n")+"\n", string(seen))

	second, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(second), string(first)), "lines are only appended")
	assert.Len(t, lines(t, path), 9, "one line per event, none for an answer without text")
}

// Protects: M543 (parentUuid chain broken), M548 (isMeta dropped). Each
// line has Claude Code's keys: the session, a uuid chained to the line
// before, the event's time, the work dir, and the message of its kind.
func TestLineShape(t *testing.T) {
	work, dir := t.TempDir(), t.TempDir()
	ts := transcript.New(session.NewMemoryStore(), transcript.Config{Dir: dir, WorkDir: work})
	l, err := ts.Create(t.Context())
	require.NoError(t, err)
	defer l.Close()
	appendEvents(t, l,
		session.Event{Type: session.User, Text: "hello"},
		session.Event{Type: session.Injected, Provenance: "skills-catalog", Text: "<skills/>"},
		session.Event{Type: session.Assistant, Text: "reading", Usage: session.Usage{Input: 100, Output: 7, CacheRead: 60, CacheWrite: 10}},
		session.Event{Type: session.ToolUse, ToolUseID: "call_9", ToolName: "Read", Input: json.RawMessage(`{"path":"a.go"}`)},
		session.Event{Type: session.ToolResult, ToolUseID: "call_9", Text: "package a"},
		session.Event{Type: session.Compaction, From: 1, To: 5, Text: "summary of it all"})

	path, err := ts.Path(l.ID())
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, l.ID()+".jsonl"), path)
	ls := lines(t, path)
	require.Len(t, ls, 6)

	var parent any
	uuids := map[string]bool{}
	for i, ln := range ls {
		ev := l.At(i)
		assert.Equal(t, l.ID(), ln["sessionId"], "line %d", i)
		assert.Equal(t, work, ln["cwd"], "line %d", i)
		assert.Equal(t, false, ln["isSidechain"], "line %d", i)
		assert.Equal(t, parent, ln["parentUuid"], "line %d chains to the line before", i)
		u, _ := ln["uuid"].(string)
		assert.Len(t, u, 36, "line %d", i)
		assert.False(t, uuids[u], "line %d: uuid %s repeats", i, u)
		uuids[u], parent = true, u
		ts, err := time.Parse(time.RFC3339Nano, ln["timestamp"].(string))
		require.NoError(t, err, "line %d", i)
		assert.True(t, ev.Time.Truncate(time.Millisecond).Equal(ts), "line %d: %s is not the event's time %s", i, ts, ev.Time)
	}

	msg := func(i int) map[string]any { return ls[i]["message"].(map[string]any) }
	assert.Equal(t, "user", ls[0]["type"])
	assert.Equal(t, map[string]any{"role": "user", "content": "hello"}, msg(0))
	assert.Equal(t, "user", ls[1]["type"])
	assert.Equal(t, true, ls[1]["isMeta"], "injected text is not the person's")
	assert.Nil(t, ls[0]["isMeta"])
	assert.Equal(t, []any{map[string]any{"type": "text", "text": "<skills/>"}}, msg(1)["content"])

	assert.Equal(t, "assistant", ls[2]["type"])
	assert.Equal(t, "assistant", msg(2)["role"])
	assert.Equal(t, []any{map[string]any{"type": "text", "text": "reading"}}, msg(2)["content"])
	assert.Equal(t, map[string]any{"input_tokens": 30.0, "output_tokens": 7.0, "cache_read_input_tokens": 60.0, "cache_creation_input_tokens": 10.0}, msg(2)["usage"])
	assert.Equal(t, "assistant", ls[3]["type"])
	assert.Equal(t, msg(2)["id"], msg(3)["id"], "a call is a block of its answer's message")
	assert.Equal(t, []any{map[string]any{"type": "tool_use", "id": "call_9", "name": "Read", "input": map[string]any{"path": "a.go"}}}, msg(3)["content"])

	assert.Equal(t, "user", ls[4]["type"])
	assert.Equal(t, []any{map[string]any{"type": "tool_result", "tool_use_id": "call_9", "content": "package a", "is_error": false}}, msg(4)["content"])
	assert.Equal(t, true, ls[5]["isCompactSummary"])
	assert.Equal(t, "summary of it all", msg(5)["content"])

	none, err := ts.Path("not-open-here")
	require.NoError(t, err)
	assert.Empty(t, none, "a session not open through the store has no transcript")
}

// Protects: M544 (secrets written). A secret in any event's text, input or
// result is written as [REDACTED], as in everything Helios stores.
func TestSecretsRedacted(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	dir := t.TempDir()
	ts := transcript.New(session.NewMemoryStore(), transcript.Config{Dir: dir, Secrets: redact.New(key)})
	l, err := ts.Create(t.Context())
	require.NoError(t, err)
	defer l.Close()
	appendEvents(t, l,
		session.Event{Type: session.User, Text: "my key is " + key},
		session.Event{Type: session.Assistant, Text: "noted " + key},
		session.Event{Type: session.ToolUse, ToolUseID: "c", ToolName: "Bash", Input: json.RawMessage(`{"command":"echo ` + key + `"}`)},
		session.Event{Type: session.ToolResult, ToolUseID: "c", Text: key})

	path, err := ts.Path(l.ID())
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), key)
	assert.Equal(t, 4, strings.Count(string(data), redact.Mark))
	assert.Len(t, lines(t, path), 4, "still one JSON object per line")
}

// Protects: M545 (resume starts over), M546 (torn line kept). A session
// resumed by another process goes on after the file's last line: nothing
// repeated, the chain unbroken, a line torn by a crash cut off.
func TestResumeAppends(t *testing.T) {
	sessions, dir := t.TempDir(), t.TempDir()
	open := func() *transcript.Store {
		st, err := session.NewJSONLStore(session.JSONLConfig{Dir: sessions})
		require.NoError(t, err)
		return transcript.New(st, transcript.Config{Dir: dir})
	}
	ts := open()
	l, err := ts.Create(t.Context())
	require.NoError(t, err)
	id := l.ID()
	appendEvents(t, l, session.Event{Type: session.User, Text: "one"}, session.Event{Type: session.Assistant, Text: "two"})
	appendEvents(t, l, session.Event{Type: session.ToolUse, ToolUseID: "c", ToolName: "Read", Input: json.RawMessage(`{}`)})
	big := strings.Repeat("0123456789", 30_000) // a last line longer than the tail's first chunks
	appendEvents(t, l, session.Event{Type: session.ToolResult, ToolUseID: "c", Text: big})
	path, err := ts.Path(id)
	require.NoError(t, err)
	require.NoError(t, l.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"parentUuid":"x","type":"assis`) // the crash
	require.NoError(t, err)
	require.NoError(t, f.Close())

	ts = open()
	l, err = ts.Open(context.Background(), id)
	require.NoError(t, err)
	defer l.Close()
	appendEvents(t, l, session.Event{Type: session.User, Text: "three"})
	_, err = ts.Path(id)
	require.NoError(t, err)

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(after), string(before)))
	ls := lines(t, path)
	require.Len(t, ls, 5)
	assert.Equal(t, "three", ls[4]["message"].(map[string]any)["content"])
	assert.Equal(t, ls[3]["uuid"], ls[4]["parentUuid"])
}

// lines decodes a transcript, failing on a line that is not a JSON object.
func lines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []map[string]any
	for i, s := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(s), &m), "line %d: %s", i+1, s)
		out = append(out, m)
	}
	return out
}

// A transcript whose last line is no event of its session (a file put
// there by hand) is an error naming the file and why, not lines appended
// after a stranger's.
func TestForeignTranscriptIsAnError(t *testing.T) {
	dir := t.TempDir()
	ts := transcript.New(session.NewMemoryStore(), transcript.Config{Dir: dir})
	l, err := ts.Create(t.Context())
	require.NoError(t, err)
	defer l.Close()
	appendEvents(t, l, session.Event{Type: session.User, Text: "hi"})
	path := filepath.Join(dir, l.ID()+".jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"type":"user","uuid":"0b9e-not-ours"}`+"\n"), 0o600))

	got, err := ts.Path(l.ID())
	require.Error(t, err)
	assert.Empty(t, got)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), `its last line (uuid "0b9e-not-ours") is no event of session `+l.ID())
}
