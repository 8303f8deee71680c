package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/provider/modeltest"
)

func writeCmd(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// Protects: `helios commands list --json` lists project and user commands,
// project first, a subfolder as a:b, a broken file with its error (exit 1).
func TestCommandsListJSON(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	writeCmd(t, filepath.Join(work, ".claude/commands/git/commit.md"), "---\ndescription: Commit\nargument-hint: [message]\nallowed-tools: Bash(git commit:*), Read\n---\n$ARGUMENTS\n")
	writeCmd(t, filepath.Join(home, ".claude/commands/mine.md"), "Mine.\n")
	writeCmd(t, filepath.Join(work, ".claude/commands/broken.md"), "---\ndescription: x\n")

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "commands", "list", "--json"}, &out, &errOut)
	assert.Equal(t, exitFail, code, errOut.String())
	var got struct {
		Commands []struct {
			Name, Description, ArgumentHint, Source, Path, Error string
			AllowedTools                                         []string
		}
		Warnings []string
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	require.Len(t, got.Commands, 3)
	assert.Equal(t, "broken", got.Commands[0].Name)
	assert.Contains(t, got.Commands[0].Error, "broken.md:1: frontmatter is not closed")
	assert.Equal(t, "git:commit", got.Commands[1].Name)
	assert.Equal(t, "[message]", got.Commands[1].ArgumentHint)
	assert.Equal(t, []string{"Bash(git commit:*)", "Read"}, got.Commands[1].AllowedTools)
	assert.Equal(t, "project", got.Commands[1].Source)
	assert.Equal(t, "mine", got.Commands[2].Name)
	assert.Equal(t, "user", got.Commands[2].Source)
	assert.Empty(t, got.Warnings)
}

// Protects: `helios run /name args` sends the command's expansion as the
// prompt ($1, $ARGUMENTS and a confined !`cmd` in place); an unknown
// /name is an error naming it, and nothing is sent.
func TestRunSlashCommand(t *testing.T) {
	home, work, cfgDir := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	writeCmd(t, filepath.Join(work, ".claude/commands/fix.md"), "---\nallowed-tools: Bash\n---\nFix issue $1 in $ARGUMENTS; branch !`echo confined-out`\n")
	srv := modeltest.NewServer(t, modeltest.Say("done"))
	cfg := filepath.Join(cfgDir, "helios.config.json")
	writeCmd(t, cfg, `{"skills": {"userRoots": []}, "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(home, "sessions")+`"}}`)

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "--config", cfg, "run", "/fix", "42", "the parser"}, &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	var user []string
	for _, m := range reqs[0].Messages {
		if m.Role == "user" {
			user = append(user, m.Content)
		}
	}
	assert.Contains(t, user, "Fix issue 42 in 42 the parser; branch confined-out\n")

	out.Reset()
	errOut.Reset()
	code = run(context.Background(), []string{"--work-dir", work, "--config", cfg, "run", "/nope please"}, &out, &errOut)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut.String(), `command "nope": no such command`)
	assert.Len(t, srv.Requests(), 1)
	assert.False(t, strings.Contains(out.String(), "session "), out.String())
}
