package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// verdict is what a mutant run proved. Only caught passes.
type verdict int

const (
	caught verdict = iota
	caughtElsewhere
	escaped
	buildFailed
	stale
	timedOut
)

var verdictNames = [...]string{"CAUGHT", "CAUGHT-ELSEWHERE", "ESCAPED", "BUILD-FAILED", "STALE", "TIMEOUT"}

func (v verdict) String() string { return verdictNames[v] }

// outcome is one row of the report.
type outcome struct {
	entry    *entry
	verdict  verdict
	elapsed  time.Duration // 0 when nothing ran
	catchers []string      // failing top-level tests, sorted
	detail   string        // the row's catchers or reason
	excerpt  []string      // output shown under the table when not caught
}

// maxExcerpt bounds the lines shown per entry; the point is a hint, not a log.
const maxExcerpt = 20

// event is one test2json record (go doc test2json), build events included.
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	FailedBuild string
}

// summary digests a go test -json stream.
type summary struct {
	buildFailed bool
	buildOutput []string
	failed      map[string]bool     // every failing test by full name, subtests too
	catchers    []string            // sorted top-level failing tests, then "<pkg> (package)"
	output      map[string][]string // output lines by catcher
	lines       []string            // every output line, in order
	passed      []string            // the "ok" lines of packages that passed
}

func summarize(stream []byte) summary {
	s := summary{failed: map[string]bool{}, output: map[string][]string{}}
	pkgOutput := map[string][]string{}
	pkgHasFailedTest := map[string]bool{}
	var failedPkgs []string
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			s.lines = append(s.lines, sc.Text()) // not test2json: keep it for excerpts
			continue
		}
		line := strings.TrimRight(ev.Output, "\n")
		switch ev.Action {
		case "build-output":
			s.buildOutput = append(s.buildOutput, line)
		case "build-fail":
			s.buildFailed = true
		case "output":
			s.lines = append(s.lines, line)
			if ev.Test != "" {
				top := topLevel(ev.Test)
				s.output[top] = append(s.output[top], line)
			} else {
				pkgOutput[ev.Package] = append(pkgOutput[ev.Package], line)
				if strings.HasPrefix(line, "ok ") {
					s.passed = append(s.passed, line)
				}
			}
		case "fail":
			switch {
			case ev.FailedBuild != "":
				s.buildFailed = true
			case ev.Test != "":
				s.failed[ev.Test] = true
				pkgHasFailedTest[ev.Package] = true
			default:
				failedPkgs = append(failedPkgs, ev.Package)
			}
		}
	}
	for name := range s.failed {
		if top := topLevel(name); !slices.Contains(s.catchers, top) {
			s.catchers = append(s.catchers, top)
		}
	}
	slices.Sort(s.catchers)
	// A package can fail with no failing test: a panic in TestMain or init,
	// os.Exit in a test. That still catches the mutant.
	for _, pkg := range failedPkgs {
		if !pkgHasFailedTest[pkg] {
			name := pkg + " (package)"
			s.catchers = append(s.catchers, name)
			s.output[name] = pkgOutput[pkg]
		}
	}
	return s
}

func topLevel(test string) string {
	top, _, _ := strings.Cut(test, "/")
	return top
}

// judge turns a run into a verdict. expect, when given, names tests of which
// one must be among the failures.
func judge(r *testRun, expect []string) outcome {
	s := summarize(r.stdout)
	stderr := nonEmptyLines(r.stderr)
	switch {
	case r.timedOut:
		return outcome{
			verdict: timedOut,
			detail:  fmt.Sprintf("no result after %s", r.timeout),
			excerpt: tail(slices.Concat(s.lines, stderr), maxExcerpt),
		}
	case s.buildFailed:
		out := slices.Concat(s.buildOutput, stderr)
		return outcome{verdict: buildFailed, detail: firstError(out), excerpt: head(out, maxExcerpt)}
	case len(s.catchers) > 0:
		return judgeCaught(s, expect)
	case r.exitCode != 0:
		// go test failed before any test ran and said so only on stderr.
		return outcome{
			verdict: buildFailed,
			detail:  "go test failed: " + firstError(stderr),
			excerpt: head(slices.Concat(s.lines, stderr), maxExcerpt),
		}
	default:
		return outcome{verdict: escaped, detail: "no test failed", excerpt: head(s.passed, maxExcerpt)}
	}
}

// judgeCaught: some test failed. The excerpt is the catchers' output, shown
// for CAUGHT-ELSEWHERE and a failing baseline.
func judgeCaught(s summary, expect []string) outcome {
	var lines []string
	for _, c := range s.catchers {
		lines = append(lines, s.output[c]...)
	}
	o := outcome{
		verdict:  caught,
		catchers: s.catchers,
		detail:   strings.Join(s.catchers, ", "),
		excerpt:  head(lines, maxExcerpt),
	}
	switch {
	case len(expect) > 0 && !slices.ContainsFunc(expect, s.caughtBy):
		o.verdict = caughtElsewhere
		o.detail = fmt.Sprintf("caught by %s; expected %s", o.detail, strings.Join(expect, ", "))
	case len(expect) > 0:
		o.detail = expectedFirst(s, expect)
	}
	return o
}

// expectedFirst names the expected tests that failed, then counts the rest,
// so that a table row stays readable when a mutation breaks many tests.
func expectedFirst(s summary, expect []string) string {
	var named []string
	for _, e := range expect {
		if s.caughtBy(e) {
			named = append(named, e)
		}
	}
	if others := len(s.catchers) - len(named); others > 0 {
		return fmt.Sprintf("%s (+%d more)", strings.Join(named, ", "), others)
	}
	return strings.Join(named, ", ")
}

// caughtBy reports whether test (a top-level name, a full subtest name or
// "<pkg> (package)") failed.
func (s summary) caughtBy(test string) bool {
	return s.failed[test] || slices.Contains(s.catchers, test)
}

// firstError is the first line that is not a "# package" header.
func firstError(lines []string) string {
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return "no output"
}

func nonEmptyLines(s string) []string {
	var lines []string
	for l := range strings.Lines(s) {
		if l = strings.TrimRight(l, "\r\n"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func head(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append(slices.Clip(lines[:n]), fmt.Sprintf("... (%d more lines)", len(lines)-n))
}

func tail(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
}
