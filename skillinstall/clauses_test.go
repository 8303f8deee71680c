package skillinstall_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/skillinstall"
)

// C22 clause by clause where the first tests stop: a command that fails
// halfway (after a good skill was staged) leaves the root and the lockfile
// as they were; the lockfile holds one entry per skill, by name, and a
// command that changes nothing leaves its bytes; verify fails on a file
// that was only added.

// snapshot is the root's files (path → content or link target) and the
// lockfile's bytes.
func snapshot(t *testing.T, w world) (map[string]string, string) {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(filepath.Dir(w.cfg.Root), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(w.cfg.Root), p)
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			files[rel] = "-> " + target
			return err
		}
		data, err := os.ReadFile(p)
		files[rel] = string(data)
		return err
	}))
	lock, err := os.ReadFile(w.cfg.LockFile)
	require.NoError(t, err)
	return files, string(lock)
}

// An add whose first skill is fine and whose second is refused installs
// neither; an update that stages a new pdf and then meets a refused docx
// updates neither. The root (every file) and the lockfile (every byte) are
// as before, and no stage is left.
func TestAFailedCommandHalfwayChangesNothing(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	files, lock := snapshot(t, w)

	other := gittest.New(t, "other")
	other.Commit(map[string]gittest.File{
		"a-good/SKILL.md": gittest.Text(md("a-good", "Fine and first.")),
		"z-evil/SKILL.md": gittest.Text(md("z-evil", "Looks fine.")),
		"z-evil/key":      gittest.Link("/root/.ssh/id_rsa"),
	})
	_, err = w.in.Add(ctx, other.URL(), skillinstall.AddOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "z-evil/key")
	gotFiles, gotLock := snapshot(t, w)
	assert.Equal(t, files, gotFiles, "the skill staged before the failure is not installed, and no stage is left")
	assert.Equal(t, lock, gotLock, "the lockfile is unchanged")

	hostile := twoSkills("A newer pdf.\n")
	hostile["nested/deep/docx/out"] = gittest.Link("../../../../etc/passwd")
	r.Commit(hostile)
	_, err = w.in.Update(ctx, nil, skillinstall.UpdateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nested/deep/docx/out")
	gotFiles, gotLock = snapshot(t, w)
	assert.Equal(t, files, gotFiles, "pdf, staged before docx failed, keeps its old version")
	assert.Equal(t, lock, gotLock, "the lockfile is unchanged")
}

// The lockfile holds one entry per skill, by name, whatever was added
// again or updated; a command that changes nothing leaves its bytes.
func TestLockfileOneEntryPerSkillByName(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	for _, n := range []string{"pdf", "docx", "pdf"} {
		_, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{Skills: []string{n}, Force: true})
		require.NoError(t, err)
	}
	newest := r.Commit(twoSkills("Second version.\n"))
	_, err := w.in.Update(ctx, nil, skillinstall.UpdateOptions{})
	require.NoError(t, err)
	l := w.lock(t)
	require.Len(t, l.Skills, 2, "one entry per skill: %+v", l.Skills)
	assert.Equal(t, "docx", l.Skills[0].Name)
	assert.Equal(t, "pdf", l.Skills[1].Name)
	assert.Equal(t, newest, l.Skills[1].Commit)

	_, before := snapshot(t, w)
	_, err = w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	_, err = w.in.Sync(ctx)
	require.NoError(t, err)
	_, after := snapshot(t, w)
	assert.Equal(t, before, after, "commands that change nothing leave the lockfile's bytes")
}

// A file added to an installed skill, and nothing else, fails verify and is
// named, in a new subfolder too; changed and missing stay empty.
func TestVerifyFailsOnAnAddedFileAlone(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	rep, err := w.in.Verify(ctx)
	require.NoError(t, err)
	require.True(t, rep.OK, "as installed: %+v", rep)

	require.NoError(t, os.MkdirAll(filepath.Join(w.dir("pdf"), "references", "more"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w.dir("pdf"), "references", "more", "payload.sh"), []byte("curl evil\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w.dir("docx"), ".env"), []byte("X=1\n"), 0o644))

	rep, err = w.in.Verify(ctx)
	require.NoError(t, err)
	assert.False(t, rep.OK, "an added file is a change")
	require.Len(t, rep.Skills, 2)
	for _, c := range rep.Skills {
		assert.False(t, c.OK, "%s has an added file", c.Name)
		assert.Empty(t, c.Changed, c.Name)
		assert.Empty(t, c.Missing, c.Name)
	}
	assert.Equal(t, []string{".env"}, rep.Skills[0].Extra)
	assert.Equal(t, []string{"references/more/payload.sh"}, rep.Skills[1].Extra)
}
