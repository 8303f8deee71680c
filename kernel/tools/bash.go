package tools

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/helios-agents/helios/kernel/contract"
)

// pipeGrace is how long Bash waits, after the command's process group is
// gone, for output from a process that left the group (setsid) and still
// holds the pipe open.
const pipeGrace = time.Second

// bashArgs are Bash's arguments. timeout_seconds is described in New,
// with the configured default and maximum.
type bashArgs struct {
	Command        string `json:"command" jsonschema:"The shell command to run in the work dir."`
	TimeoutSeconds *int   `json:"timeout_seconds,omitempty"`
}

// bashSchema tells the model the configured timeouts.
func (s *Set) bashSchema(schema *jsonschema.Schema) {
	p := schema.Properties["timeout_seconds"]
	p.Minimum = jsonschema.Ptr(1.0)
	p.Maximum = jsonschema.Ptr(float64(maxSeconds(s.maxTimeout)))
	p.Description = fmt.Sprintf("Kill the command after this many seconds. Default %d; larger values than the maximum are lowered to it.", maxSeconds(s.timeout))
}

func (s *Set) bashDescription() string {
	return texts.Text("bash.md.tmpl", map[string]any{
		"Shell":      s.shell,
		"Timeout":    seconds(s.timeout),
		"MaxTimeout": seconds(s.maxTimeout),
		"MaxOutput":  s.maxOutput,
		"Sandbox":    s.box.Describe(),
	})
}

func (s *Set) bash(ctx context.Context, in bashArgs) contract.ToolResult {
	if strings.TrimSpace(in.Command) == "" {
		return contract.ErrorResult(`invalid arguments: "command" is empty`)
	}
	timeout := s.timeout
	if in.TimeoutSeconds != nil {
		if *in.TimeoutSeconds < 1 {
			return contract.ErrorResult(`invalid arguments: "timeout_seconds" must be at least 1, not %d`, *in.TimeoutSeconds)
		}
		// Compare in seconds: a huge request must not overflow a Duration.
		timeout = s.maxTimeout
		if int64(*in.TimeoutSeconds) < int64(s.maxTimeout/time.Second) {
			timeout = time.Duration(*in.TimeoutSeconds) * time.Second
		}
	}

	// The sandbox gives the command its allowlisted environment and, unless
	// tools.sandbox.mode is "off", confines it; a mode this machine cannot
	// enforce is refused here, never run unconfined.
	sc, note, err := s.box.Command(contract.SessionID(ctx), s.fs.Dir(), s.shell, "-c", in.Command)
	if err != nil {
		return contract.ErrorResult("the command was not run: %v", err)
	}
	out := &capBuffer{max: s.maxOutput}
	cmd := sc.Cmd
	cmd.Env = append(cmd.Env, s.sessionEnv(ctx, cmd.Env)...)
	// One writer for both streams: os/exec then gives the child a single
	// pipe, so stdout and stderr arrive in the order they were written.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = pipeGrace
	setGroup(cmd)

	began := time.Now()
	if err := sc.Start(); err != nil {
		return contract.ErrorResult("could not start the command with %s: %v", s.shell, err)
	}
	g := &group{cmd: cmd}
	done := make(chan error, 1)
	go func() { done <- g.wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopped string // why we killed it, if we did
	select {
	case err = <-done:
	case <-timer.C:
		g.kill()
		err = <-done
		stopped = fmt.Sprintf("timed out after %s", seconds(timeout))
	case <-ctx.Done():
		g.kill()
		err = <-done
		stopped = fmt.Sprintf("cancelled after %s (%v)", seconds(time.Since(began).Round(100*time.Millisecond)), context.Cause(ctx))
	}

	text := out.String()
	ps := cmd.ProcessState
	var status string
	switch {
	case stopped != "" && (ps == nil || !ps.Exited()):
		// Had the shell exited on its own just before the kill, its own
		// status is the truth and the next cases report it.
		status = fmt.Sprintf("[%s; the command and the processes it started were killed]", stopped)
	case ps == nil:
		status = fmt.Sprintf("[%v]", err)
	case !ps.Exited():
		status = fmt.Sprintf("[%s]", ps) // "signal: killed"
	case ps.ExitCode() != 0:
		status = fmt.Sprintf("[exit code %d]", ps.ExitCode())
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		text = withLine(text, "[output may be incomplete: a process that left the command's process group kept it open]")
	}
	if status == "" && text == "" {
		text = "(no output)"
	}
	// The sandbox's line (first confined command of a session) comes after
	// the output and before the status, which stays the final line.
	if note != "" {
		text = withLine(text, note)
	}
	if status == "" {
		return contract.ToolResult{Content: text}
	}
	return contract.ToolResult{Content: withLine(text, status), IsError: true}
}

// group is a started command whose process group is killed as a whole.
type group struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	reaped bool
}

// wait waits for the shell, then kills what it left in its group, so a call
// leaves no process behind and no background child holds the output pipe
// open. Where the platform can wait for the exit without reaping the shell
// (Linux), the kill comes before the reap: the group's id is the shell's
// pid, which the system may hand to another process once it is reaped.
func (g *group) wait() error {
	if !waitExited(g.cmd.Process.Pid) {
		err := g.cmd.Wait()
		killGroup(g.cmd.Process)
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	killGroup(g.cmd.Process)
	err := g.cmd.Wait()
	g.reaped = true
	return err
}

// kill kills the group, unless the shell was reaped already (see wait).
func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		killGroup(g.cmd.Process)
	}
}

// withLine appends line to text on a line of its own.
func withLine(text, line string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + line
}

// seconds renders d as "90s" or "1.5s": the unit the model passes.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// maxSeconds is d in whole seconds, at least 1.
func maxSeconds(d time.Duration) int64 {
	return max(1, int64(d/time.Second))
}
