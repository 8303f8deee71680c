package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// testRun is what one go test -json left behind.
type testRun struct {
	stdout   []byte // the test2json stream
	stderr   string
	exitCode int
	elapsed  time.Duration
	timedOut bool
	timeout  time.Duration
}

// baselineLimit bounds the unmutated run of the selected packages: the
// whole of ./test/unit takes several minutes on a busy two-core machine.
const baselineLimit = 40 * time.Minute

// goTest runs go test -json on pkgs from root, with the overlay file if one is
// given. A timeout of 0 means none. The error is for a go command that could
// not be started and for ctx being done (the run was interrupted); a timeout
// is a result.
func goTest(ctx context.Context, root string, env []string, overlay string, pkgs []string, timeout time.Duration) (*testRun, error) {
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	// go test's own limit (10 minutes unless told) must not end a run
	// before the runner does: a minute past the mutant's timeout, and for
	// the baseline, which has none, baselineLimit, so that a hung test is
	// named by go test rather than left to CI's clock.
	limit := baselineLimit
	if timeout > 0 {
		limit = timeout + time.Minute
	}
	args := []string{"test", "-count=1", "-vet=off", "-json", "-timeout=" + limit.String()}
	if overlay != "" {
		args = append(args, "-overlay="+overlay)
		// Also through GOFLAGS, so that go commands the tests run themselves
		// (a TestMain that builds the helios binary) compile the mutant too.
		env = withGoFlag(env, "-overlay="+overlay)
	}
	cmd := exec.CommandContext(runCtx, "go", append(args, pkgs...)...)
	cmd.Dir = root
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	killGroupOnCancel(cmd)
	// If something outside the group still holds the pipes, do not wait for it.
	cmd.WaitDelay = 10 * time.Second

	start := time.Now()
	err := cmd.Run()
	r := &testRun{
		stdout:  stdout.Bytes(),
		stderr:  stderr.String(),
		elapsed: time.Since(start),
		timeout: timeout,
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("go test: %w", ctx.Err())
	}
	if runCtx.Err() != nil {
		r.timedOut = true
		return r, nil
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.exitCode = exit.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("go test: %w", err)
	}
	return r, nil
}

// goFlags returns the GOFLAGS the go command will see (environment or go env
// -w), and an error when they ask for coverage, which silently drops
// overlays.
func goFlags(ctx context.Context, root string, env []string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOFLAGS")
	cmd.Dir = root
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOFLAGS: %w", err)
	}
	flags := strings.TrimSpace(string(out))
	if f, ok := coverFlag(flags); ok {
		return "", fmt.Errorf("GOFLAGS holds %s: coverage instrumentation silently drops -overlay, "+
			"so every mutant would run the original code; unset it for the mutation suite", f)
	}
	return flags, nil
}

// coverFlag returns the first -cover, -covermode, -coverpkg or -coverprofile
// flag in goflags.
func coverFlag(goflags string) (string, bool) {
	for _, f := range strings.Fields(goflags) {
		if name := strings.TrimLeft(f, "-"); len(name) < len(f) && strings.HasPrefix(name, "cover") {
			return f, true
		}
	}
	return "", false
}

// withGoFlag returns env with flag added to GOFLAGS.
func withGoFlag(env []string, flag string) []string {
	out := make([]string, 0, len(env)+1)
	flags := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			flags = v
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOFLAGS="+strings.TrimSpace(flags+" "+flag))
}
