package tools_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/tools"
)

// grepCase is one Grep call and the output it must give, whole.
type grepCase struct {
	name string
	args m
	want string
}

func runGrepCases(t *testing.T, e *env, cases []grepCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := e.call(t, "Grep", tc.args)
			require.False(t, res.IsError, "Grep(%v): %s", tc.args, res.Content)
			assert.Empty(t, cmp.Diff(tc.want, res.Content), "Grep(%v) (-want +got)", tc.args)
		})
	}
}

// Protects: M1147 (case-insensitivity ignored), M1156 (multiline). Grep's three output modes,
// -i, -n, multiline, a path naming a folder or a file, and "no matches".
func TestGrepModes(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("a.go"), "func Alpha() {}\nfunc beta() {}\n")
	mkfile(t, e.path("b.txt"), "alpha beta\n")
	mkfile(t, e.path("sub/c.go"), "// alpha\nx := 1\nalpha again")
	mkfile(t, e.path("sub.txt"), "nothing here\n")
	runGrepCases(t, e, []grepCase{
		{"files by default, sorted", m{"pattern": "alpha"}, "b.txt\nsub/c.go\n"},
		{"-i", m{"pattern": "ALPHA", "-i": true}, "a.go\nb.txt\nsub/c.go\n"},
		{"case matters without -i", m{"pattern": "ALPHA"}, "no matches for \"ALPHA\" in the work dir\n"},
		{"content", m{"pattern": "alpha", "output_mode": "content"}, "b.txt:1:alpha beta\nsub/c.go:1:// alpha\nsub/c.go:3:alpha again\n"},
		{"content without -n", m{"pattern": "alpha", "output_mode": "content", "-n": false}, "b.txt:alpha beta\nsub/c.go:// alpha\nsub/c.go:alpha again\n"},
		{"count", m{"pattern": "alpha|beta", "output_mode": "count"}, "a.go:1\nb.txt:1\nsub/c.go:2\n"},
		{"a folder", m{"pattern": "alpha", "path": "sub"}, "sub/c.go\n"},
		{"a file, absolute", m{"pattern": "a", "path": e.path("b.txt"), "output_mode": "content"}, "b.txt:1:alpha beta\n"},
		{"a line at a time", m{"pattern": `alpha\nx`}, "no matches for \"alpha\\\\nx\" in the work dir\n"},
		{"multiline", m{"pattern": `alpha.x :=`, "multiline": true, "output_mode": "content"}, "sub/c.go:1:// alpha\nsub/c.go:2:x := 1\n"},
		{"no matches in a path", m{"pattern": "zeta", "path": "sub"}, "no matches for \"zeta\" in sub\n"},
	})

	res := e.call(t, "Grep", m{"pattern": "a(b"})
	assert.True(t, res.IsError, "a bad regexp: %+v", res)
	assert.Contains(t, res.Content, "bad pattern \"a(b\": missing closing )")
	res = e.call(t, "Grep", m{"pattern": "a", "path": "nope"})
	assert.True(t, res.IsError, "a missing path: %+v", res)
	assert.Contains(t, res.Content, `no such file: "nope"`)
}

// Protects: M1148 (context lines off by one). -A, -B and -C print context
// lines with "-", matches with ":", and "--" between runs that do not
// touch, also between files; -A and -B win over -C.
func TestGrepContext(t *testing.T) {
	e := newEnv(t, tools.Config{})
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "l%d\n", i)
	}
	mkfile(t, e.path("f"), b.String())
	mkfile(t, e.path("g"), "l5\n")
	runGrepCases(t, e, []grepCase{
		{"-C 1", m{"pattern": "^l[59]$", "output_mode": "content", "-C": 1, "path": "f"},
			"f-4-l4\nf:5:l5\nf-6-l6\n--\nf-8-l8\nf:9:l9\nf-10-l10\n"},
		{"-B 2", m{"pattern": "^l[59]$", "output_mode": "content", "-B": 2, "path": "f"},
			"f-3-l3\nf-4-l4\nf:5:l5\n--\nf-7-l7\nf-8-l8\nf:9:l9\n"},
		{"-A 1 wins over -C 3", m{"pattern": "^l9$", "output_mode": "content", "-C": 3, "-A": 1, "path": "f"},
			"f-6-l6\nf-7-l7\nf-8-l8\nf:9:l9\nf-10-l10\n"},
		{"runs that touch are one", m{"pattern": "^l[57]$", "output_mode": "content", "-C": 1, "path": "f"},
			"f-4-l4\nf:5:l5\nf-6-l6\nf:7:l7\nf-8-l8\n"},
		{"between files", m{"pattern": "^l5$", "output_mode": "content", "-A": 1},
			"f:5:l5\nf-6-l6\n--\ng:1:l5\n"},
		{"no context, no separators", m{"pattern": "^l[59]$", "output_mode": "content"},
			"f:5:l5\nf:9:l9\ng:1:l5\n"},
	})
}

