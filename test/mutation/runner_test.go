package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The tests in this file run the runner, in process, on copies of
// testdata/fixture: a module of its own that the outer ./... ignores.

func TestFixtureVerdicts(t *testing.T) {
	root := fixture(t)
	before := snapshot(t, root)

	r := runRunner(t, root, nil, "-catalogue", "catalogue.yaml", "-j", "2")

	if r.code != exitFail {
		t.Errorf("exit code = %d, want %d\n%s", r.code, exitFail, r)
	}
	want := []row{
		{ID: "M1", Verdict: "CAUGHT", Detail: "TestAbs"},
		{ID: "M2", Verdict: "ESCAPED", Detail: "no test failed"},
		{ID: "M3", Verdict: "STALE", Detail: "find text matches 0 times, want 1"},
		{ID: "M4", Verdict: "STALE", Detail: "find text matches 2 times (lines 14, 23), want 1"},
		{ID: "M5", Verdict: "BUILD-FAILED", Detail: "calc/calc.go:9:13: undefined: c"},
		{ID: "M6", Verdict: "CAUGHT-ELSEWHERE", Detail: "caught by TestAdd; expected TestAbs"},
	}
	if diff := cmp.Diff(want, parseTable(t, r.stdout)); diff != "" {
		t.Errorf("table (-want +got):\n%s\n%s", diff, r)
	}
	for _, s := range []string{
		"baseline: ok",
		"canary CANARY: caught by TestAdd",
		"--- M6 CAUGHT-ELSEWHERE: caught by TestAdd; expected TestAbs\n",
		"Add(2, 3) = 6, want 5", // the excerpt shows what caught it
		"--- M5 BUILD-FAILED: calc/calc.go:9:13: undefined: c\n",
	} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q\n%s", s, r)
		}
	}
	if strings.Contains(r.stdout, "--- M1") {
		t.Errorf("stdout has an excerpt for the CAUGHT M1\n%s", r)
	}
	if got := lastLine(r.stdout); got != "mutate: 1 passed, 5 failed" {
		t.Errorf("last line = %q, want %q", got, "mutate: 1 passed, 5 failed")
	}
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("working tree changed (-before +after):\n%s", diff)
	}
	assertCleanedUp(t, r.tmp)
}

func TestFixtureOnlyCaughtPasses(t *testing.T) {
	root := fixture(t)

	r := runRunner(t, root, nil, "-catalogue", "catalogue.yaml", "-j", "2", "-only", "M1", "-v")

	if r.code != exitOK {
		t.Errorf("exit code = %d, want %d\n%s", r.code, exitOK, r)
	}
	if diff := cmp.Diff([]row{{ID: "M1", Verdict: "CAUGHT", Detail: "TestAbs"}}, parseTable(t, r.stdout)); diff != "" {
		t.Errorf("table (-want +got):\n%s\n%s", diff, r)
	}
	if got := lastLine(r.stdout); got != "mutate: 1 passed, 0 failed" {
		t.Errorf("last line = %q, want %q", got, "mutate: 1 passed, 0 failed")
	}
	if !strings.Contains(r.stderr, "mutate: [1/1] M1 CAUGHT") {
		t.Errorf("-v printed no progress line for M1\n%s", r)
	}
}

func TestFixtureTimeout(t *testing.T) {
	root := fixture(t)

	// Long enough for the canary on a busy 2-core machine; T1 sleeps an hour.
	r := runRunner(t, root, nil, "-catalogue", "timeout.yaml", "-j", "2", "-timeout", "10s")

	if r.code != exitFail {
		t.Errorf("exit code = %d, want %d\n%s", r.code, exitFail, r)
	}
	if diff := cmp.Diff([]row{{ID: "T1", Verdict: "TIMEOUT", Detail: "no result after 10s"}}, parseTable(t, r.stdout)); diff != "" {
		t.Errorf("table (-want +got):\n%s\n%s", diff, r)
	}
	if got := lastLine(r.stdout); got != "mutate: 0 passed, 1 failed" {
		t.Errorf("last line = %q", got)
	}
	assertCleanedUp(t, r.tmp)
}

