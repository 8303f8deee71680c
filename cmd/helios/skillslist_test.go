package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeCounter counts the writes that reach it, as each would be a system
// call on a terminal or a pipe.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// Protects: `helios skills list` prints its table (every skill, the
// warnings after it) in a few large writes. Unbuffered, the table wrote each
// cell and each run of padding apart: 10,000 skills took a second, most of
// it in write system calls.
func TestSkillsListTableIsWrittenInFewWrites(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	const n = 300
	for i := range n {
		dir := filepath.Join(home, ".helios", "skills", fmt.Sprintf("skill-%03d", i))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		body := fmt.Sprintf("---\nname: skill-%03d\ndescription: Does thing number %d.\n---\nBody.\n", i, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644))
	}
	var out writeCounter
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "skills", "list"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), n+1, "a header and a line a skill")
	assert.True(t, strings.HasPrefix(lines[1], "skill-000 "), lines[1])
	assert.True(t, strings.HasPrefix(lines[n], "skill-299 "), lines[n])
	assert.LessOrEqual(t, out.writes, 4, "%d writes for %d bytes", out.writes, out.Len())
}

// listLines runs `helios skills list` with args in a work dir and home of
// its own and returns its lines.
func listLines(t *testing.T, home string, args ...string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"--work-dir", t.TempDir(), "skills", "list"}, args...), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// Protects: `skills list` fits the terminal: descriptions are cut so that
// each row fits $COLUMNS (a terminal's own width is asked first), and are
// whole with --wide, with --json, and on a pipe without $COLUMNS. Rows of
// 174 columns wrapped on an 80-column terminal.
func TestSkillsListFitsTheTerminalWidth(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	desc := strings.Repeat("Reads and fills PDF forms, ", 8) + "END."
	dir := filepath.Join(home, ".helios", "skills", "pdf")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pdf\ndescription: "+desc+"\n---\nBody.\n"), 0o644))

	t.Setenv("COLUMNS", "100")
	lines := listLines(t, home)
	require.GreaterOrEqual(t, len(lines), 2)
	for _, l := range lines[:2] {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), 100, "%q", l)
	}
	assert.Contains(t, lines[1], "…", "the description is cut")
	assert.Contains(t, lines[1], filepath.Join("~", ".helios", "skills", "pdf"), "the base dir is still shown, home as ~")

	whole := func(lines []string) bool { return strings.Contains(strings.Join(lines, "\n"), "END.") }
	assert.True(t, whole(listLines(t, home, "--wide")), "--wide shows it whole")
	assert.True(t, whole(listLines(t, home, "--json")), "--json shows it whole")
	os.Unsetenv("COLUMNS") // restored by t.Setenv's cleanup
	assert.True(t, whole(listLines(t, home)), "a pipe without $COLUMNS gets whole rows")
}

// Protects: an empty `skills list` names every root it searched, which of
// them are missing, and how to get skills, instead of only "No skills.".
func TestSkillsListEmptyStateNamesRootsAndAdd(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".agents", "skills"), 0o755))
	out := strings.Join(listLines(t, home), "\n")
	assert.Contains(t, out, "No skills.")
	assert.Contains(t, out, "  "+filepath.Join(home, ".helios", "skills")+" (missing)\n")
	assert.Contains(t, out, "  "+filepath.Join(home, ".agents", "skills")+"\n", "an existing root is not called missing")
	assert.Contains(t, out, filepath.Join(".helios", "skills"), "project roots are named too")
	assert.Contains(t, out, "helios skills add")
}
