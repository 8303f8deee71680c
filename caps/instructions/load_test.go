package instructions_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/instructions"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/workfs"
)

// tree is a home and a project (with .git) whose work dir is work.
type tree struct {
	home, root, work string
}

func newTree(t *testing.T, workRel string) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{home: filepath.Join(base, "home"), root: filepath.Join(base, "proj")}
	tr.work = filepath.Join(tr.root, workRel)
	require.NoError(t, os.MkdirAll(tr.home, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(tr.root, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(tr.work, 0o755))
	return tr
}

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func (tr tree) open(t *testing.T, maxBytes int) *instructions.Capability {
	t.Helper()
	port, err := workfs.New(tr.work)
	require.NoError(t, err)
	c, err := instructions.New(instructions.Config{Port: port, Home: tr.home, MaxBytes: maxBytes})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(); _ = port.Close() })
	return c
}

type fileState struct {
	Path  string
	State instructions.State
}

func states(r instructions.Result) []fileState {
	var out []fileState
	for _, f := range r.Files {
		out = append(out, fileState{f.Path, f.State})
	}
	return out
}

func warningAbout(ws []contract.Warning, path, words string) bool {
	for _, w := range ws {
		if w.Path == path && strings.Contains(w.Message, words) {
			return true
		}
	}
	return false
}

func TestLoadOrderOverrideAndLocal(t *testing.T) {
	tr := newTree(t, "a/b")
	write(t, filepath.Join(tr.home, ".helios/AGENTS.md"), "user helios\n")
	write(t, filepath.Join(tr.home, ".claude/CLAUDE.md"), "user claude\n")
	write(t, filepath.Join(tr.root, "AGENTS.override.md"), "root override\n")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "root agents\n")
	write(t, filepath.Join(tr.root, "CLAUDE.md"), "root claude\n")
	write(t, filepath.Join(tr.root, "a/CLAUDE.md"), "a claude\n")
	write(t, filepath.Join(tr.root, "a/CLAUDE.local.md"), "a local\n")
	write(t, filepath.Join(tr.root, "a/b/AGENTS.md"), "b agents\n")
	write(t, filepath.Join(tr.root, "a/b/CLAUDE.md"), "b claude\n")

	r := tr.open(t, 0).Load(context.Background())

	assert.Equal(t, []fileState{
		{"~/.helios/AGENTS.md", instructions.Included},
		{"AGENTS.override.md", instructions.Included},
		{"a/CLAUDE.md", instructions.Included},
		{"a/CLAUDE.local.md", instructions.Included},
		{"a/b/AGENTS.md", instructions.Included},
	}, states(r))
	assert.Empty(t, r.Warnings)
	for _, absent := range []string{"user claude", "root agents", "root claude", "b claude"} {
		assert.NotContains(t, r.Message, absent)
	}
	order := []string{`<instructions path="~/.helios/AGENTS.md">` + "\nuser helios\n", "root override", "a claude", "a local", `<instructions path="a/b/AGENTS.md">` + "\nb agents\n</instructions>"}
	at := 0
	for _, s := range order {
		i := strings.Index(r.Message[at:], s)
		require.GreaterOrEqual(t, i, 0, "%q after offset %d in\n%s", s, at, r.Message)
		at += i
	}
}

func TestLoadUserClaudeWithoutHeliosAndNoGit(t *testing.T) {
	tr := newTree(t, ".")
	require.NoError(t, os.RemoveAll(filepath.Join(tr.root, ".git")))
	write(t, filepath.Join(tr.home, ".claude/CLAUDE.md"), "user claude\n")
	write(t, filepath.Join(tr.root, "CLAUDE.md"), "root claude\n")

	c := tr.open(t, 0)
	r := c.Load(context.Background())

	assert.Equal(t, []fileState{{"~/.claude/CLAUDE.md", instructions.Included}, {"CLAUDE.md", instructions.Included}}, states(r))
	assert.Equal(t, tr.open(t, 0).Root(), c.Root())
}

