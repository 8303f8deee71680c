package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// runEnv names the variable every go test started by the runner sees: the
// entry's id, or "baseline".
const runEnv = "HELIOS_MUTATION_RUN"

// suite is one run: baseline, canary, then the selected entries.
type suite struct {
	root    string   // module root; go test runs here
	env     []string // the caller's environment
	goflags string   // the GOFLAGS go env reports (environment or go env -w)
	jobs    int
	timeout time.Duration
	verbose bool
	focus   bool // run only each entry's expected tests
	stdout  io.Writer
	stderr  io.Writer

	tmp    string     // private temp dir, removed when run returns
	module string     // the module path, for focusPackages
	tests  testIndex  // where the baseline found each test
	mu     sync.Mutex // serialises progress lines
	done   int
}

// gateError is a baseline or canary that failed, with the output showing why.
type gateError struct {
	msg     string
	excerpt []string
}

func (e *gateError) Error() string { return e.msg }

func (s *suite) run(ctx context.Context, canary *entry, entries []*entry) int {
	tmp, err := os.MkdirTemp(lookupEnv(s.env, "TMPDIR"), "helios-mutate-")
	if err != nil {
		return s.fail(ctx, fmt.Errorf("temp dir: %w", err))
	}
	defer os.RemoveAll(tmp)
	s.tmp = tmp
	s.module = modulePath(s.root)

	if err := s.baseline(ctx, packages(append([]*entry{canary}, entries...))); err != nil {
		return s.fail(ctx, err)
	}
	if err := s.canary(ctx, canary); err != nil {
		return s.fail(ctx, err)
	}
	outcomes, err := s.runAll(ctx, entries)
	if err != nil {
		return s.fail(ctx, err)
	}
	if _, failed := writeReport(s.stdout, outcomes); failed > 0 {
		return exitFail
	}
	return exitOK
}

// fail reports err; an interrupted run says only that.
func (s *suite) fail(ctx context.Context, err error) int {
	if ctx.Err() != nil {
		fmt.Fprintln(s.stderr, "mutate: interrupted")
		return exitFail
	}
	fmt.Fprintf(s.stderr, "mutate: %v\n", err)
	if g, ok := errors.AsType[*gateError](err); ok {
		writeExcerpt(s.stderr, g.excerpt)
	}
	return exitFail
}

// baseline runs the packages unmutated: they must pass, or no verdict means
// anything. It has no -timeout: it may be the run that fills the build cache.
func (s *suite) baseline(ctx context.Context, pkgs []string) error {
	r, err := goTest(ctx, s.root, s.childEnv("baseline"), "", pkgs, 0)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	o := judge(r, nil)
	s.tests = indexTests(r.stdout)
	s.progressf("baseline %s %s", strings.Join(pkgs, " "), secs(r.elapsed))
	switch o.verdict {
	case escaped:
		fmt.Fprintf(s.stdout, "baseline: ok (%s)\n", secs(r.elapsed))
		return nil
	case buildFailed:
		return &gateError{msg: "baseline does not build: " + o.detail, excerpt: o.excerpt}
	default:
		return &gateError{msg: "baseline fails: " + o.detail + "; fix the suite before mutating it", excerpt: o.excerpt}
	}
}

// canary runs a mutant that must be caught; if it is not, the runner itself is
// broken (overlays ignored, failures misread) and every ESCAPED would lie.
func (s *suite) canary(ctx context.Context, e *entry) error {
	o, err := s.mutate(ctx, e)
	if err != nil {
		return err
	}
	s.progressf("canary %s %s %s %s", e.ID, o.verdict, secs(o.elapsed), o.detail)
	if o.verdict != caught {
		return &gateError{
			msg:     fmt.Sprintf("canary %s was not caught (%s: %s): the runner itself is broken", e.ID, o.verdict, o.detail),
			excerpt: o.excerpt,
		}
	}
	fmt.Fprintf(s.stdout, "canary %s: caught by %s (%s)\n", e.ID, o.detail, secs(o.elapsed))
	return nil
}

// runAll runs the entries, s.jobs at a time; outcomes are in entry order.
func (s *suite) runAll(ctx context.Context, entries []*entry) ([]outcome, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	outcomes := make([]outcome, len(entries))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(s.jobs, len(entries)) {
		wg.Go(func() {
			for i := range next {
				o, err := s.mutate(ctx, entries[i])
				if err != nil {
					cancel(err) // the first error stops the run
					continue
				}
				outcomes[i] = o
				s.progressf("[%d/%d] %s %s %s %s", s.finished(), len(entries), o.entry.ID, o.verdict, secs(o.elapsed), o.detail)
			}
		})
	}
feed:
	for i := range entries {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return outcomes, nil
}

// mutate writes e's mutant and runs its packages against it.
func (s *suite) mutate(ctx context.Context, e *entry) (outcome, error) {
	dir := filepath.Join(s.tmp, e.ID)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return outcome{}, fmt.Errorf("mutant %s: %w", e.ID, err)
	}
	m, err := writeMutant(s.root, dir, e)
	if se, ok := errors.AsType[*staleError](err); ok {
		return outcome{entry: e, verdict: stale, detail: se.reason, excerpt: []string{"find: " + firstLine(e.Find)}}, nil
	}
	if err != nil {
		return outcome{}, fmt.Errorf("mutant %s: %w", e.ID, err)
	}
	pkgs := e.Packages
	if s.focus && len(e.Expect) > 0 {
		pkgs = append([]string{"-run", runPattern(e.Expect)}, focusPackages(e, s.tests, s.module)...)
	}
	r, err := goTest(ctx, s.root, s.childEnv(e.ID), m.overlay, pkgs, s.timeout)
	if err != nil {
		return outcome{}, fmt.Errorf("mutant %s: %w", e.ID, err)
	}
	o := judge(r, e.Expect)
	o.entry, o.elapsed = e, r.elapsed
	rw := m.pathRewriter(s.root, e.File)
	o.detail = rw.Replace(o.detail)
	for i, l := range o.excerpt {
		o.excerpt[i] = rw.Replace(l)
	}
	return o, nil
}

// childEnv is the go command's environment for one run. The go command's own
// work dir goes under our temp dir (unless GOTMPDIR is set) so that what a
// killed go test leaves behind is removed with it.
//
// GOFLAGS is always set, to what go env reported, so that a go env -w setting
// survives goTest adding the overlay to it. To it goes -ldflags=-w (unless it
// sets -ldflags already), through GOFLAGS so that the binaries tests build
// themselves get it too: most mutants relink the whole test binary, and
// writing DWARF was a third of each link (./test/unit: 7.4 s, 5.0 s without).
// Nothing a test observes needs it: stack traces come from the runtime's own
// tables.
func (s *suite) childEnv(id string) []string {
	env := append(slices.Clip(s.env), runEnv+"="+id, "PWD="+s.root)
	if lookupEnv(s.env, "GOTMPDIR") == "" {
		env = append(env, "GOTMPDIR="+s.tmp)
	}
	flags := s.goflags
	if !strings.Contains(flags, "-ldflags") {
		flags = strings.TrimSpace(flags + " -ldflags=-w")
	}
	return append(env, "GOFLAGS="+flags)
}

func (s *suite) finished() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
	return s.done
}

// progressf prints a -v line.
func (s *suite) progressf(format string, args ...any) {
	if !s.verbose {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.stderr, "mutate: "+format+"\n", args...)
}

// lookupEnv is os.Getenv over env; the last value wins, as in exec.
func lookupEnv(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// runPattern is the go test -run pattern of exactly the named top-level
// tests (fuzz targets included: -run runs their seed corpus).
func runPattern(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}