func TestFixtureInterrupted(t *testing.T) {
	root := fixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Interrupt a second after the canary, while T1 hangs.
	stderr := &watchWriter{match: "canary CANARY CAUGHT", then: func() { time.AfterFunc(time.Second, cancel) }}

	r := runRunnerContext(ctx, t, root, nil, stderr, "-catalogue", "timeout.yaml", "-timeout", "1m", "-v")

	if r.code != exitFail || !strings.HasSuffix(r.stderr, "mutate: interrupted\n") {
		t.Errorf("exit code = %d, want %d and \"mutate: interrupted\"\n%s", r.code, exitFail, r)
	}
	if strings.Contains(r.stdout, "mutate:") {
		t.Errorf("an interrupted run printed a summary\n%s", r)
	}
	assertCleanedUp(t, r.tmp)
}

func TestFixtureBaselineMustPass(t *testing.T) {
	root := fixture(t)
	writeFile(t, filepath.Join(root, "calc", "broken_test.go"),
		"package calc\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) { t.Fatal(\"broken on purpose\") }\n")

	r := runRunner(t, root, nil, "-catalogue", "catalogue.yaml")

	if r.code != exitFail {
		t.Errorf("exit code = %d, want %d\n%s", r.code, exitFail, r)
	}
	for _, s := range []string{"mutate: baseline fails: TestBroken;", "broken on purpose"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q\n%s", s, r)
		}
	}
	if strings.Contains(r.stdout, "canary") {
		t.Errorf("the canary ran after a failing baseline\n%s", r)
	}
}

func TestFixtureCanaryMustBeCaught(t *testing.T) {
	root := fixture(t)
	writeFile(t, filepath.Join(root, "escaping.yaml"), `
canary:
  id: CANARY
  breaks: Sign calls positive numbers zero, which no test notices
  file: calc/calc.go
  find: 'return "positive"'
  replace: 'return "zero"'
mutations:
  - {id: M1, breaks: Add subtracts, file: calc/calc.go, find: "return a + b", replace: "return a - b"}
`)

	r := runRunner(t, root, nil, "-catalogue", "escaping.yaml")

	if r.code != exitFail {
		t.Errorf("exit code = %d, want %d\n%s", r.code, exitFail, r)
	}
	if want := "mutate: canary CANARY was not caught (ESCAPED: no test failed): the runner itself is broken"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q\n%s", want, r)
	}
	if strings.Contains(r.stdout, "M1") {
		t.Errorf("mutations ran after the canary escaped\n%s", r)
	}
}

func TestRefusesCover(t *testing.T) {
	for _, goflags := range []string{"-cover", "-buildvcs=false -coverpkg=./..."} {
		t.Run(goflags, func(t *testing.T) {
			r := runRunner(t, fixtureDir, []string{"GOFLAGS=" + goflags}, "-catalogue", "catalogue.yaml")

			if r.code != exitUsage {
				t.Errorf("exit code = %d, want %d\n%s", r.code, exitUsage, r)
			}
			if !strings.Contains(r.stderr, "GOFLAGS holds -cover") || !strings.Contains(r.stderr, "-overlay") {
				t.Errorf("stderr does not explain the refusal\n%s", r)
			}
			if r.stdout != "" {
				t.Errorf("something ran\n%s", r)
			}
		})
	}
}

func TestList(t *testing.T) {
	before := snapshot(t, fixtureDir)

	r := runRunner(t, fixtureDir, nil, "-catalogue", "catalogue.yaml", "-list", "-only", "M2,M1")

	if r.code != exitOK {
		t.Errorf("exit code = %d, want %d\n%s", r.code, exitOK, r)
	}
	want := []string{
		"ID               FILE          BREAKS",
		"CANARY (canary)  calc/calc.go  Add subtracts",
		"M1               calc/calc.go  Abs returns negative numbers unchanged",
		"M2               calc/calc.go  Sign calls positive numbers zero (no test looks)",
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")); diff != "" {
		t.Errorf("-list (-want +got):\n%s", diff)
	}
	if r.stderr != "" {
		t.Errorf("stderr = %q", r.stderr)
	}
	if diff := cmp.Diff(before, snapshot(t, fixtureDir)); diff != "" {
		t.Errorf("fixture changed (-before +after):\n%s", diff)
	}
}

