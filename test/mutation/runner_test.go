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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file run the runner, in process, on copies of
// testdata/fixture: a module of its own that the outer ./... ignores.

func TestFixtureVerdicts(t *testing.T) {
	root := fixture(t)
	before := snapshot(t, root)

	r := runRunner(t, root, nil, "-catalogue", "catalogue.yaml", "-j", "2")

	assert.Equal(t, exitFail, r.code, "exit code\n%s", r)
	want := []row{
		{ID: "M1", Verdict: "CAUGHT", Detail: "TestAbs"},
		{ID: "M2", Verdict: "ESCAPED", Detail: "no test failed"},
		{ID: "M3", Verdict: "STALE", Detail: "find text matches 0 times, want 1"},
		{ID: "M4", Verdict: "STALE", Detail: "find text matches 2 times (lines 14, 23), want 1"},
		{ID: "M5", Verdict: "BUILD-FAILED", Detail: "calc/calc.go:9:13: undefined: c"},
		{ID: "M6", Verdict: "CAUGHT-ELSEWHERE", Detail: "caught by TestAdd; expected TestAbs"},
	}
	assert.Empty(t, cmp.Diff(want, parseTable(t, r.stdout)), "table (-want +got)\n%s", r)
	for _, s := range []string{
		"baseline: ok",
		"canary CANARY: caught by TestAdd",
		"--- M6 CAUGHT-ELSEWHERE: caught by TestAdd; expected TestAbs\n",
		"Add(2, 3) = 6, want 5", // the excerpt shows what caught it
		"--- M5 BUILD-FAILED: calc/calc.go:9:13: undefined: c\n",
	} {
		assert.Contains(t, r.stdout, s, "stdout lacks %q\n%s", s, r)
	}
	assert.NotContains(t, r.stdout, "--- M1", "stdout has an excerpt for the CAUGHT M1\n%s", r)
	assert.Equal(t, "mutate: 1 passed, 5 failed", lastLine(r.stdout), "last line")
	assert.Empty(t, cmp.Diff(before, snapshot(t, root)), "working tree changed (-before +after)")
	assertCleanedUp(t, r.tmp)
}

func TestFixtureOnlyCaughtPasses(t *testing.T) {
	root := fixture(t)

	r := runRunner(t, root, nil, "-catalogue", "catalogue.yaml", "-j", "2", "-only", "M1", "-v")

	assert.Equal(t, exitOK, r.code, "exit code\n%s", r)
	assert.Empty(t, cmp.Diff([]row{{ID: "M1", Verdict: "CAUGHT", Detail: "TestAbs"}}, parseTable(t, r.stdout)), "table (-want +got)\n%s", r)
	assert.Equal(t, "mutate: 1 passed, 0 failed", lastLine(r.stdout), "last line")
	assert.Contains(t, r.stderr, "mutate: [1/1] M1 CAUGHT", "-v printed no progress line for M1\n%s", r)
}

// -focus runs only the expected tests: M1 is still caught by TestAbs, and
// M6, which only TestAdd catches, escapes instead of being caught elsewhere.
func TestFixtureFocus(t *testing.T) {
	root := fixture(t)

	r := runRunner(t, root, nil, "-catalogue", "catalogue.yaml", "-j", "2", "-only", "M1,M6", "-focus")

	assert.Equal(t, exitFail, r.code, "exit code\n%s", r)
	want := []row{
		{ID: "M1", Verdict: "CAUGHT", Detail: "TestAbs"},
		{ID: "M6", Verdict: "ESCAPED", Detail: "no test failed"},
	}
	assert.Empty(t, cmp.Diff(want, parseTable(t, r.stdout)), "table (-want +got)\n%s", r)
	assert.Equal(t, `^(TestAbs|Test\.Odd)$`, runPattern([]string{"TestAbs", "Test.Odd"}))
}

