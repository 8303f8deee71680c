package unit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/pgtest"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/model/anthropic"
	"github.com/helios-agents/helios/kernel/model/modeltest"
	"github.com/helios-agents/helios/kernel/model/openai"
	"github.com/helios-agents/helios/kernel/session"
)

// A resumed session always makes a request a strict provider accepts
// (C19): each tool call the log holds without a result is answered, once,
// as interrupted with an unknown outcome, and the answer follows its call
// in the request even when the log holds later messages (a session resumed
// before Helios repaired logs). Both wires: Anthropic's Messages API
// refuses a tool_use without its tool_result as OpenAI-compatible APIs do.
func TestResumeAnswersInterruptedCalls(t *testing.T) {
	call := func(id, cmd string) session.Event {
		return session.Event{Type: session.ToolUse, ToolUseID: id, ToolName: "Bash", Input: json.RawMessage(`{"command":"` + cmd + `"}`)}
	}
	result := func(id string) session.Event {
		return session.Event{Type: session.ToolResult, ToolUseID: id, ToolName: "Bash", Text: "ok"}
	}
	for _, tc := range []struct {
		name        string
		log         []session.Event
		interrupted []string // the calls answered as interrupted
	}{
		{"killed during the only call", []session.Event{
			{Type: session.User, Text: "build it"}, {Type: session.Assistant}, call("a", "make"),
		}, []string{"a"}},
		{"killed during the second of three calls", []session.Event{
			{Type: session.User, Text: "build it"}, {Type: session.Assistant, Text: "on it"},
			call("a", "true"), call("b", "make"), call("c", "make test"), result("a"),
		}, []string{"b", "c"}},
		{"resumed before, by a Helios that did not repair", []session.Event{
			{Type: session.User, Text: "build it"}, {Type: session.Assistant}, call("a", "make"),
			{Type: session.User, Text: "again"}, {Type: session.User, Text: "and again"},
		}, []string{"a"}},
		{"nothing interrupted", []session.Event{
			{Type: session.User, Text: "build it"}, {Type: session.Assistant}, call("a", "make"), result("a"),
			{Type: session.Assistant, Text: "built"},
		}, nil},
	} {
		for _, provider := range []string{"openai", "anthropic"} {
			t.Run(provider+"/"+tc.name, func(t *testing.T) {
				store := session.NewMemoryStore()
				l, err := store.Create(t.Context())
				require.NoError(t, err)
				_, err = l.Append(t.Context(), tc.log...)
				require.NoError(t, err)
				id := l.ID()
				require.NoError(t, l.Close())

				var srv *modeltest.Server
				var client model.Model
				if provider == "anthropic" {
					// The Messages API server refuses an unpaired tool_use (or a
					// tool_result answering no call) as a test failure.
					srv = modeltest.NewAnthropicServer(t, modeltest.Say("resumed"), modeltest.Say("resumed again"))
					client, err = anthropic.New(anthropic.Config{BaseURL: srv.URL(), Model: "claude-strict", MaxRetries: -1})
				} else {
					srv = modeltest.NewStrictServer(t, modeltest.Say("resumed"), modeltest.Say("resumed again"))
					client, err = openai.New(openai.Config{BaseURL: srv.URL(), Model: "strict", MaxRetries: -1})
				}
				require.NoError(t, err)
				k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Model: client, Store: store})
				require.NoError(t, err)
				defer k.Close()

				for _, prompt := range []string{"go on", "and now?"} {
					s, err := k.OpenSession(t.Context(), kernel.SessionConfig{Resume: id})
					require.NoError(t, err)
					_, err = s.Run(t.Context(), prompt)
					require.NoError(t, err, "the strict server refused the resumed request")
					require.NoError(t, s.Close())
				}
				for i, req := range srv.Requests() {
					assert.Empty(t, req.Refused, "request %d", i+1)
					agCheckPairs(t, "request", req.Messages)
					if provider == "anthropic" {
						for _, m := range req.Messages {
							if m.Role == model.RoleTool && slices.Contains(tc.interrupted, m.ToolCallID) {
								assert.True(t, m.IsError, "request %d: the interrupted call %s's tool_result has is_error", i+1, m.ToolCallID)
							}
						}
					}
				}

				r, err := store.Open(t.Context(), id)
				require.NoError(t, err)
				defer r.Close()
				var got []string
				for _, e := range agEvents(r) {
					if e.Type == session.ToolResult && e.Meta[session.InterruptedKey] == "true" {
						got = append(got, e.ToolUseID)
						assert.True(t, e.IsError)
						assert.Contains(t, e.Text, "outcome is unknown")
					}
				}
				assert.Equal(t, tc.interrupted, got, "each interrupted call answered once, over two resumes")
				agCheckLogPairs(t, r)
			})
		}
	}
}