// Protects: M1155 (head_limit ignored). head_limit keeps the first N
// lines or entries and says how many it left out.
func TestGrepHeadLimit(t *testing.T) {
	e := newEnv(t, tools.Config{})
	for _, f := range []string{"a", "b", "c"} {
		mkfile(t, e.path(f), "x\nx\n")
	}
	runGrepCases(t, e, []grepCase{
		{"files", m{"pattern": "x", "head_limit": 2}, "a\nb\n(head_limit 2: 1 more lines not shown)\n"},
		{"content", m{"pattern": "x", "head_limit": 3, "output_mode": "content"}, "a:1:x\na:2:x\nb:1:x\n(head_limit 3: 3 more lines not shown)\n"},
		{"count", m{"pattern": "x", "head_limit": 1, "output_mode": "count"}, "a:2\n(head_limit 1: 2 more lines not shown)\n"},
		{"zero is no limit", m{"pattern": "x", "head_limit": 0}, "a\nb\nc\n"},
	})
}

// glob selects files by name, or by path under the search root when it has
// a slash; a leading ! leaves them out; type selects by a known type.
func TestGrepGlobAndType(t *testing.T) {
	e := newEnv(t, tools.Config{})
	for _, f := range []string{"a.go", "b.ts", "c.tsx", "d.txt", "src/e.go", "src/deep/f.tsx", "src/README.md"} {
		mkfile(t, e.path(f), "hit\n")
	}
	runGrepCases(t, e, []grepCase{
		{"name glob", m{"pattern": "hit", "glob": "*.go"}, "a.go\nsrc/e.go\n"},
		{"braces at any depth", m{"pattern": "hit", "glob": "**/*.{ts,tsx}"}, "b.ts\nc.tsx\nsrc/deep/f.tsx\n"},
		{"path glob", m{"pattern": "hit", "glob": "src/**/*.tsx"}, "src/deep/f.tsx\n"},
		{"path glob under the path", m{"pattern": "hit", "glob": "deep/*", "path": "src"}, "src/deep/f.tsx\n"},
		{"negated", m{"pattern": "hit", "glob": "!*.{go,tsx,ts}"}, "d.txt\nsrc/README.md\n"},
		{"type", m{"pattern": "hit", "type": "ts"}, "b.ts\nc.tsx\nsrc/deep/f.tsx\n"},
		{"type and glob", m{"pattern": "hit", "type": "go", "glob": "src/**"}, "src/e.go\n"},
		{"type md", m{"pattern": "hit", "type": "md"}, "src/README.md\n"},
	})
	res := e.call(t, "Grep", m{"pattern": "hit", "type": "cobol"})
	assert.True(t, res.IsError, "%+v", res)
	assert.Contains(t, res.Content, `unknown type "cobol"; Grep knows c, cpp, go, java, js, json, md, py, rust, sh, ts, yaml`)
	res = e.call(t, "Grep", m{"pattern": "hit", "glob": "[a"})
	assert.True(t, res.IsError, "%+v", res)
	assert.Contains(t, res.Content, `bad glob "[a"`)
}

// Protects: M1146 (a path outside answered, not refused). The env's
// symlinks point outside, at a file holding "secret": a search of the work
// dir does not follow them, and naming one is refused.
func TestGrepFollowsNoSymlinkOut(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("a.txt"), "no secrets here\n")
	for _, mode := range []string{"files_with_matches", "content", "count"} {
		res := e.call(t, "Grep", m{"pattern": "^secret$", "output_mode": mode})
		assert.Equal(t, "no matches for \"^secret$\" in the work dir\n", res.Content, mode)
	}
	res := e.call(t, "Grep", m{"pattern": "secret", "path": "outdir"})
	assert.True(t, res.IsError, "%+v", res)
	assert.Contains(t, res.Content, "refused")
}

// Protects: M1145 (Grep searching what Hidden covers). A file a Read deny
// rule covers is neither searched nor listed, even when named.
func TestGrepLeavesOutHidden(t *testing.T) {
	var e *env
	e = newEnv(t, tools.Config{Hidden: func(p string) bool {
		return p == e.path(".env") || strings.HasPrefix(p, e.path("secrets")+"/")
	}})
	mkfile(t, e.path(".env"), "TOKEN=s3cr3t\n")
	mkfile(t, e.path("secrets/key"), "TOKEN=k3y\n")
	mkfile(t, e.path("main.go"), "os.Getenv(\"TOKEN\")\n")
	runGrepCases(t, e, []grepCase{
		{"content", m{"pattern": "TOKEN", "output_mode": "content"}, "main.go:1:os.Getenv(\"TOKEN\")\n"},
		{"files", m{"pattern": "TOKEN"}, "main.go\n"},
		{"named", m{"pattern": "TOKEN", "path": ".env"}, "no matches for \"TOKEN\" in .env\n"},
		{"folder named", m{"pattern": "TOKEN", "path": "secrets"}, "no matches for \"TOKEN\" in secrets\n"},
	})
}