func TestImports(t *testing.T) {
	tr := newTree(t, "w")
	outside := filepath.Join(filepath.Dir(tr.root), "outside.md")
	write(t, outside, "SECRET outside\n")
	write(t, filepath.Join(tr.home, "prefs.md"), "home prefs\n")
	write(t, filepath.Join(tr.root, "docs/style.md"), "style rules\n@../w/deep1.md\n")
	write(t, filepath.Join(tr.root, "w/deep1.md"), "d1\n@deep2.md\n")
	write(t, filepath.Join(tr.root, "w/deep2.md"), "d2\n@deep3.md\n")
	write(t, filepath.Join(tr.root, "w/deep3.md"), "d3\n@deep4.md\n")
	write(t, filepath.Join(tr.root, "w/deep4.md"), "d4\n@deep5.md\n")
	write(t, filepath.Join(tr.root, "w/deep5.md"), "d5\n@deep6.md\n")
	write(t, filepath.Join(tr.root, "w/deep6.md"), "d6 too deep\n")
	write(t, filepath.Join(tr.root, "w/cycle.md"), "cycle body\n@AGENTS.md\n")
	require.NoError(t, os.Symlink(outside, filepath.Join(tr.root, "w/link.md")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(tr.root, "w/fifo.md"), 0o644))
	write(t, filepath.Join(tr.root, "w/AGENTS.md"), strings.Join([]string{
		"# Rules",                         // 1
		"@../docs/style.md",               // 2: imports, which imports w/deep1.md: 5 levels below it reach deep6
		"@~/prefs.md",                     // 3
		"@" + outside,                     // 4: leaves project and home
		"@../../outside.md",               // 5: the same, relatively
		"@link.md",                        // 6: a symlink out
		"@fifo.md",                        // 7: not regular
		"@cycle.md",                       // 8: imports this file back
		"```",                             // 9
		"@../docs/style.md",               // 10: in a fence
		"```",                             // 11
		"Mail `@team` or @someone today.", // 12: not an import line
		"",
	}, "\n"))

	r := tr.open(t, 0).Load(context.Background())
	msg := r.Message

	assert.Contains(t, msg, "style rules\nd1\nd2\nd3\nd4\n")
	assert.NotContains(t, msg, "d6 too deep")
	assert.True(t, warningAbout(r.Warnings, "w/deep4.md:2", "at most 5 levels"), "%v", r.Warnings)
	assert.Contains(t, msg, "home prefs")
	assert.NotContains(t, msg, "SECRET")
	assert.True(t, warningAbout(r.Warnings, "w/AGENTS.md:4", "leaves the project and home"), "%v", r.Warnings)
	assert.True(t, warningAbout(r.Warnings, "w/AGENTS.md:5", "leaves the project and home"), "%v", r.Warnings)
	assert.True(t, warningAbout(r.Warnings, "w/AGENTS.md:6", "leaves the project and home"), "%v", r.Warnings)
	assert.True(t, warningAbout(r.Warnings, "w/AGENTS.md:7", "not a regular file"), "%v", r.Warnings)
	assert.True(t, warningAbout(r.Warnings, "w/cycle.md:2", "cycle"), "%v", r.Warnings)
	assert.Equal(t, 1, strings.Count(msg, "cycle body"))
	assert.Contains(t, msg, "```\n@../docs/style.md\n```")
	assert.Contains(t, msg, "Mail `@team` or @someone today.")
	assert.Equal(t, 1, strings.Count(msg, "# Rules"))
}

func TestImportThroughSymlinkOutRefused(t *testing.T) {
	tr := newTree(t, ".")
	outside := filepath.Join(filepath.Dir(tr.root), "outside.md")
	write(t, outside, "SECRET outside\n")
	require.NoError(t, os.Symlink(outside, filepath.Join(tr.root, "link.md")))
	require.NoError(t, os.Symlink(filepath.Dir(tr.root), filepath.Join(tr.root, "up")))
	write(t, filepath.Join(tr.root, "AGENTS.md"), "rules\n@link.md\n@up/outside.md\n")

	r := tr.open(t, 0).Load(context.Background())

	assert.NotContains(t, r.Message, "SECRET")
	assert.True(t, warningAbout(r.Warnings, "AGENTS.md:2", "leaves the project and home"), "%v", r.Warnings)
	assert.True(t, warningAbout(r.Warnings, "AGENTS.md:3", "leaves the project and home"), "%v", r.Warnings)
}