// -focus builds only the packages that hold an entry's expected tests. The
// mutant changes Abs's result type, which breaks the build of package user
// (not named by expect) and fails TestAbs: run over ./... it would read
// BUILD-FAILED; focused on calc it is CAUGHT by TestAbs.
func TestFixtureFocusBuildsOnlyTheExpectedTestsPackages(t *testing.T) {
	root := fixture(t)
	require.NoError(t, os.Mkdir(filepath.Join(root, "user"), 0o755))
	writeFile(t, filepath.Join(root, "user", "user.go"),
		"package user\n\nimport \"example.com/fixture/calc\"\n\nfunc Double(x int) int { return 2 * calc.Abs(x) }\n")
	writeFile(t, filepath.Join(root, "user", "user_test.go"),
		"package user\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(-2) != 4 {\n\t\tt.Fatal(Double(-2))\n\t}\n}\n")
	writeFile(t, filepath.Join(root, "focus.yaml"), `
packages: [./...]
canary: {id: CANARY, breaks: Add subtracts, file: calc/calc.go, find: "return a + b", replace: "return a - b", expect: [TestAdd]}
mutations:
  - id: F1
    breaks: Abs returns x unchanged, as an int64
    file: calc/calc.go
    find: "func Abs(x int) int {\n\tif x < 0 {\n\t\treturn -x\n\t}\n\treturn x\n}"
    replace: "func Abs(x int) int64 { return int64(x) }"
    expect: [TestAbs]
`)

	focused := runRunner(t, root, nil, "-catalogue", "focus.yaml", "-focus")
	whole := runRunner(t, root, nil, "-catalogue", "focus.yaml")

	assert.Equal(t, exitOK, focused.code, "exit code\n%s", focused)
	assert.Empty(t, cmp.Diff([]row{{ID: "F1", Verdict: "CAUGHT", Detail: "TestAbs"}}, parseTable(t, focused.stdout)), "-focus table (-want +got)\n%s", focused)
	require.Len(t, parseTable(t, whole.stdout), 1, "without -focus\n%s", whole)
	assert.Equal(t, "BUILD-FAILED", parseTable(t, whole.stdout)[0].Verdict, "without -focus, user is built\n%s", whole)
}

func TestFixtureTimeout(t *testing.T) {
	root := fixture(t)

	// Long enough for the canary on a busy 2-core machine; T1 sleeps an hour.
	r := runRunner(t, root, nil, "-catalogue", "timeout.yaml", "-j", "2", "-timeout", "10s")

	assert.Equal(t, exitFail, r.code, "exit code\n%s", r)
	assert.Empty(t, cmp.Diff([]row{{ID: "T1", Verdict: "TIMEOUT", Detail: "no result after 10s"}}, parseTable(t, r.stdout)), "table (-want +got)\n%s", r)
	assert.Equal(t, "mutate: 0 passed, 1 failed", lastLine(r.stdout), "last line")
	assertCleanedUp(t, r.tmp)
}

func TestFixtureInterrupted(t *testing.T) {
	root := fixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Interrupt a second after the canary, while T1 hangs.
	stderr := &watchWriter{match: "canary CANARY CAUGHT", then: func() { time.AfterFunc(time.Second, cancel) }}

	r := runRunnerContext(ctx, t, root, nil, stderr, "-catalogue", "timeout.yaml", "-timeout", "1m", "-v")

	assert.Equal(t, exitFail, r.code, "exit code = %d, want %d and \"mutate: interrupted\"\n%s", r.code, exitFail, r)
	assert.True(t, strings.HasSuffix(r.stderr, "mutate: interrupted\n"), "exit code = %d, want %d and \"mutate: interrupted\"\n%s", r.code, exitFail, r)
	assert.NotContains(t, r.stdout, "mutate:", "an interrupted run printed a summary\n%s", r)
	assertCleanedUp(t, r.tmp)
}

