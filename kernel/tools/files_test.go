package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const five = "one\ntwo\nthree\nfour\nfive\n"

func TestRead(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("a.txt"), five)
	mkfile(t, e.path("sub/noeol.txt"), "x\ny")
	mkfile(t, e.path("empty.txt"), "")
	symlink(t, "sub", e.path("inlink"))
	tests := []struct {
		name string
		args m
		want string
	}{
		{"whole file", m{"path": "a.txt"},
			"     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive\n"},
		{"offset and limit", m{"path": "a.txt", "offset": 2, "limit": 2},
			"     2\ttwo\n     3\tthree\n(showing lines 2-3 of 5; call Read with offset 4 to continue)\n"},
		{"offset to the end", m{"path": "a.txt", "offset": 4},
			"     4\tfour\n     5\tfive\n"},
		{"limit", m{"path": "a.txt", "limit": 1},
			"     1\tone\n(showing lines 1-1 of 5; call Read with offset 2 to continue)\n"},
		{"limit past the end", m{"path": "a.txt", "offset": 5, "limit": 10},
			"     5\tfive\n"},
		{"absolute path inside", m{"path": e.path("a.txt")},
			"     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive\n"},
		{"no newline at the end", m{"path": "sub/noeol.txt"},
			"     1\tx\n     2\ty\n"},
		{"through a symlink inside", m{"path": "inlink/noeol.txt"},
			"     1\tx\n     2\ty\n"},
		{"empty file", m{"path": "empty.txt"}, "(empty.txt is empty)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.call(t, "Read", tt.args)
			assert.Empty(t, cmp.Diff(contract.ToolResult{Content: tt.want}, res), "Read(%v) (-want +got)", tt.args)
		})
	}
}

func TestReadStopsAt2000LinesByDefault(t *testing.T) {
	e := newEnv(t, tools.Config{MaxOutput: 1 << 20})
	mkfile(t, e.path("long.txt"), strings.Repeat("x\n", 2500))
	res := e.call(t, "Read", m{"path": "long.txt"})
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	require.Len(t, lines, 2001, "got %d lines, ending %q; want 2000 lines and a note", len(lines), lines[len(lines)-2:])
	require.Equal(t, "  2000\tx", lines[1999], "got %d lines, ending %q; want 2000 lines and a note", len(lines), lines[len(lines)-2:])
	want := "(showing lines 1-2000 of 2500; call Read with offset 2001 to continue)"
	assert.False(t, res.IsError, "IsError %v, note %q; want %q", res.IsError, lines[2000], want)
	assert.Equal(t, want, lines[2000], "IsError %v, note %q; want %q", res.IsError, lines[2000], want)
}

func TestReadStopsAtMaxOutputOnAWholeLine(t *testing.T) {
	e := newEnv(t, tools.Config{MaxOutput: 100})
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "line %02d\n", i)
	}
	mkfile(t, e.path("a.txt"), b.String())
	// Each numbered line is 15 bytes: six fit in 100.
	want := "     1\tline 01\n     2\tline 02\n     3\tline 03\n     4\tline 04\n     5\tline 05\n     6\tline 06\n" +
		"(showing lines 1-6 of 50 (output is limited to 100 bytes); call Read with offset 7 to continue)\n"
	res := e.call(t, "Read", m{"path": "a.txt"})
	assert.Empty(t, cmp.Diff(contract.ToolResult{Content: want}, res))
}

func TestReadCutsLongLines(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("min.js"), strings.Repeat("x", 2500)+"\nshort\n")
	want := "     1\t" + strings.Repeat("x", 2000) + " [... 500 more bytes on this line]\n     2\tshort\n"
	res := e.call(t, "Read", m{"path": "min.js"})
	assert.Empty(t, cmp.Diff(contract.ToolResult{Content: want}, res))
}

