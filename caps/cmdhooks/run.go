package cmdhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"time"
)

// pipeGrace is how long a finished command's output may stay open, held by
// a process it left running in the background, before it is closed.
const pipeGrace = time.Second

// ErrTimeout is wrapped by the error of a command that ran past its
// timeout and was killed. It wraps context.DeadlineExceeded, so telemetry
// counts the handler as timed out.
var ErrTimeout = fmt.Errorf("hook command timed out: %w", context.DeadlineExceeded)

// outcome is how a command ended: its exit status and what it printed,
// each stream bounded.
type outcome struct {
	code           int
	signal         string // the signal that ended it, when code is -1
	stdout, stderr *bounded
}

// run runs h's command with input on stdin and env as its environment, in
// the work dir, in a process group of its own. It returns an error only when the command did not
// finish: it could not start, it ran past its timeout (ErrTimeout) or ctx
// ended; then the command and its process group have been killed.
func (c *Hooks) run(ctx context.Context, h *hook, env []string, input []byte) (outcome, error) {
	out := outcome{stdout: &bounded{max: c.maxOutput}, stderr: &bounded{max: c.maxOutput}}
	cmd := exec.Command(h.shell[0], append(slices.Clip(h.shell[1:]), h.command)...)
	cmd.Dir = c.workDir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout, cmd.Stderr = out.stdout, out.stderr
	cmd.WaitDelay = pipeGrace
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return out, fmt.Errorf("could not start it with %s: %w", h.shell[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(h.timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		var exit *exec.ExitError
		switch {
		case err == nil, errors.As(err, &exit), errors.Is(err, exec.ErrWaitDelay):
			out.code = cmd.ProcessState.ExitCode() // -1 when a signal ended it
			out.signal = signalOf(cmd.ProcessState)
			return out, nil
		}
		return out, err
	case <-timer.C:
		killGroup(cmd.Process)
		<-done
		return out, fmt.Errorf("%w: it ran past its timeout of %s and was killed with its process group; the call went on without it", ErrTimeout, seconds(h.timeout))
	case <-ctx.Done():
		killGroup(cmd.Process)
		<-done
		return out, fmt.Errorf("killed with its process group: %w", context.Cause(ctx))
	}
}

// bounded keeps the first max bytes written to it and counts the rest: a
// command that prints gigabytes costs max bytes. os/exec copies each stream
// from one goroutine and it is read only after Wait: it needs no lock.
type bounded struct {
	max   int
	buf   []byte
	total int
}

func (b *bounded) Write(p []byte) (int, error) {
	b.total += len(p)
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// cut says whether more was written than kept.
func (b *bounded) cut() bool { return b.total > len(b.buf) }

// seconds renders d as "60s" or "0.5s": the unit a hook's timeout is
// written in.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
