package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/sanitize"
)

// askOnTerminal reports whether `helios run` has a person to ask: stdin and
// stderr are this process's terminal (stderr as run was given it, so an
// in-process caller with its own writers never blocks on the terminal).
func askOnTerminal(stderr io.Writer) bool {
	return stderr == io.Writer(os.Stderr) && term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stderr.Fd())
}

// termAsker answers a session's asks (a permission rule's or a hook's) from
// the terminal: it shows the call, the rule and why on w, and reads one line
// from in: y runs the call, n (or an empty line) denies it, a runs it and
// every later call the same rule asks about in this session.
type termAsker struct {
	w  io.Writer
	in io.Reader

	start sync.Once
	lines chan string

	mu     sync.Mutex // one question at a time
	always map[string]bool
}

func newTermAsker(w io.Writer, in io.Reader) *termAsker {
	return &termAsker{w: w, in: in, lines: make(chan string), always: map[string]bool{}}
}

// confirm is a kernel.SessionConfig.Confirm. A context ended while waiting
// denies, with the cause.
func (a *termAsker) confirm(ctx context.Context, q kernel.Confirmation) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	call := sanitize.Text(q.Call.Name) + " " + clip(string(q.Call.Arguments), 300)
	if q.Rule != "" && a.always[q.Rule] {
		fmt.Fprintf(a.w, "helios: %s allowed: rule %s is allowed for this session\n", call, sanitize.Text(q.Rule))
		return true, nil
	}
	// The reading starts at the first question: a run that asks nothing
	// never takes the terminal's input.
	a.start.Do(func() { go a.read() })
	keys := "y (yes) / n (no)"
	if q.Rule != "" {
		keys = "y (yes) / n (no) / a (always, for this session)"
	}
	fmt.Fprintf(a.w, "\nhelios: allow this tool call?\n  %s\n", call)
	if q.Rule != "" {
		fmt.Fprintf(a.w, "  rule: %s\n", sanitize.Text(q.Rule))
	}
	for _, line := range strings.Split(strings.TrimSpace(q.Reason), "\n") {
		if line != "" {
			fmt.Fprintf(a.w, "  %s\n", sanitize.Text(line))
		}
	}
	for {
		fmt.Fprintf(a.w, "  %s: ", keys)
		var line string
		select {
		case l, ok := <-a.lines:
			if !ok {
				fmt.Fprintln(a.w)
				return false, errors.New("the terminal's input ended")
			}
			line = l
		case <-ctx.Done():
			fmt.Fprintln(a.w)
			return false, context.Cause(ctx)
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		case "n", "no", "":
			return false, nil
		case "a", "always":
			if q.Rule != "" {
				a.always[q.Rule] = true
				return true, nil
			}
		}
	}
}

// read passes the terminal's lines to the questions until its input ends.
func (a *termAsker) read() {
	sc := bufio.NewScanner(a.in)
	for sc.Scan() {
		a.lines <- sc.Text()
	}
	close(a.lines)
}