func TestReadErrors(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("a.txt"), five)
	mkfile(t, e.path("bin.dat"), "ELF\x00\x01\x02")
	mkfile(t, e.path("dir/x.txt"), "x")
	tests := []struct {
		name string
		args m
		want []string
	}{
		{"directory", m{"path": "dir"}, []string{`"dir" is a directory`, "Glob", `"dir/*"`}},
		{"work dir itself", m{"path": "."}, []string{"is a directory"}},
		{"binary", m{"path": "bin.dat"}, []string{"binary"}},
		{"missing", m{"path": "nope.txt"}, []string{`no such file: "nope.txt"`}},
		{"missing parent", m{"path": "nope/x.txt"}, []string{"no such file"}},
		{"offset past the end", m{"path": "a.txt", "offset": 6}, []string{"offset 6 is past the end", "5 lines"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.call(t, "Read", tt.args)
			assert.True(t, res.IsError, "Read(%v) = %+v; want IsError mentioning %q", tt.args, res, tt.want)
			assert.True(t, containsAll(res.Content, tt.want), "Read(%v) = %+v; want IsError mentioning %q", tt.args, res, tt.want)
		})
	}
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name    string
		path    func(e *env) string
		before  string // existing content, if any
		content string
		file    string // where it lands, relative
		want    string
	}{
		{"new file", rel("a.txt"), "", "hello", "a.txt", "Wrote 5 bytes to a.txt (created)."},
		{"missing parents", rel("d/e/f.txt"), "", "hi\n", "d/e/f.txt", "Wrote 3 bytes to d/e/f.txt (created)."},
		{"existing file", rel("a.txt"), "old content", "new", "a.txt", "Wrote 3 bytes to a.txt (replaced its content)."},
		{"absolute inside", func(e *env) string { return e.path("abs.txt") }, "", "x", "abs.txt", "Wrote 1 bytes to abs.txt (created)."},
		{"empty content", rel("empty.txt"), "", "", "empty.txt", "Wrote 0 bytes to empty.txt (created)."},
		{"cleaned path", rel("d/../c.txt"), "", "c", "c.txt", "Wrote 1 bytes to c.txt (created)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tools.Config{})
			if tt.before != "" {
				mkfile(t, e.path(tt.file), tt.before)
			}
			res := e.call(t, "Write", m{"path": tt.path(e), "content": tt.content})
			assert.Empty(t, cmp.Diff(contract.ToolResult{Content: tt.want}, res), "result (-want +got)")
			assert.Equal(t, tt.content, readFile(t, e.path(tt.file)), "file")
			assert.Empty(t, cmp.Diff([]string{e.path(tt.file)}, e.writes.got()), "OnWrite calls (-want +got)")
		})
	}
}

func TestWriteErrors(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("dir/x.txt"), "x")
	mkfile(t, e.path("file.txt"), "f")
	tests := []struct {
		name string
		path string
		want string
	}{
		{"a directory", "dir", `"dir" is a directory`},
		{"the work dir", ".", "is a directory"},
		{"parent is a file", "file.txt/x.txt", "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.call(t, "Write", m{"path": tt.path, "content": "new"})
			assert.True(t, res.IsError, "Write(%q) = %+v; want IsError with %q", tt.path, res, tt.want)
			assert.Contains(t, res.Content, tt.want, "Write(%q) = %+v; want IsError with %q", tt.path, res, tt.want)
		})
	}
	assert.Equal(t, "f", readFile(t, e.path("file.txt")), "file.txt; want it unchanged")
	got := e.writes.got()
	assert.Empty(t, got, "OnWrite called with %q after failed Writes", got)
}

func TestWritePermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only directories")
	}
	e := newEnv(t, tools.Config{})
	require.NoError(t, os.MkdirAll(e.path("ro"), 0o555))
	t.Cleanup(func() { os.Chmod(e.path("ro"), 0o755) })
	res := e.call(t, "Write", m{"path": "ro/x.txt", "content": "x"})
	assert.True(t, res.IsError, "got %+v; want IsError permission denied", res)
	assert.Contains(t, res.Content, `permission denied: "ro/x.txt"`, "got %+v; want IsError permission denied", res)
	got := e.writes.got()
	assert.Empty(t, got, "OnWrite called with %q", got)
}

