package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/skillinstall"
)

// installWorld is a HOME, a work dir and a repository of two skills.
type installWorld struct {
	home, work string
	repo       *gittest.Repo
}

func newInstallWorld(t *testing.T) installWorld {
	t.Helper()
	w := installWorld{home: t.TempDir(), work: t.TempDir(), repo: gittest.New(t, "skills")}
	t.Setenv("HOME", w.home)
	w.repo.Commit(map[string]gittest.File{
		"skills/pdf/SKILL.md":  gittest.Text("---\nname: pdf\ndescription: Work with PDF files.\n---\nPdf.\n"),
		"skills/docx/SKILL.md": gittest.Text("---\nname: docx\ndescription: Work with\n  Word files.\n---\nDocx.\n"),
	})
	return w
}

// helios runs the CLI in the work dir and returns its exit code, stdout and stderr.
func (w installWorld) helios(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"--work-dir", w.work}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func (w installWorld) userSkill(name string) string {
	return filepath.Join(w.home, ".helios", "skills", name)
}

func TestSkillsUpdateRefusesALocallyEditedSkill(t *testing.T) {
	w := newInstallWorld(t)
	code, _, stderr := w.helios(t, "skills", "add", w.repo.URL())
	require.Equal(t, 0, code, stderr)
	edited := filepath.Join(w.userSkill("pdf"), "SKILL.md")
	require.NoError(t, os.WriteFile(edited, []byte("---\nname: pdf\ndescription: Mine.\n---\n"), 0o644))

	code, stdout, stderr := w.helios(t, "skills", "update", "pdf")
	assert.Equal(t, 1, code, "upstream did not move, the skill was edited: %s", stdout)
	assert.NotContains(t, stdout, "unchanged")
	assert.Contains(t, stderr, "changed: SKILL.md")
	assert.Contains(t, stderr, "--force")
	code, _, _ = w.helios(t, "skills", "verify")
	assert.Equal(t, 1, code, "verify agrees")

	code, stdout, stderr = w.helios(t, "skills", "update", "--force", "pdf")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "restored pdf")
	code, _, _ = w.helios(t, "skills", "verify")
	assert.Equal(t, 0, code)
}

func TestSkillsAddListShowsSkillsAndInstallsNothing(t *testing.T) {
	w := newInstallWorld(t)
	code, stdout, stderr := w.helios(t, "skills", "add", "--list", w.repo.URL())
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `(?m)^docx +skills/docx +Work with Word files\.$`, stdout, "one row a skill, its description on one line")
	assert.Regexp(t, `(?m)^pdf +skills/pdf +Work with PDF files\.$`, stdout)
	assert.Contains(t, stdout, "nothing installed")
	assert.NoDirExists(t, filepath.Join(w.home, ".helios"), "no root, no lockfile")

	code, stdout, stderr = w.helios(t, "--json", "skills", "add", "--list", "--project", w.repo.URL())
	require.Equal(t, 0, code, stderr)
	var l skillinstall.Listing
	require.NoError(t, json.Unmarshal([]byte(stdout), &l), stdout)
	require.Len(t, l.Skills, 2)
	assert.Equal(t, "Work with PDF files.", l.Skills[1].Description)
	assert.NoFileExists(t, filepath.Join(w.work, skillinstall.LockFileName))
	assert.NoDirExists(t, filepath.Join(w.work, ".helios"))
}

// A conflict costs its skill only: the other is installed, a warning names
// the skill and what is in the way, and the exit status is 1.
func TestSkillsAddConflictInstallsTheOthersAndExitsOne(t *testing.T) {
	w := newInstallWorld(t)
	mine := filepath.Join(w.userSkill("pdf"), "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte("---\nname: pdf\ndescription: Mine.\n---\n"), 0o644))

	code, stdout, stderr := w.helios(t, "skills", "add", w.repo.URL())
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "installed docx")
	assert.Contains(t, stderr, `warning: skill "pdf" not installed: `+w.userSkill("pdf")+" exists")
	assert.Contains(t, stderr, "1 skill(s) not installed: pdf")
	l, err := skillinstall.ReadLock(filepath.Join(w.home, ".helios", skillinstall.LockFileName))
	require.NoError(t, err)
	require.Len(t, l.Skills, 1)
	assert.Equal(t, "docx", l.Skills[0].Name)
	code, _, _ = w.helios(t, "skills", "verify")
	assert.Equal(t, 0, code, "the lockfile matches what was installed")
}

func TestSkillsCommandsSuggestTheOtherRoot(t *testing.T) {
	w := newInstallWorld(t)
	code, _, stderr := w.helios(t, "skills", "add", "--project", "--skill", "docx", w.repo.URL())
	require.Equal(t, 0, code, stderr)
	projectLock := filepath.Join(w.work, skillinstall.LockFileName)

	code, _, stderr = w.helios(t, "skills", "remove", "docx")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "docx is locked in "+projectLock+": helios skills remove --project docx")
	assert.DirExists(t, filepath.Join(w.work, ".helios", "skills", "docx"))

	code, _, stderr = w.helios(t, "skills", "update", "docx")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "helios skills update --project docx")

	code, stdout, _ := w.helios(t, "skills", "verify")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "1 skill(s) are locked in "+projectLock+": helios skills verify --project")

	code, _, stderr = w.helios(t, "skills", "add", "--skill", "pdf", w.repo.URL())
	require.Equal(t, 0, code, stderr)
	code, _, stderr = w.helios(t, "skills", "remove", "--project", "pdf")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "helios skills remove pdf (without --project)")
}

// Protects: M748 (verify prints file names raw). A file planted in a
// locked skill with an escape sequence in its name is named escaped: the
// sequence never reaches the terminal.
func TestSkillsVerifyEscapesFileNames(t *testing.T) {
	w := newInstallWorld(t)
	code, _, stderr := w.helios(t, "skills", "add", "--skill", "pdf", w.repo.URL())
	require.Equal(t, 0, code, stderr)
	planted := "x\x1b]0;pwned\x07.md"
	require.NoError(t, os.WriteFile(filepath.Join(w.userSkill("pdf"), planted), []byte("x"), 0o644))
	code, stdout, _ := w.helios(t, "skills", "verify")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "pdf: extra: ")
	assert.NotContains(t, stdout, "\x1b")
	assert.NotContains(t, stdout, "\x07")
}
