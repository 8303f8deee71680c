package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/provider/modeltest"
)

// ptyOutput collects what helios writes to the terminal and signals each
// write, so a test waits for text without polling.
type ptyOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func readPTY(r io.Reader) *ptyOutput {
	o := &ptyOutput{changed: make(chan struct{}, 1)}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			o.mu.Lock()
			o.buf.Write(b[:n])
			o.mu.Unlock()
			select {
			case o.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return o
}

func (o *ptyOutput) text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitCount waits until s appears n times in the output; a process that
// exited first fails the test at once.
func (o *ptyOutput) waitCount(t *testing.T, s string, n int, exited <-chan struct{}) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for strings.Count(o.text(), s) < n {
		select {
		case <-o.changed:
		case <-exited:
			if strings.Count(o.text(), s) < n {
				require.Failf(t, "helios exited", "before %d× %q in:\n%s", n, s, o.text())
			}
		case <-deadline:
			require.Failf(t, "timeout", "waiting for %d× %q in:\n%s", n, s, o.text())
		}
	}
}

// Protects: M1033 (helios run on a terminal denying asks unasked). With
// stdin and stderr on a terminal, an ask rule's call is shown with the rule
// on stderr and answered from the terminal: y runs it, n denies it (the
// model reads that the person did not allow it), a runs it and every later
// call of that rule in the session without asking again (M1037).
func TestRunAsksOnTheTerminal(t *testing.T) {
	home, work, dir := t.TempDir(), t.TempDir(), t.TempDir()
	srv := modeltest.NewServer(t, bashCall("echo one"), bashCall("echo two"), bashCall("echo three"), bashCall("echo four"), modeltest.Say("done"))
	cfg := permConfig(t, dir, srv.URL(), `{"ask": ["Bash(echo:*)"]}`)

	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	cmd := heliosCommand(t, home, "--work-dir", work, "--config", cfg, "--json", "run", "go")
	var out bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &out
	require.NoError(t, cmd.Start())
	tty.Close()
	term := readPTY(ptmx)
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()

	const prompt = "a (always, for this session): "
	for i, answer := range []string{"y", "n", "a"} {
		term.waitCount(t, prompt, i+1, exited)
		_, err := ptmx.Write([]byte(answer + "\r"))
		require.NoError(t, err)
	}
	// Should "a" not be remembered, the fourth call asks again, and this
	// line denies it.
	_, err = ptmx.Write([]byte("n\r"))
	require.NoError(t, err)
	<-exited
	require.NoError(t, waitErr, "stderr:\n%s", term.text())

	shown := term.text()
	assert.Equal(t, 3, strings.Count(shown, prompt), "asked once per call until 'always':\n%s", shown)
	assert.Contains(t, shown, "rule: Bash(echo:*)")
	assert.Contains(t, shown, `Bash {"command":"echo one"}`)
	assert.Contains(t, shown, "rule Bash(echo:*) is allowed for this session")
	res := toolResults(t, out.String())
	require.Len(t, res, 4, out.String())
	for i, want := range []string{"one", "", "three", "four"} {
		if want == "" {
			assert.Equal(t, true, res[i]["isError"], "the call the person denied")
			assert.Contains(t, res[i]["text"], "the person did not allow it")
			continue
		}
		assert.Equal(t, false, res[i]["isError"], res[i]["text"])
		assert.Contains(t, res[i]["text"], want)
	}
}

// Without a terminal nothing is read: the ask is denied, naming the rule,
// even when stdin holds a "y".
func TestRunWithoutTerminalDeniesAsks(t *testing.T) {
	home, work, dir := t.TempDir(), t.TempDir(), t.TempDir()
	srv := modeltest.NewServer(t, bashCall("echo one"), modeltest.Say("done"))
	cfg := permConfig(t, dir, srv.URL(), `{"ask": ["Bash(echo:*)"]}`)
	cmd := heliosCommand(t, home, "--work-dir", work, "--config", cfg, "--json", "run", "go")
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader("y\n"), &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	res := toolResults(t, out.String())
	require.Len(t, res, 1, out.String())
	assert.Equal(t, true, res[0]["isError"])
	assert.Contains(t, res[0]["text"], `the ask rule "Bash(echo:*)" asks the person to confirm this call, and no one can be asked`)
	assert.NotContains(t, errb.String(), "allow this tool call?")
}

// Protects: M1039 (-p asking). As claude -p, `helios run -p` asks nothing
// even on a terminal: the ask is denied, naming the rule, and nothing is
// shown on the terminal.
func TestRunPrintNeverAsks(t *testing.T) {
	home, work, dir := t.TempDir(), t.TempDir(), t.TempDir()
	srv := modeltest.NewServer(t, bashCall("echo one"), modeltest.Say("done"))
	cfg := permConfig(t, dir, srv.URL(), `{"ask": ["Bash(echo:*)"]}`)
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	cmd := heliosCommand(t, home, "--work-dir", work, "--config", cfg, "--json", "run", "-p", "go")
	var out bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &out
	require.NoError(t, cmd.Start())
	tty.Close()
	term := readPTY(ptmx)
	// Should it ask, this line allows the call, and the checks fail.
	_, err = ptmx.Write([]byte("y\r"))
	require.NoError(t, err)
	require.NoError(t, cmd.Wait())
	res := toolResults(t, out.String())
	require.Len(t, res, 1, out.String())
	assert.Equal(t, true, res[0]["isError"])
	assert.Contains(t, res[0]["text"], `the ask rule "Bash(echo:*)" asks the person to confirm this call, and no one can be asked`)
	assert.NotContains(t, term.text(), "allow this tool call?")
}