func TestFixtureBaselineMustPass(t *testing.T) {
	root := fixture(t)
	writeFile(t, filepath.Join(root, "calc", "broken_test.go"),
		"package calc\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) { t.Fatal(\"broken on purpose\") }\n")

	r := runRunner(t, root, nil, "-catalogue", "catalogue.yaml")

	assert.Equal(t, exitFail, r.code, "exit code\n%s", r)
	for _, s := range []string{"mutate: baseline fails: TestBroken;", "broken on purpose"} {
		assert.Contains(t, r.stderr, s, "stderr lacks %q\n%s", s, r)
	}
	assert.NotContains(t, r.stdout, "canary", "the canary ran after a failing baseline\n%s", r)
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

	assert.Equal(t, exitFail, r.code, "exit code\n%s", r)
	want := "mutate: canary CANARY was not caught (ESCAPED: no test failed): the runner itself is broken"
	assert.Contains(t, r.stderr, want, "stderr lacks %q\n%s", want, r)
	assert.NotContains(t, r.stdout, "M1", "mutations ran after the canary escaped\n%s", r)
}

func TestRefusesCover(t *testing.T) {
	for _, goflags := range []string{"-cover", "-buildvcs=false -coverpkg=./..."} {
		t.Run(goflags, func(t *testing.T) {
			r := runRunner(t, fixtureDir, []string{"GOFLAGS=" + goflags}, "-catalogue", "catalogue.yaml")

			assert.Equal(t, exitUsage, r.code, "exit code\n%s", r)
			assert.Contains(t, r.stderr, "GOFLAGS holds -cover", "stderr does not explain the refusal\n%s", r)
			assert.Contains(t, r.stderr, "-overlay", "stderr does not explain the refusal\n%s", r)
			assert.Empty(t, r.stdout, "something ran\n%s", r)
		})
	}
}

func TestList(t *testing.T) {
	before := snapshot(t, fixtureDir)

	r := runRunner(t, fixtureDir, nil, "-catalogue", "catalogue.yaml", "-list", "-only", "M2,M1")

	assert.Equal(t, exitOK, r.code, "exit code\n%s", r)
	want := []string{
		"ID               FILE          BREAKS",
		"CANARY (canary)  calc/calc.go  Add subtracts",
		"M1               calc/calc.go  Abs returns negative numbers unchanged",
		"M2               calc/calc.go  Sign calls positive numbers zero (no test looks)",
	}
	assert.Empty(t, cmp.Diff(want, strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")), "-list (-want +got)")
	assert.Empty(t, r.stderr, "stderr")
	assert.Empty(t, cmp.Diff(before, snapshot(t, fixtureDir)), "fixture changed (-before +after)")
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
			assert.Equal(t, exitUsage, r.code, "exit code = %d, want %d and stderr containing %q\n%s", r.code, exitUsage, tc.want, r)
			assert.Contains(t, r.stderr, tc.want, "exit code = %d, want %d and stderr containing %q\n%s", r.code, exitUsage, tc.want, r)
			assert.Empty(t, r.stdout, "something ran\n%s", r)
		})
	}
	t.Run("no go.mod", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"-C", t.TempDir()}, os.Environ(), &stdout, &stderr)
		assert.Equal(t, exitUsage, code, "exit code, stderr")
		assert.Contains(t, stderr.String(), "no go.mod in", "exit code, stderr")
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
	require.NoError(t, os.CopyFS(dir, os.DirFS(fixtureDir)))
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
	require.NoError(t, os.Mkdir(tmp, 0o700))
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
	require.GreaterOrEqual(t, start, 0, "no table in\n%s", stdout)
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
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// assertCleanedUp checks that the run removed its temp dir and that no
// process it started (go, compilers, test binaries, all of which live in or
// name that dir) is still alive.
func assertCleanedUp(t *testing.T, tmp string) {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	assert.Empty(t, left, "left behind in TMPDIR")
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
		if !assert.False(t, time.Now().After(deadline), "processes still running: %q", left) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func processesNaming(t *testing.T, s string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	require.NoError(t, err)
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