func TestEdit(t *testing.T) {
	const before = "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	tests := []struct {
		name string
		args m
		want string // the file after
		msg  string
	}{
		{"unique", m{"old_string": "func a", "new_string": "func alpha"},
			strings.Replace(before, "func a", "func alpha", 1), "Edited f.go: replaced 1 occurrence of old_string."},
		{"made unique by context", m{"old_string": "func b() {\n\treturn 1", "new_string": "func b() {\n\treturn 2"},
			"func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n", "Edited f.go: replaced 1 occurrence of old_string."},
		{"replace all", m{"old_string": "return 1", "new_string": "return 0", "replace_all": true},
			strings.ReplaceAll(before, "return 1", "return 0"), "Edited f.go: replaced 2 occurrences of old_string."},
		{"replace all with one match", m{"old_string": "func a", "new_string": "func x", "replace_all": true},
			strings.Replace(before, "func a", "func x", 1), "Edited f.go: replaced 1 occurrence of old_string."},
		{"delete", m{"old_string": "\nfunc b() {\n\treturn 1\n}\n", "new_string": ""},
			"func a() {\n\treturn 1\n}\n", "Edited f.go: replaced 1 occurrence of old_string."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tools.Config{})
			mkfile(t, e.path("f.go"), before)
			tt.args["path"] = "f.go"
			res := e.call(t, "Edit", tt.args)
			assert.Empty(t, cmp.Diff(contract.ToolResult{Content: tt.msg}, res), "result (-want +got)")
			assert.Empty(t, cmp.Diff(tt.want, readFile(t, e.path("f.go"))), "file (-want +got)")
			assert.Empty(t, cmp.Diff([]string{e.path("f.go")}, e.writes.got()), "OnWrite calls (-want +got)")
		})
	}
}

func TestEditErrors(t *testing.T) {
	const before = "a b a c\n"
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("f.txt"), before)
	mkfile(t, e.path("dir/x.txt"), "x")
	tests := []struct {
		name string
		args m
		want []string
	}{
		{"not found", m{"path": "f.txt", "old_string": "z", "new_string": "y"}, []string{"old_string not found", "exactly"}},
		{"wrong whitespace", m{"path": "f.txt", "old_string": "a  b", "new_string": "y"}, []string{"not found"}},
		{"twice", m{"path": "f.txt", "old_string": "a", "new_string": "A"}, []string{"occurs 2 times", "replace_all"}},
		{"twice, replace_all false", m{"path": "f.txt", "old_string": "a", "new_string": "A", "replace_all": false}, []string{"occurs 2 times"}},
		{"same strings", m{"path": "f.txt", "old_string": "b", "new_string": "b"}, []string{"same"}},
		{"missing file", m{"path": "nope.txt", "old_string": "a", "new_string": "b"}, []string{`no such file: "nope.txt"`}},
		{"directory", m{"path": "dir", "old_string": "a", "new_string": "b"}, []string{"is a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.call(t, "Edit", tt.args)
			assert.True(t, res.IsError, "Edit(%v) = %+v; want IsError mentioning %q", tt.args, res, tt.want)
			assert.True(t, containsAll(res.Content, tt.want), "Edit(%v) = %+v; want IsError mentioning %q", tt.args, res, tt.want)
		})
	}
	got := readFile(t, e.path("f.txt"))
	assert.Equal(t, before, got, "f.txt = %q after failed edits; want it unchanged", got)
	assert.Empty(t, e.writes.got(), "OnWrite called after failed edits")
}

