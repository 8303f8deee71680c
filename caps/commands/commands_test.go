package commands_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/commands"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

// env is a work dir and a home folder with their commands folders.
type env struct {
	work, home string
	fs         *workfs.FS
}

func newEnv(t *testing.T) *env {
	t.Helper()
	work, home := t.TempDir(), t.TempDir()
	fsys, err := workfs.New(work)
	require.NoError(t, err)
	t.Cleanup(func() { fsys.Close() })
	return &env{work: fsys.Dir(), home: home, fs: fsys}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func (e *env) set(t *testing.T, r commands.Runner) *commands.Set {
	t.Helper()
	return commands.New(commands.Config{Work: e.fs, Home: e.home, Runner: r})
}

// confined is the sandbox the Bash tool uses, in its default mode.
func confined(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	box, err := sandbox.New(sandbox.Config{Mode: sandbox.WorkspaceWrite})
	require.NoError(t, err)
	t.Cleanup(func() { box.Close() })
	return box
}

func names(cmds []commands.Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Name+"@"+c.Source)
	}
	return out
}

// Protects: project folders come before user folders (the project's file
// of a name wins and the user's is reported as shadowed), .helios before
// .claude, and a subfolder gives an "a:b" name.
func TestListOrderAndNames(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.home, ".claude/commands/review.md"), "user review\n")
	write(t, filepath.Join(e.work, ".claude/commands/review.md"), "project review\n")
	write(t, filepath.Join(e.work, ".helios/commands/frontend/test.md"), "---\ndescription: helios test\n---\nbody\n")
	write(t, filepath.Join(e.work, ".claude/commands/frontend/test.md"), "claude test\n")
	write(t, filepath.Join(e.home, ".helios/commands/solo.md"), "---\ndescription: mine\nargument-hint: [file]\nmodel: sonnet\n---\nx\n")

	cmds, warnings := e.set(t, nil).List()
	assert.Equal(t, []string{"frontend:test@project", "review@project", "solo@user"}, names(cmds))
	byName := map[string]commands.Command{}
	for _, c := range cmds {
		byName[c.Name] = c
	}
	assert.Equal(t, "helios test", byName["frontend:test"].Description)
	assert.Equal(t, "project review", byName["review"].Description)
	assert.Equal(t, "[file]", byName["solo"].ArgumentHint)
	assert.Equal(t, "sonnet", byName["solo"].Model)
	require.Len(t, warnings, 2)
	assert.Contains(t, strings.Join(warnings, "\n"), filepath.Join(e.home, ".claude/commands/review.md")+" is shadowed by "+filepath.Join(e.work, ".claude/commands/review.md"))
}

// Protects: nothing is cached; a file written after the first List is in
// the next one.
func TestListSeesNewFile(t *testing.T) {
	e := newEnv(t)
	s := e.set(t, nil)
	cmds, _ := s.List()
	assert.Empty(t, cmds)
	write(t, filepath.Join(e.work, ".claude/commands/new.md"), "fresh\n")
	cmds, _ = s.List()
	assert.Equal(t, []string{"new@project"}, names(cmds))
}

// Protects: a broken frontmatter is listed with an error naming the file
// and line, and Expand refuses it with that error; a command symlinked out
// of the project is refused by the guarded port.
func TestBrokenFrontmatterListed(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.work, ".claude/commands/bad.md"), "---\ndescription: [unclosed\n  - x: : y\n---\nbody\n")
	write(t, filepath.Join(e.work, ".claude/commands/tools.md"), "---\nallowed-tools: {a: b}\n---\nbody\n")
	outside := filepath.Join(t.TempDir(), "evil.md")
	write(t, outside, "evil\n")
	require.NoError(t, os.Symlink(outside, filepath.Join(e.work, ".claude/commands/evil.md")))

	s := e.set(t, nil)
	cmds, warnings := s.List()
	require.Equal(t, []string{"bad@project", "tools@project"}, names(cmds))
	require.Error(t, cmds[0].Err)
	assert.Contains(t, cmds[0].Err.Error(), filepath.Join(e.work, ".claude/commands/bad.md")+":3: frontmatter is not valid YAML")
	require.Error(t, cmds[1].Err)
	assert.Contains(t, cmds[1].Err.Error(), `key "allowed-tools"`)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "evil.md")
	assert.Contains(t, warnings[0], "outside the work dir")

	_, err := s.Expand(context.Background(), "/bad", "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.md:3:")
	_, err = s.Expand(context.Background(), "/none", "")
	assert.ErrorIs(t, err, commands.ErrNotFound)
}

