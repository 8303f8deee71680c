package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/pgtest"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
)

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
			cmd := heliosCommand(t, home, "--config", cfg, "run", "build it")
			cmd.Dir = dir
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