func TestEditPreservesMode(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("run.sh"), "#!/bin/sh\necho old\n")
	require.NoError(t, os.Chmod(e.path("run.sh"), 0o751))
	res := e.call(t, "Edit", m{"path": "run.sh", "old_string": "old", "new_string": "new"})
	require.False(t, res.IsError, "Edit: %s", res.Content)
	fi, err := os.Stat(e.path("run.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o751), fi.Mode().Perm(), "mode = %v after Edit; want -rwxr-x--x", fi.Mode().Perm())
}

// OnWrite sees each change once, in order, with the absolute path under the
// work dir, and nothing for calls that changed nothing.
func TestOnWriteSequence(t *testing.T) {
	e := newEnv(t, tools.Config{})
	steps := []struct {
		tool string
		args m
	}{
		{"Write", m{"path": "skills/x/SKILL.md", "content": "v1"}},
		{"Read", m{"path": "skills/x/SKILL.md"}},
		{"Edit", m{"path": "skills/x/SKILL.md", "old_string": "v1", "new_string": "v2"}},
		{"Edit", m{"path": "skills/x/SKILL.md", "old_string": "v1", "new_string": "v3"}}, // fails: not found
		{"Write", m{"path": "../x", "content": "v1"}},                                    // fails: refused
		{"Write", m{"path": e.path("other.txt"), "content": "o"}},
	}
	for _, s := range steps {
		e.call(t, s.tool, s.args)
	}
	want := []string{e.path("skills/x/SKILL.md"), e.path("skills/x/SKILL.md"), e.path("other.txt")}
	assert.Empty(t, cmp.Diff(want, e.writes.got()), "OnWrite calls (-want +got)")
}

// Every file tool refuses paths that lead out of the work dir, with the
// guard's reason, as a result and not a Go error, and touches nothing.
func TestFileToolsRefuseOutside(t *testing.T) {
	e := newEnv(t, tools.Config{})
	sibling := e.work + "-evil"
	mkfile(t, filepath.Join(sibling, "x.txt"), "evil\n")
	paths := []struct {
		name   string
		path   string
		reason string
	}{
		{"dot-dot", "../outside/secret.txt", "climbs above"},
		{"dot-dot inside the path", "a/../../outside/secret.txt", "climbs above"},
		{"absolute outside", filepath.Join(e.outside, "secret.txt"), "absolute path outside"},
		{"sibling with the work dir's name as prefix", filepath.Join(sibling, "x.txt"), "absolute path outside"},
		{"symlink to a file outside", "outlink", "symlink outlink points to " + filepath.Join(e.outside, "secret.txt")},
		{"symlinked dir outside", "outdir/secret.txt", "symlink outdir points to " + e.outside},
	}
	calls := []struct {
		tool string
		args func(path string) m
	}{
		{"Read", func(p string) m { return m{"path": p} }},
		{"Write", func(p string) m { return m{"path": p, "content": "pwned"} }},
		{"Edit", func(p string) m { return m{"path": p, "old_string": "secret", "new_string": "pwned"} }},
		{"Grep", func(p string) m { return m{"path": p, "pattern": "secret", "output_mode": "content"} }},
	}
	for _, c := range calls {
		for _, p := range paths {
			t.Run(c.tool+" "+p.name, func(t *testing.T) {
				res, err := e.callCtx(t.Context(), t, c.tool, c.args(p.path))
				require.NoError(t, err, "Go error; want a result")
				want := []string{"refused", "outside the work dir", p.reason}
				assert.True(t, res.IsError, "got %+v; want IsError mentioning %q", res, want)
				assert.True(t, containsAll(res.Content, want), "got %+v; want IsError mentioning %q", res, want)
				assert.NotContains(t, res.Content, "secret\n", "the result leaks the file outside")
			})
		}
	}
	t.Run("Write through outdir creates nothing", func(t *testing.T) {
		e.call(t, "Write", m{"path": "outdir/new.txt", "content": "pwned"})
		_, err := os.Lstat(filepath.Join(e.outside, "new.txt"))
		assert.Error(t, err, "outside/new.txt was created through the symlink")
	})
	assert.Equal(t, "secret\n", readFile(t, filepath.Join(e.outside, "secret.txt")), "secret.txt; want it untouched")
	assert.Equal(t, "evil\n", readFile(t, filepath.Join(sibling, "x.txt")), "work-evil/x.txt; want it untouched")
	got := e.writes.got()
	assert.Empty(t, got, "OnWrite called with %q for refused paths", got)
}

func TestGlob(t *testing.T) {
	e := newEnv(t, tools.Config{})
	for _, f := range []string{"a.go", "b.txt", ".hidden.go", "sub/c.go", "sub/deep/d.go", "sub/deep/e.txt"} {
		mkfile(t, e.path(f), f)
	}
	tests := []struct {
		pattern string
		want    string
	}{
		{"*.go", ".hidden.go\na.go\n"},
		{"**/*.go", ".hidden.go\na.go\nsub/c.go\nsub/deep/d.go\n"},
		{"sub/**", "sub/c.go\nsub/deep\nsub/deep/d.go\nsub/deep/e.txt\n"},
		{"sub/*/?.txt", "sub/deep/e.txt\n"},
		// The symlinks pointing out are left out of every listing.
		{"*", ".hidden.go\na.go\nb.txt\nsub\n"},
		{filepath.Join("WORK", "*.txt"), "b.txt\n"},
		{"*.rs", `no files match "*.rs"`},
		{"outdir/*", `no files match "outdir/*"`},
	}
	for _, tt := range tests {
		pattern := strings.Replace(tt.pattern, "WORK", e.work, 1)
		t.Run(tt.pattern, func(t *testing.T) {
			res := e.call(t, "Glob", m{"pattern": pattern})
			assert.Empty(t, cmp.Diff(contract.ToolResult{Content: tt.want}, res), "Glob(%q) (-want +got)", pattern)
		})
	}
}

func TestGlobErrors(t *testing.T) {
	e := newEnv(t, tools.Config{})
	tests := []struct {
		pattern string
		want    []string
	}{
		{"../*", []string{"refused", `pattern "../*" reaches outside the work dir`}},
		{"../**/*.txt", []string{"refused", "reaches outside"}},
		{filepath.Join(e.outside, "*"), []string{"refused", "reaches outside"}},
		{"[", []string{`bad pattern "["`}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			res := e.call(t, "Glob", m{"pattern": tt.pattern})
			assert.True(t, res.IsError, "Glob(%q) = %+v; want IsError mentioning %q", tt.pattern, res, tt.want)
			assert.True(t, containsAll(res.Content, tt.want), "Glob(%q) = %+v; want IsError mentioning %q", tt.pattern, res, tt.want)
			assert.NotContains(t, res.Content, "secret", "the result lists what is outside")
		})
	}
}