// Protects: $ARGUMENTS is the whole text; $1…$9 are the shell-split words,
// a missing one empty; the arguments are never scanned for markers; with
// no placeholder the arguments are appended as "ARGUMENTS: …".
func TestExpandArguments(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.work, ".claude/commands/pos.md"), "---\ndescription: d\n---\nall=[$ARGUMENTS] one=[$1] two=[$2] three=[$3] nine=[$9]\n")
	write(t, filepath.Join(e.work, ".claude/commands/plain.md"), "Review the code.\n")
	s := e.set(t, nil)

	ex, err := s.Expand(context.Background(), "pos", `alpha "b c" !`+"`touch x`"+` @/etc/passwd`)
	require.NoError(t, err)
	assert.Equal(t, "all=[alpha \"b c\" !`touch x` @/etc/passwd] one=[alpha] two=[b c] three=[!`touch] nine=[]\n", ex.Prompt)
	assert.Empty(t, ex.Warnings)
	assert.NoFileExists(t, filepath.Join(e.work, "x"))

	ex, err = s.Expand(context.Background(), "pos", "")
	require.NoError(t, err)
	assert.Equal(t, "all=[] one=[] two=[] three=[] nine=[]\n", ex.Prompt)

	ex, err = s.Expand(context.Background(), "plain", "main.go")
	require.NoError(t, err)
	assert.Equal(t, "Review the code.\n\nARGUMENTS: main.go\n", ex.Prompt)
}

// Protects: !`cmd` runs through the sandbox (confined: a write outside the
// work dir fails) in the work dir, its output in place, the arguments
// substituted in it; a failing command's status is shown and warned.
func TestBangRunsConfined(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	marker := filepath.Join(outside, "escaped")
	write(t, filepath.Join(e.work, ".claude/commands/ctx.md"), "---\nallowed-tools: Read, Bash\n---\n"+
		"dir: !`pwd`\narg: !`echo $1`\nescape: !`touch "+marker+" 2>/dev/null && echo wrote || echo refused`\nfail: !`echo bad; exit 3`\n")
	s := e.set(t, confined(t))

	ex, err := s.Expand(context.Background(), "ctx", "hello world")
	require.NoError(t, err)
	assert.Equal(t, "dir: "+e.work+"\narg: hello\nescape: refused\nfail: bad [exit code 3]\n", ex.Prompt)
	assert.NoFileExists(t, marker)
	require.Len(t, ex.Warnings, 1)
	assert.Contains(t, ex.Warnings[0], "!`echo bad; exit 3`: exit code 3")
}

// Protects: a !`cmd` that outlives the timeout is killed with what it
// started, and the expansion says so in place of its output.
func TestBangTimeoutKills(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.work, ".claude/commands/hang.md"), "---\nallowed-tools: Bash\n---\nout: !`echo early; sleep 30`\n")
	s := commands.New(commands.Config{Work: e.fs, Home: e.home, Runner: confined(t), Timeout: 300 * time.Millisecond})

	start := time.Now()
	ex, err := s.Expand(context.Background(), "hang", "")
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 20*time.Second, "the hanging command was not killed")
	assert.Equal(t, "out: early [killed after 300ms]\n", ex.Prompt)
	require.Len(t, ex.Warnings, 1)
	assert.Contains(t, ex.Warnings[0], "killed after 300ms")
}

// Protects: !`cmd` runs only when allowed-tools names Bash (any command) or
// a Bash pattern matching it; otherwise Expand fails naming the command and
// nothing runs.
func TestBangNeedsAllowedTools(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.work, ".claude/commands/none.md"), "x: !`touch ran-none`\n")
	write(t, filepath.Join(e.work, ".claude/commands/read.md"), "---\nallowed-tools: Read, Grep\n---\nx: !`touch ran-read`\n")
	write(t, filepath.Join(e.work, ".claude/commands/git.md"), "---\nallowed-tools: Bash(echo ok:*)\n---\n$1: !`echo ok $1`\n")
	s := e.set(t, confined(t))

	for _, name := range []string{"none", "read"} {
		_, err := s.Expand(context.Background(), name, "")
		require.ErrorIs(t, err, commands.ErrBashNotAllowed, name)
		assert.Contains(t, err.Error(), filepath.Join(e.work, ".claude/commands", name+".md"))
		assert.NoFileExists(t, filepath.Join(e.work, "ran-"+name))
	}

	ex, err := s.Expand(context.Background(), "git", "fine")
	require.NoError(t, err)
	assert.Equal(t, "fine: ok fine\n", ex.Prompt)
	_, err = s.Expand(context.Background(), "git", "x;touch ran-git")
	require.ErrorIs(t, err, commands.ErrBashNotAllowed)
	assert.NoFileExists(t, filepath.Join(e.work, "ran-git"))
}

