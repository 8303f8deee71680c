package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

// Streams in the shape go test -json (Go 1.26) writes; see the fixture run in
// runner_test.go for the real thing.
const (
	passStream = `{"Action":"start","Package":"ex/p"}
{"Action":"run","Package":"ex/p","Test":"TestA"}
{"Action":"pass","Package":"ex/p","Test":"TestA"}
{"Action":"output","Package":"ex/p","Output":"ok  \tex/p\t0.01s\n"}
{"Action":"pass","Package":"ex/p"}
`
	subtestStream = `{"Action":"output","Package":"ex/p","Test":"TestAdd/sub","Output":"    p_test.go:8: bad\n"}
{"Action":"fail","Package":"ex/p","Test":"TestAdd/sub"}
{"Action":"fail","Package":"ex/p","Test":"TestAdd"}
{"Action":"fail","Package":"ex/q","Test":"TestB"}
{"Action":"fail","Package":"ex/r","Test":"TestAdd"}
{"Action":"fail","Package":"ex/p"}
{"Action":"fail","Package":"ex/q"}
{"Action":"fail","Package":"ex/r"}
`
	testMainPanicStream = `{"Action":"start","Package":"ex/q"}
{"Action":"output","Package":"ex/q","Output":"panic: boom\n"}
{"Action":"output","Package":"ex/q","Output":"FAIL\tex/q\t0.005s\n"}
{"Action":"fail","Package":"ex/q","Elapsed":0.006}
`
	buildFailStream = `{"ImportPath":"ex/p [ex/p.test]","Action":"build-output","Output":"# ex/p [ex/p.test]\n"}
{"ImportPath":"ex/p [ex/p.test]","Action":"build-output","Output":"p/p.go:3:37: undefined: zz\n"}
{"ImportPath":"ex/p [ex/p.test]","Action":"build-fail"}
{"Action":"start","Package":"ex/p"}
{"Action":"output","Package":"ex/p","Output":"FAIL\tex/p [build failed]\n"}
{"Action":"fail","Package":"ex/p","Elapsed":0,"FailedBuild":"ex/p [ex/p.test]"}
{"Action":"fail","Package":"ex/q","Test":"TestB"}
`
	// Before Go 1.24 build failures came only as a FailedBuild package fail.
	failedBuildOnlyStream = `{"Action":"fail","Package":"ex/p","FailedBuild":"ex/p"}
`
)

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name   string
		run    testRun
		expect []string
		want   outcome
	}{
		{
			name: "all pass",
			run:  testRun{stdout: []byte(passStream)},
			want: outcome{verdict: escaped, detail: "no test failed", excerpt: []string{"ok  \tex/p\t0.01s"}},
		},
		{
			name: "subtests fold into top-level names, deduplicated across packages",
			run:  testRun{stdout: []byte(subtestStream), exitCode: 1},
			want: outcome{verdict: caught, catchers: []string{"TestAdd", "TestB"}, detail: "TestAdd, TestB",
				excerpt: []string{"    p_test.go:8: bad"}},
		},
		{
			name:   "expected top-level test",
			run:    testRun{stdout: []byte(subtestStream), exitCode: 1},
			expect: []string{"TestB"},
			// The expected catcher is named first; the others are counted.
			want: outcome{verdict: caught, catchers: []string{"TestAdd", "TestB"}, detail: "TestB (+1 more)",
				excerpt: []string{"    p_test.go:8: bad"}},
		},
		{
			name:   "expected subtest",
			run:    testRun{stdout: []byte(subtestStream), exitCode: 1},
			expect: []string{"TestZ", "TestAdd/sub"},
			want: outcome{verdict: caught, catchers: []string{"TestAdd", "TestB"}, detail: "TestAdd/sub (+1 more)",
				excerpt: []string{"    p_test.go:8: bad"}},
		},
		{
			name:   "caught elsewhere names the catchers",
			run:    testRun{stdout: []byte(subtestStream), exitCode: 1},
			expect: []string{"TestZ"},
			want: outcome{verdict: caughtElsewhere, catchers: []string{"TestAdd", "TestB"},
				detail: "caught by TestAdd, TestB; expected TestZ", excerpt: []string{"    p_test.go:8: bad"}},
		},
		{
			name: "package failing without a failing test",
			run:  testRun{stdout: []byte(testMainPanicStream), exitCode: 1},
			want: outcome{verdict: caught, catchers: []string{"ex/q (package)"}, detail: "ex/q (package)",
				excerpt: []string{"panic: boom", "FAIL\tex/q\t0.005s"}},
		},
		{
			name: "build failure beats failing tests",
			run:  testRun{stdout: []byte(buildFailStream), exitCode: 1},
			want: outcome{verdict: buildFailed, detail: "p/p.go:3:37: undefined: zz",
				excerpt: []string{"# ex/p [ex/p.test]", "p/p.go:3:37: undefined: zz"}},
		},
		{
			name: "FailedBuild alone",
			run:  testRun{stdout: []byte(failedBuildOnlyStream), exitCode: 1},
			want: outcome{verdict: buildFailed, detail: "no output"},
		},
		{
			name: "go test failing with only stderr",
			run:  testRun{stderr: "go: -overlay: bad\n", exitCode: 1},
			want: outcome{verdict: buildFailed, detail: "go test failed: go: -overlay: bad",
				excerpt: []string{"go: -overlay: bad"}},
		},
		{
			name: "timeout wins",
			run:  testRun{stdout: []byte(subtestStream), timedOut: true, timeout: 5 * time.Second},
			want: outcome{verdict: timedOut, detail: "no result after 5s", excerpt: []string{"    p_test.go:8: bad"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := judge(&tc.run, tc.expect)
			assert.Empty(t, cmp.Diff(tc.want, got, cmp.AllowUnexported(outcome{})), "judge (-want +got)")
		})
	}
}

func TestExcerptIsBounded(t *testing.T) {
	lines := strings.Split(strings.Repeat("x\n", 30), "\n")[:30]
	got := head(lines, maxExcerpt)
	if assert.Len(t, got, maxExcerpt+1, "head: %d lines, last %q", len(got), got[len(got)-1]) {
		assert.Equal(t, "... (10 more lines)", got[maxExcerpt], "head: %d lines, last %q", len(got), got[len(got)-1])
	}
	got = tail(lines, maxExcerpt)
	if assert.Len(t, got, maxExcerpt+1, "tail: %d lines, first %q", len(got), got[0]) {
		assert.Equal(t, "... (10 lines before)", got[0], "tail: %d lines, first %q", len(got), got[0])
	}
}

func TestCoverFlag(t *testing.T) {
	for _, tc := range []struct {
		goflags string
		want    string
	}{
		{"", ""},
		{"-buildvcs=false -mod=mod", ""},
		{"-cover", "-cover"},
		{"-buildvcs=false -covermode=atomic", "-covermode=atomic"},
		{"--coverpkg=./...", "--coverpkg=./..."},
		{"-coverprofile=c.out", "-coverprofile=c.out"},
		{"-tags=cover", ""},
	} {
		got, ok := coverFlag(tc.goflags)
		assert.Equal(t, tc.want, got, "coverFlag(%q)", tc.goflags)
		assert.Equal(t, tc.want != "", ok, "coverFlag(%q)", tc.goflags)
	}
}