// TestUsageErrors: none of these may run anything.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown -only id", []string{"-only", "M1,M99"}, "-only: unknown id M99; known: M1, M2, M3, M4, M5, M6"},
		{"empty -only", []string{"-only", ","}, "-only: no ids given"},
		{"-j 0", []string{"-j", "0"}, "-j 0: must be at least 1"},
		{"-timeout 0", []string{"-timeout", "0s"}, "-timeout 0s: must be positive"},
		{"arguments", []string{"M1"}, `unexpected arguments ["M1"]`},
		{"no catalogue", []string{"-catalogue", "nope.yaml"}, "load catalogue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runRunner(t, fixtureDir, nil, append([]string{"-catalogue", "catalogue.yaml"}, tc.args...)...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit code = %d, want %d and stderr containing %q\n%s", r.code, exitUsage, tc.want, r)
			}
			if r.stdout != "" {
				t.Errorf("something ran\n%s", r)
			}
		})
	}
	t.Run("no go.mod", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"-C", t.TempDir()}, os.Environ(), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "no go.mod in") {
			t.Errorf("exit code = %d, stderr = %q", code, stderr.String())
		}
	})
}

// result is one in-process run of the command.
type result struct {
	code           int
	stdout, stderr string
	tmp            string // the TMPDIR it was given
}

func (r result) String() string {
	return "--- stdout:\n" + r.stdout + "--- stderr:\n" + r.stderr
}

// fixtureDir is the fixture in the tree, for runs that must not run go test
// (a test of those also proves they did not write to it).
const fixtureDir = "testdata/fixture"

// fixture copies the fixture to a temp dir, the working tree of one test that
// runs go test, or skips the test where running go test is unwelcome.
func fixture(t *testing.T) string {
	t.Helper()
	if id := os.Getenv(runEnv); id != "" {
		t.Skipf("inside a mutation run (%s=%s): these tests run go test themselves", runEnv, id)
	}
	if testing.Short() {
		t.Skip("runs go test on a fixture module")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fixture")
	if err := os.CopyFS(dir, os.DirFS(fixtureDir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runRunner(t *testing.T, root string, env []string, args ...string) result {
	t.Helper()
	return runRunnerContext(t.Context(), t, root, env, nil, args...)
}

// runRunnerContext runs the command on root with env added to ours and a
// fresh TMPDIR, so that what the run leaves behind can be checked. stderr, if
// not nil, sees stderr as it is written.
func runRunnerContext(ctx context.Context, t *testing.T, root string, env []string, stderr *watchWriter, args ...string) result {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	if stderr == nil {
		stderr = &watchWriter{}
	}
	var stdout bytes.Buffer
	code := run(ctx, append([]string{"-C", root}, args...), env, &stdout, stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String(), tmp: tmp}
}

// watchWriter is a buffer that calls then once match has been written.
type watchWriter struct {
	match string
	then  func()
	mu    sync.Mutex
	buf   bytes.Buffer
	fired bool
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.match != "" && !w.fired && strings.Contains(w.buf.String(), w.match) {
		w.fired = true
		w.then()
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// row is a table row; time is left out, it varies.
type row struct{ ID, Verdict, Detail string }

// parseTable reads the report's table, cutting rows at the header's column
// starts.
func parseTable(t *testing.T, stdout string) []row {
	t.Helper()
	lines := strings.Split(stdout, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "ID ") && strings.Contains(l, "VERDICT") {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no table in\n%s", stdout)
	}
	header := lines[start]
	cols := []int{0}
	for _, name := range []string{"VERDICT", "TIME", "CAUGHT BY / REASON", "BREAKS"} {
		cols = append(cols, strings.Index(header, name))
	}
	cell := func(l string, i int) string {
		end := len(l)
		if i+1 < len(cols) {
			end = min(cols[i+1], len(l))
		}
		return strings.TrimSpace(l[min(cols[i], len(l)):end])
	}
	var rows []row
	for _, l := range lines[start+1:] {
		if l == "" {
			break
		}
		rows = append(rows, row{ID: cell(l, 0), Verdict: cell(l, 1), Detail: cell(l, 3)})
	}
	return rows
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// assertCleanedUp checks that the run removed its temp dir and that no
// process it started (go, compilers, test binaries, all of which live in or
// name that dir) is still alive.
func assertCleanedUp(t *testing.T, tmp string) {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
	if runtime.GOOS != "linux" {
		return // no /proc to look at
	}
	// A killed process may take a moment to go; zombies have no cmdline.
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesNaming(t, tmp)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes still running: %q", left)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func processesNaming(t *testing.T, s string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range cmdlines {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the process is gone
		}
		if cmd := strings.ReplaceAll(string(data), "\x00", " "); strings.Contains(cmd, s) {
			found = append(found, cmd)
		}
	}
	return found
}