// SIGKILL during a Bash call, then `run --resume`: the next request answers
// the call as interrupted and a strict provider accepts it; the answer is
// written once, for the JSONL and the PostgreSQL store alike.
func TestResumeAfterSIGKILL(t *testing.T) {
	for _, store := range []string{"jsonl", "postgres"} {
		t.Run(store, func(t *testing.T) {
			sessions := `{"dir": "` + filepath.Join(t.TempDir(), "sessions") + `"}`
			if store == "postgres" {
				url, _ := pgtest.Schema(t)
				t.Setenv(pgURLEnv, url)
				sessions = `{"store": "postgres", "postgres": {"urlEnv": "` + pgURLEnv + `"}}`
			}
			home, dir := t.TempDir(), t.TempDir()
			gate := filepath.Join(dir, "gate")
			require.NoError(t, syscall.Mkfifo(gate, 0o600))
			started := filepath.Join(dir, "started")
			srv := modeltest.NewStrictServer(t,
				modeltest.Call("Bash", `{"command":"echo started > started && cat gate"}`),
				func(req modeltest.Recorded) modeltest.Reply {
					last := req.Messages[len(req.Messages)-2] // before the new prompt
					if last.Role != "tool" || !strings.Contains(last.Content, "interrupted") {
						return modeltest.Reply{Status: 400, ErrorMessage: "the interrupted call is not answered as interrupted"}
					}
					return modeltest.Reply{Text: "resumed after the kill"}
				},
				modeltest.Say("and again"),
			)
			cfg := filepath.Join(t.TempDir(), "helios.config.json")
			writeFile(t, cfg, `{
  "workDir": "`+dir+`",
  "skills": {"userRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "strict", "apiKeyEnv": ""},
  "tools": {"sandbox": {"mode": "off"}},
  "sessions": `+sessions+`
}`)
			cmd := exec.Command(heliosBin(), "--config", cfg, "run", "build it")
			cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+home)
			var out testkit.SyncBuffer // written by the process while the test reads it
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			release := func() { // lets the orphaned `cat gate` end
				if f, err := os.OpenFile(gate, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}
			defer release()
			deadline := time.Now().Add(60 * time.Second)
			for {
				if _, err := os.Stat(started); err == nil {
					break
				}
				require.True(t, time.Now().Before(deadline), "the Bash call never started:\n%s", out.String())
				time.Sleep(20 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			_ = cmd.Wait()
			release()

			list := helios(t, home, dir, "--config", cfg, "--json", "sessions", "list")
			require.Equal(t, 0, list.code, list.stderr)
			var listed struct{ Sessions []session.Info }
			require.NoError(t, json.Unmarshal([]byte(list.stdout), &listed))
			require.Len(t, listed.Sessions, 1)
			id := listed.Sessions[0].ID

			resume := func(prompt string) cliResult {
				// A killed client's connection (and its session lock) may
				// outlive it for a moment on the database server.
				for {
					r := helios(t, home, dir, "--config", cfg, "run", "--resume", id, prompt)
					if r.code == 0 || !strings.Contains(r.stderr, "open for writing") || time.Now().After(deadline) {
						return r
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
			r := resume("go on")
			require.Equal(t, 0, r.code, "resume after the kill:\n%s\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "resumed after the kill")
			r = resume("and now?")
			require.Equal(t, 0, r.code, "second resume:\n%s\n%s", r.stdout, r.stderr)
			for i, req := range srv.Requests() {
				assert.Empty(t, req.Refused, "request %d was refused", i+1)
			}

			show := helios(t, home, dir, "--config", cfg, "--json", "sessions", "show", id)
			require.Equal(t, 0, show.code, show.stderr)
			var shown struct{ Events []session.Event }
			require.NoError(t, json.Unmarshal([]byte(show.stdout), &shown))
			var results []session.Event
			for _, e := range shown.Events {
				if e.Type == session.ToolResult {
					results = append(results, e)
				}
			}
			require.Len(t, results, 1, "the interrupted call is answered once")
			assert.Equal(t, "call_1_0", results[0].ToolUseID)
			assert.True(t, results[0].IsError)
			assert.Equal(t, "true", results[0].Meta[session.InterruptedKey])
		})
	}
}

// An embedder stepping a resumed session itself (Step, without Run, which
// repairs the log) still sends a request a strict provider accepts: a call
// the log holds no result for is answered in the request as interrupted.
func TestStepAnswersUnrepairedCalls(t *testing.T) {
	store := session.NewMemoryStore()
	l, err := store.Create(t.Context())
	require.NoError(t, err)
	_, err = l.Append(t.Context(),
		session.Event{Type: session.User, Text: "build it"},
		session.Event{Type: session.Assistant},
		session.Event{Type: session.ToolUse, ToolUseID: "a", ToolName: "Bash", Input: json.RawMessage(`{"command":"make"}`)},
	)
	require.NoError(t, err)
	id := l.ID()
	require.NoError(t, l.Close())

	srv := modeltest.NewStrictServer(t, modeltest.Say("stepped"))
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "strict", MaxRetries: -1})
	require.NoError(t, err)
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Model: client, Store: store})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{Resume: id})
	require.NoError(t, err)
	defer s.Close()
	resp, _, err := s.Step(t.Context(), 1)
	require.NoError(t, err, "the strict server refused the step's request")
	assert.Equal(t, "stepped", resp.Text)
	req := srv.Requests()[0]
	require.Empty(t, req.Refused)
	var answer string
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == "a" {
			answer = m.Content
		}
	}
	assert.Contains(t, answer, "interrupted")
	assert.Contains(t, answer, "outcome is unknown")
}