func TestGlobStopsAtMaxOutput(t *testing.T) {
	e := newEnv(t, tools.Config{MaxOutput: 30})
	for i := range 10 {
		mkfile(t, e.path(fmt.Sprintf("f%d.txt", i)), "")
	}
	// "fN.txt\n" is 7 bytes: four fit in 30.
	want := "f0.txt\nf1.txt\nf2.txt\nf3.txt\n(6 more matches not shown; 10 in all: narrow the pattern)\n"
	res := e.call(t, "Glob", m{"pattern": "*.txt"})
	assert.Empty(t, cmp.Diff(contract.ToolResult{Content: want}, res))
}

// rel returns a path function for a path relative to the work dir.
func rel(p string) func(*env) string { return func(*env) string { return p } }

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// Write and Edit follow no symlinks: x/config where x links to .git is
// refused as .git, where x links to a plain folder inside it is refused
// naming the link, and where x is a real folder it is written.
func TestWriteAndEditFollowNoSymlinks(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path(".git/config"), "[core]\n")
	mkfile(t, e.path("sub/a.txt"), "old")
	symlink(t, ".git", e.path("x"))
	symlink(t, "sub", e.path("y"))
	tests := []struct {
		tool string
		args m
		want string
	}{
		{"Write", m{"path": "x/config", "content": "pwned"}, `refused: "x/config" is in .git`},
		{"Write", m{"path": "y/a.txt", "content": "new"}, `refused: "y/a.txt" goes through the symlink y; Write and Edit follow no symlinks`},
		{"Write", m{"path": "y/new.txt", "content": "new"}, `goes through the symlink y`},
		{"Edit", m{"path": "y/a.txt", "old_string": "old", "new_string": "new"}, `refused: "y/a.txt" goes through the symlink y`},
	}
	for _, tt := range tests {
		res := e.call(t, tt.tool, tt.args)
		assert.True(t, res.IsError, "%s(%v) = %+v", tt.tool, tt.args, res)
		assert.Contains(t, res.Content, tt.want, "%s(%v)", tt.tool, tt.args)
	}
	assert.Equal(t, "[core]\n", readFile(t, e.path(".git/config")))
	assert.Equal(t, "old", readFile(t, e.path("sub/a.txt")))
	assert.NoFileExists(t, e.path("sub/new.txt"))
	assert.Empty(t, e.writes.got(), "OnWrite after refused writes")

	mkfile(t, e.path("real/keep"), "")
	res := e.call(t, "Write", m{"path": "real/config", "content": "ok"})
	require.False(t, res.IsError, "%+v", res)
	assert.Equal(t, "ok", readFile(t, e.path("real/config")))
}

// Protects: M1034 (Glob listing what Hidden covers). Glob leaves out the
// files Config.Hidden reports, given their absolute paths; when nothing is
// left it says nothing matches.
func TestGlobLeavesOutHidden(t *testing.T) {
	var e *env
	e = newEnv(t, tools.Config{Hidden: func(p string) bool {
		return p == e.path(".env") || strings.HasPrefix(p, e.path("secrets")+"/")
	}})
	mkfile(t, e.path(".env"), "K=v\n")
	mkfile(t, e.path("secrets/key"), "k\n")
	mkfile(t, e.path("main.go"), "package main\n")

	res := e.call(t, "Glob", m{"pattern": "**"})
	require.False(t, res.IsError, res.Content)
	assert.Contains(t, res.Content, "main.go")
	assert.NotContains(t, res.Content, ".env")
	assert.NotContains(t, res.Content, "secrets/key")

	res = e.call(t, "Glob", m{"pattern": "secrets/*"})
	assert.Equal(t, `no files match "secrets/*"`, res.Content)
}