// Protects: @path attaches a project file or, in a user's own command, a
// home file; a path leaving both is refused with a warning naming the
// file and the path, and so is a home file in a project's command; a
// missing path stays text; markers in fenced blocks are left alone.
func TestAtAttaches(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.work, "src/main.go"), "package main\n")
	write(t, filepath.Join(e.home, "notes.txt"), "my notes\n")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	write(t, secret, "secret\n")
	write(t, filepath.Join(e.work, "bin.dat"), "a\x00b")
	write(t, filepath.Join(e.work, ".claude/commands/steal.md"), "Read @~/notes.txt and @src/main.go\n")
	write(t, filepath.Join(e.home, ".claude/commands/at.md"),
		"Look at @src/main.go, @~/notes.txt and @"+secret+" or @missing.json and @bin.dat\n```\n@src/main.go !`date`\n```\n")
	s := e.set(t, nil)

	ex, err := s.Expand(context.Background(), "at", "")
	require.NoError(t, err)
	assert.Equal(t, "Look at @src/main.go, @~/notes.txt and @"+secret+" or @missing.json and @bin.dat\n```\n@src/main.go !`date`\n```\n\n"+
		"<file path=\"src/main.go\">\npackage main\n</file>\n\n<file path=\"~/notes.txt\">\nmy notes\n</file>\n", ex.Prompt)
	require.Len(t, ex.Warnings, 2)
	assert.Contains(t, ex.Warnings[0], "@"+secret+": refused: outside the project and the home folder")
	assert.Contains(t, ex.Warnings[1], "@bin.dat: refused: not UTF-8 text")

	ex, err = s.Expand(context.Background(), "steal", "")
	require.NoError(t, err)
	assert.Equal(t, "Read @~/notes.txt and @src/main.go\n\n<file path=\"src/main.go\">\npackage main\n</file>\n", ex.Prompt)
	require.Len(t, ex.Warnings, 1)
	assert.Contains(t, ex.Warnings[0], filepath.Join(e.work, ".claude/commands/steal.md")+": @~/notes.txt: refused: a project's command attaches only files of the project")
}

// Protects: an installed plugin's commands are namespaced as Claude Code
// namespaces them, /<plugin>:<command> (subfolders joined by ":"), with
// source plugin:<plugin>; a single command file names itself; the person's
// own command of the same bare name is untouched.
func TestPluginCommandsNamespaced(t *testing.T) {
	e := newEnv(t)
	plugin := t.TempDir()
	write(t, filepath.Join(e.home, ".claude", "commands", "greet.md"), "mine\n")
	write(t, filepath.Join(plugin, "commands", "greet.md"), "---\ndescription: greets\n---\nHello $ARGUMENTS\n")
	write(t, filepath.Join(plugin, "commands", "deploy", "prod.md"), "ship\n")
	write(t, filepath.Join(plugin, "extra", "one.md"), "one\n")
	set := commands.New(commands.Config{Home: e.home, Plugins: []commands.PluginCommands{
		{Plugin: "kit", Path: filepath.Join(plugin, "commands")},
		{Plugin: "kit", Path: filepath.Join(plugin, "extra", "one.md")},
	}})
	cmds, warns := set.List()
	assert.Empty(t, warns)
	got := map[string]string{}
	for _, c := range cmds {
		got[c.Name] = c.Source
	}
	assert.Equal(t, map[string]string{"greet": "user", "kit:greet": "plugin:kit", "kit:deploy:prod": "plugin:kit", "kit:one": "plugin:kit"}, got)
	c, _, err := set.Get("/kit:greet")
	require.NoError(t, err)
	assert.Equal(t, "greets", c.Description)
}