func TestBudgetCutsFarthestFirst(t *testing.T) {
	tr := newTree(t, "a/b/c")
	body := func(tag string) string { return tag + strings.Repeat(".", 99) + "\n" } // 100+len(tag) bytes
	write(t, filepath.Join(tr.home, ".helios/AGENTS.md"), body("user"))
	write(t, filepath.Join(tr.root, "AGENTS.md"), body("root"))
	write(t, filepath.Join(tr.root, "a/AGENTS.md"), body("aaaa"))
	write(t, filepath.Join(tr.root, "a/b/AGENTS.md"), body("bbbb"))
	write(t, filepath.Join(tr.root, "a/b/c/AGENTS.md"), body("cccc"))

	r := tr.open(t, 320).Load(context.Background())

	assert.Equal(t, []fileState{
		{"~/.helios/AGENTS.md", instructions.Cut},
		{"AGENTS.md", instructions.Cut},
		{"a/AGENTS.md", instructions.Included},
		{"a/b/AGENTS.md", instructions.Included},
		{"a/b/c/AGENTS.md", instructions.Included},
	}, states(r))
	assert.True(t, warningAbout(r.Warnings, "~/.helios/AGENTS.md", "cut"))
	assert.True(t, warningAbout(r.Warnings, "AGENTS.md", "cut"))
	assert.Contains(t, r.Message, "Cut to fit the budget of 320 bytes, so not shown: ~/.helios/AGENTS.md, AGENTS.md.")
	assert.Contains(t, r.Message, body("cccc"))
	assert.NotContains(t, r.Message, "user...")
}

func TestHugeFileReadUpToBudgetOneWarning(t *testing.T) {
	tr := newTree(t, ".")
	write(t, filepath.Join(tr.root, "AGENTS.md"), strings.Repeat("é rule\n", 10<<20/8))

	r := tr.open(t, 0).Load(context.Background())

	require.Len(t, r.Files, 1)
	assert.Equal(t, instructions.Included, r.Files[0].State)
	assert.LessOrEqual(t, r.Files[0].Bytes, instructions.DefaultMaxBytes)
	assert.Greater(t, r.Files[0].Bytes, instructions.DefaultMaxBytes-8)
	assert.Len(t, r.Warnings, 1)
	assert.True(t, warningAbout(r.Warnings, "AGENTS.md", "only its first"))
}

func TestBinaryAndInvalidUTF8Refused(t *testing.T) {
	tr := newTree(t, "w")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "text\x00binary")
	write(t, filepath.Join(tr.root, "w/AGENTS.md"), "bad \xff byte")
	write(t, filepath.Join(tr.root, "w/CLAUDE.local.md"), "fine, with a bidi \u202e control\n")

	r := tr.open(t, 0).Load(context.Background())

	assert.Equal(t, []fileState{{"w/CLAUDE.local.md", instructions.Included}, {"AGENTS.md", instructions.Refused}, {"w/AGENTS.md", instructions.Refused}}, states(r))
	assert.True(t, warningAbout(r.Warnings, "AGENTS.md", "binary"))
	assert.True(t, warningAbout(r.Warnings, "w/AGENTS.md", "not valid UTF-8"))
	assert.True(t, warningAbout(r.Warnings, "w/CLAUDE.local.md", "made visible"))
	assert.Contains(t, r.Message, `bidi \u202e control`)
	assert.NotContains(t, r.Message, "\u202e")
}

func TestNothingToLoad(t *testing.T) {
	tr := newTree(t, ".")
	r := tr.open(t, 0).Load(context.Background())
	assert.Empty(t, r.Files)
	assert.Empty(t, r.Message)
}
