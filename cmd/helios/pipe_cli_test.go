package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/provider/modeltest"
)

// pipeRun is helios writing into a real pipe read by `head -1`.
type pipeRun struct {
	helios *exec.Cmd
	stderr bytes.Buffer
	first  bytes.Buffer // what head printed
	exited chan struct{}
}

// throughHead starts `helios args… | head -1` in dir with HOME=home and
// waits for head to exit.
func throughHead(t *testing.T, home, dir string, args ...string) *pipeRun {
	t.Helper()
	head, err := exec.LookPath("head")
	require.NoError(t, err)
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	p := &pipeRun{exited: make(chan struct{})}
	p.helios = heliosCommand(t, home, args...)
	p.helios.Dir = dir
	p.helios.Stdout, p.helios.Stderr = pw, &p.stderr
	h := exec.Command(head, "-1")
	h.Stdin, h.Stdout = pr, &p.first
	require.NoError(t, h.Start())
	require.NoError(t, p.helios.Start())
	pr.Close() // only head reads; once it exits, no one does
	pw.Close()
	go func() {
		p.helios.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.helios.Process.Kill()
		<-p.exited
	})
	require.NoError(t, h.Wait())
	return p
}

// exit waits for helios to end after its reader went away. The long guard
// only turns a hang (a command that never notices) into a failure.
func (p *pipeRun) exit(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("helios still runs 30s after its reader went away")
	}
	st := p.helios.ProcessState
	ws, _ := st.Sys().(syscall.WaitStatus)
	assert.True(t, st.ExitCode() == 0 || st.ExitCode() == 141 || (ws.Signaled() && ws.Signal() == syscall.SIGPIPE),
		"exit status %v, want 0 or 141", st)
	assert.Empty(t, p.stderr.String(), "helios complained about its closed output")
}

// `helios skills watch --json | head -1`: the first catalog reaches head,
// and watch, which writes nothing more until a skill changes, still ends
// as soon as head is gone.
func TestCLIWatchIntoClosedPipe(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(work, ".helios", "skills", "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First.", "body"))
	p := throughHead(t, home, work, "--work-dir", work, "skills", "watch", "--json")
	var first struct {
		Event string `json:"event"`
	}
	require.NoError(t, json.Unmarshal(p.first.Bytes(), &first), "head got %q", p.first.String())
	assert.Equal(t, "catalog", first.Event)
	p.exit(t)
}

// `helios run --json … | head -1`: the start event (what of the config is
// ignored) is the first line, printed before the model is asked; once head
// is gone the run stops, although the model's answer never comes.
func TestCLIRunIntoClosedPipe(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".helios", "skills", "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First.", "body"))
	// A model that never answers: helios may or may not have asked it when
	// head goes away, and must not wait for it either way.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices the client leaving
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close) // after helios is killed (cleanups run last first)
	writeRunConfig(t, dir, hang.URL+"/v1", filepath.Join(home, "sessions"))
	p := throughHead(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "--json", "run", "Say something.")
	var first struct {
		Kind             string   `json:"kind"`
		HookEventsNotRun []string `json:"hookEventsNotRun"`
	}
	require.NoError(t, json.Unmarshal(p.first.Bytes(), &first), "head got %q", p.first.String())
	assert.Equal(t, "start", first.Kind)
	assert.Empty(t, first.HookEventsNotRun)
	p.exit(t)
}

// An output that fails otherwise (a full disk) ends the run at the first
// failed write with one error line, before the model is asked.
func TestCLIRunOutputFails(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	home, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".helios", "skills", "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First.", "body"))
	srv := modeltest.NewServer(t) // any request fails the test
	writeRunConfig(t, dir, srv.URL(), filepath.Join(home, "sessions"))
	cmd := heliosCommand(t, home, "--config", filepath.Join(dir, "helios.config.json"), "--json", "run", "Say something.")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = full, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Equal(t, "helios: write output: write /dev/stdout: no space left on device\n", stderr.String())
	assert.Empty(t, srv.Requests())
}

func writeRunConfig(t *testing.T, dir, modelURL, sessions string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "helios.config.json"), `{
  "workDir": ".",
  "skills": {"userRoots": []},
  "model": {"baseURL": "`+modelURL+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+sessions+`"}
}`)
}