// Protects: M1151 (.git searched), M1152 (.gitignore ignored). Grep leaves
// out .git and what the .gitignore files ignore, a deeper file's rules
// and "!" re-includes applying as git applies them; a file named in path is
// searched even if ignored.
func TestGrepSkipsGitAndGitignored(t *testing.T) {
	e := newEnv(t, tools.Config{})
	for f, text := range map[string]string{
		".git/config":    "needle\n",
		".gitignore":     "build/\n*.log\n!keep.log\n# needle\n",
		"build/out.txt":  "needle\n",
		"a.log":          "needle\n",
		"keep.log":       "needle\n",
		"src/.gitignore": "gen.go\n",
		"src/gen.go":     "needle\n",
		"src/main.go":    "needle\n",
		"main.txt":       "needle\n",
	} {
		mkfile(t, e.path(f), text)
	}
	runGrepCases(t, e, []grepCase{
		{"the work dir", m{"pattern": "needle"}, ".gitignore\nkeep.log\nmain.txt\nsrc/main.go\n"},
		{"a folder under a .gitignore", m{"pattern": "needle", "path": "src"}, "src/main.go\n"},
		{"an ignored file named", m{"pattern": "needle", "path": "a.log"}, "a.log\n"},
	})
}

// Protects: M1149 (binary files searched). A file with a NUL byte in its
// first 8 KiB is not searched, one with a NUL further on is; a file over
// the Read limit is not searched, and the output says so.
func TestGrepSkipsBinaryAndHugeFiles(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("bin.dat"), "needle\x00\n")
	mkfile(t, e.path("late.txt"), "needle\n"+strings.Repeat("x", 9<<10)+"\x00\n")
	mkfile(t, e.path("text.txt"), "needle\n")
	mkfile(t, e.path("huge.txt"), "needle\n")
	require.NoError(t, os.Truncate(e.path("huge.txt"), 16<<20+1))
	runGrepCases(t, e, []grepCase{
		{"files", m{"pattern": "needle"}, "late.txt\ntext.txt\n(1 files larger than 16777216 bytes were not searched; use Bash for them)\n"},
	})
}

// Protects: M1150 (output unbounded). Output stops before MaxOutput bytes
// at a whole line, and the last line says how many lines were left out and
// how to narrow the search.
func TestGrepStopsAtMaxOutput(t *testing.T) {
	e := newEnv(t, tools.Config{MaxOutput: 40})
	for i := range 10 {
		mkfile(t, e.path(fmt.Sprintf("f%d", i)), "hit\n")
	}
	// "fN:1:hit\n" is 9 bytes: four fit in 40.
	want := "f0:1:hit\nf1:1:hit\nf2:1:hit\nf3:1:hit\n(output is limited to 40 bytes: 6 more lines not shown; narrow the search with path, glob, type or a more specific pattern)\n"
	res := e.call(t, "Grep", m{"pattern": "hit", "output_mode": "content"})
	assert.Empty(t, cmp.Diff(want, res.Content))
}

// Protects: what real repositories and hostile ones hold. File names with
// spaces, unicode and a newline are searched and shown; a single 1 MiB
// line is shown cut, not whole; a pattern that would backtrack for ever in
// a backtracking engine (`(a+)+$` over a long run of a's) answers at once
// (RE2 is linear), saying no line matches.
func TestGrepHostileInput(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("dir with space/ünïcödé 名前.md"), "needle one\n")
	mkfile(t, e.path("new\nline.txt"), "needle two\n")
	mkfile(t, e.path("long.min.js"), "needle"+strings.Repeat("x", 1<<20)+"\n")
	mkfile(t, e.path("aaa.txt"), strings.Repeat("a", 1<<16)+"b\n")

	res := e.call(t, "Grep", m{"pattern": "needle"})
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "dir with space/ünïcödé 名前.md\nlong.min.js\nnew\nline.txt\n", res.Content)

	res = e.call(t, "Grep", m{"pattern": "needle", "path": "long.min.js", "output_mode": "content"})
	require.False(t, res.IsError, res.Content)
	assert.Less(t, len(res.Content), 10<<10, "a 1 MiB line is cut")
	assert.True(t, strings.HasPrefix(res.Content, "long.min.js:1:needlexxx"), "%.80q", res.Content)

	res = e.call(t, "Grep", m{"pattern": "(a+)+$", "path": "aaa.txt"})
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "no matches for \"(a+)+$\" in aaa.txt\n", res.Content)
}
