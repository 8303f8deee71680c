package skillinstall_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gitserver"
	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/skillinstall"
)

// world is one skills root with its lockfile.
type world struct {
	cfg skillinstall.Config
	in  *skillinstall.Installer
}

func newWorld(t *testing.T) world {
	t.Helper()
	dir := t.TempDir()
	cfg := skillinstall.Config{Root: filepath.Join(dir, "skills"), LockFile: filepath.Join(dir, "helios-lock.json")}
	in, err := skillinstall.New(cfg)
	require.NoError(t, err)
	return world{cfg, in}
}

func (w world) dir(name string) string { return filepath.Join(w.cfg.Root, name) }

func (w world) lock(t *testing.T) skillinstall.Lock {
	t.Helper()
	l, err := skillinstall.ReadLock(w.cfg.LockFile)
	require.NoError(t, err)
	return l
}

func (w world) entry(t *testing.T, name string) skillinstall.Locked {
	t.Helper()
	for _, s := range w.lock(t).Skills {
		if s.Name == name {
			return s
		}
	}
	require.Failf(t, "not locked", "skill %q is not in %s", name, w.cfg.LockFile)
	return skillinstall.Locked{}
}

// rootEntries lists the root's folder and what lies beside it.
func (w world) rootEntries(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, d := range []string{w.cfg.Root, filepath.Dir(w.cfg.Root)} {
		es, err := os.ReadDir(d)
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		for _, e := range es {
			names = append(names, filepath.Join(filepath.Base(d), e.Name()))
		}
	}
	return names
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

func md(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nUse it.\n"
}

// twoSkills is a repository with pdf (a script, a symlink to it, a nested
// reference) and docx, and a README that is no skill.
func twoSkills(pdfBody string) map[string]gittest.File {
	return map[string]gittest.File{
		"README.md":                      gittest.Text("# skills\n"),
		"skills/pdf/SKILL.md":            gittest.Text(md("pdf", "Work with PDF files.") + pdfBody),
		"skills/pdf/scripts/extract.sh":  gittest.Script("#!/bin/sh\necho extract\n"),
		"skills/pdf/extract":             gittest.Link("scripts/extract.sh"),
		"skills/pdf/references/forms.md": gittest.Text("forms\n"),
		"nested/deep/docx/SKILL.md":      gittest.Text(md("docx", "Work with Word files.")),
	}
}

// transports runs f over file:// and over smart HTTP (git http-backend).
func transports(t *testing.T, f func(t *testing.T, r *gittest.Repo, url string)) {
	t.Run("file", func(t *testing.T) {
		r := gittest.New(t, "skills")
		f(t, r, r.URL())
	})
	t.Run("http", func(t *testing.T) {
		r := gittest.New(t, "skills")
		f(t, r, gittest.ServeRepo(t, r))
	})
}

func TestAddInstallsAndLocksCommitAndDigests(t *testing.T) {
	transports(t, func(t *testing.T, r *gittest.Repo, url string) {
		commit := r.Commit(twoSkills(""))
		w := newWorld(t)
		res, err := w.in.Add(context.Background(), url, skillinstall.AddOptions{})
		require.NoError(t, err)
		require.Len(t, res.Skills, 2)
		assert.Equal(t, skillinstall.Installed, res.Skills[0].Action)

		pdf := w.entry(t, "pdf")
		assert.Equal(t, commit, pdf.Commit)
		assert.Equal(t, url, pdf.Source)
		assert.Equal(t, "main", pdf.Ref, "no #REF: the default branch, recorded by name")
		assert.Equal(t, "skills/pdf", pdf.Path)
		assert.Equal(t, map[string]string{
			"SKILL.md":            sum(md("pdf", "Work with PDF files.")),
			"scripts/extract.sh":  sum("#!/bin/sh\necho extract\n"),
			"extract":             sum("scripts/extract.sh"),
			"references/forms.md": sum("forms\n"),
		}, pdf.Files)
		assert.Equal(t, "nested/deep/docx", w.entry(t, "docx").Path, "skills are found at any depth")

		data, err := os.ReadFile(filepath.Join(w.dir("pdf"), "references", "forms.md"))
		require.NoError(t, err)
		assert.Equal(t, "forms\n", string(data))
		fi, err := os.Stat(filepath.Join(w.dir("pdf"), "scripts", "extract.sh"))
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode().Perm()&0o100, "the run bits are kept: %v", fi.Mode())
		fi, err = os.Stat(filepath.Join(w.dir("pdf"), "SKILL.md"))
		require.NoError(t, err)
		assert.Zero(t, fi.Mode().Perm()&0o111, "a plain file is not made executable")
		target, err := os.Readlink(filepath.Join(w.dir("pdf"), "extract"))
		require.NoError(t, err)
		assert.Equal(t, "scripts/extract.sh", target)
		assert.NoFileExists(t, filepath.Join(w.cfg.Root, "README.md"))

		rep, err := w.in.Verify(context.Background())
		require.NoError(t, err)
		assert.True(t, rep.OK, "a fresh install verifies: %+v", rep)
	})
}

func TestAddSelectsByNameAndRefs(t *testing.T) {
	transports(t, func(t *testing.T, r *gittest.Repo, url string) {
		first := r.Commit(twoSkills(""))
		r.Tag("v1", first)
		second := r.Commit(twoSkills("Second.\n"))
		r.CommitOn("dev", twoSkills("Dev.\n"))
		ctx := context.Background()

		cases := []struct{ ref, commit string }{
			{"v1", first},               // an annotated tag, peeled to its commit
			{first[:10], first},         // a short commit hash
			{"main", second},            // a branch
			{"refs/heads/main", second}, // a full ref name
		}
		for _, c := range cases {
			w := newWorld(t)
			_, err := w.in.Add(ctx, url+"#"+c.ref, skillinstall.AddOptions{Skills: []string{"pdf"}})
			require.NoError(t, err, c.ref)
			e := w.entry(t, "pdf")
			assert.Equal(t, c.commit, e.Commit, c.ref)
			assert.Equal(t, c.ref, e.Ref, "the ref is recorded as given")
			assert.Len(t, w.lock(t).Skills, 1, "--skill pdf installs pdf alone")
			assert.NoDirExists(t, w.dir("docx"))
		}

		w := newWorld(t)
		_, err := w.in.Add(ctx, url, skillinstall.AddOptions{Skills: []string{"nope"}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `no skill named "nope"`)
		assert.Contains(t, err.Error(), "docx, pdf", "the error lists what the repository has")
	})
}

func TestLockfileIsDeterministic(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	ctx := context.Background()

	a := newWorld(t)
	_, err := a.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	b := newWorld(t)
	for _, n := range []string{"pdf", "docx"} { // the other order
		_, err := b.in.Add(ctx, r.URL(), skillinstall.AddOptions{Skills: []string{n}})
		require.NoError(t, err)
	}
	da, err := os.ReadFile(a.cfg.LockFile)
	require.NoError(t, err)
	db, err := os.ReadFile(b.cfg.LockFile)
	require.NoError(t, err)
	assert.Equal(t, string(da), string(db), "the same skills give the same bytes, whatever the order of the adds")

	text := string(da)
	assert.True(t, strings.HasSuffix(text, "}\n"), "one final newline")
	assert.Less(t, strings.Index(text, `"docx"`), strings.Index(text, `"pdf"`), "skills by name")
	assert.Less(t, strings.Index(text, `"skills"`), strings.Index(text, `"version": 1`), "keys sorted")
	first := text[strings.Index(text, "{\n      "):]
	keys := []string{`"commit"`, `"files"`, `"name"`, `"path"`, `"ref"`, `"source"`}
	for i := 1; i < len(keys); i++ {
		assert.Less(t, strings.Index(first, keys[i-1]), strings.Index(first, keys[i]), "entry keys sorted: %s before %s", keys[i-1], keys[i])
	}
	var raw map[string]any
	require.NoError(t, json.Unmarshal(da, &raw))
	assert.Len(t, raw, 2, "version and skills, nothing else")
}

func TestVerifyNamesEveryChangedMissingAndExtraFile(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(filepath.Join(w.dir("pdf"), "scripts", "extract.sh"), []byte("#!/bin/sh\ncurl evil\n"), 0o755))
	require.NoError(t, os.Remove(filepath.Join(w.dir("pdf"), "references", "forms.md")))
	require.NoError(t, os.WriteFile(filepath.Join(w.dir("pdf"), "new.md"), []byte("x"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(w.dir("pdf"), "extract")))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(w.dir("pdf"), "extract"))) // re-pointed out

	rep, err := w.in.Verify(ctx)
	require.NoError(t, err)
	assert.False(t, rep.OK)
	require.Len(t, rep.Skills, 2)
	docx, pdf := rep.Skills[0], rep.Skills[1]
	assert.True(t, docx.OK, "an untouched skill is fine: %+v", docx)
	assert.False(t, pdf.OK)
	assert.Equal(t, []string{"extract", "scripts/extract.sh"}, pdf.Changed)
	assert.Equal(t, []string{"references/forms.md"}, pdf.Missing)
	assert.Equal(t, []string{"new.md"}, pdf.Extra)

	require.NoError(t, os.RemoveAll(w.dir("docx")))
	rep, err = w.in.Verify(ctx)
	require.NoError(t, err)
	assert.False(t, rep.Skills[0].Installed)
	assert.Equal(t, []string{"SKILL.md"}, rep.Skills[0].Missing)
}

func TestUpdateMovesToTheNewestCommitAndRewritesTheLock(t *testing.T) {
	transports(t, func(t *testing.T, r *gittest.Repo, url string) {
		first := r.Commit(twoSkills(""))
		w := newWorld(t)
		ctx := context.Background()
		_, err := w.in.Add(ctx, url, skillinstall.AddOptions{})
		require.NoError(t, err)

		res, err := w.in.Update(ctx, nil, skillinstall.UpdateOptions{})
		require.NoError(t, err)
		for _, c := range res.Skills {
			assert.Equal(t, skillinstall.Unchanged, c.Action, c.Name)
		}

		second := r.Commit(twoSkills("Now with more.\n"))
		res, err = w.in.Update(ctx, []string{"pdf"}, skillinstall.UpdateOptions{})
		require.NoError(t, err)
		require.Len(t, res.Skills, 1)
		assert.Equal(t, skillinstall.Updated, res.Skills[0].Action)
		assert.Equal(t, first, res.Skills[0].From)
		pdf := w.entry(t, "pdf")
		assert.Equal(t, second, pdf.Commit, "the lock follows the update")
		assert.Equal(t, sum(md("pdf", "Work with PDF files.")+"Now with more.\n"), pdf.Files["SKILL.md"])
		assert.Equal(t, first, w.entry(t, "docx").Commit, "a skill not named stays where it was")
		data, err := os.ReadFile(filepath.Join(w.dir("pdf"), "SKILL.md"))
		require.NoError(t, err)
		assert.Contains(t, string(data), "Now with more.")
		rep, err := w.in.Verify(ctx)
		require.NoError(t, err)
		assert.True(t, rep.OK, "after update the folder matches the rewritten lock: %+v", rep)
	})
}

func TestUpdateRefusesLocalChangesUnlessForced(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	edited := filepath.Join(w.dir("pdf"), "references", "forms.md")
	require.NoError(t, os.WriteFile(edited, []byte("my notes\n"), 0o644))
	r.Commit(twoSkills("v2\n"))

	_, err = w.in.Update(ctx, nil, skillinstall.UpdateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "references/forms.md", "the refusal names the changed file")
	data, _ := os.ReadFile(edited)
	assert.Equal(t, "my notes\n", string(data), "nothing was replaced")

	_, err = w.in.Update(ctx, nil, skillinstall.UpdateOptions{Force: true})
	require.NoError(t, err)
	data, _ = os.ReadFile(edited)
	assert.Equal(t, "forms\n", string(data))
}

func TestSyncReproducesTheLockedCommitAfterTheRepositoryMovedOn(t *testing.T) {
	transports(t, func(t *testing.T, r *gittest.Repo, url string) {
		locked := r.Commit(twoSkills("Locked.\n"))
		w := newWorld(t)
		ctx := context.Background()
		_, err := w.in.Add(ctx, url, skillinstall.AddOptions{})
		require.NoError(t, err)
		lockBytes, err := os.ReadFile(w.cfg.LockFile)
		require.NoError(t, err)
		r.Commit(twoSkills("Newer.\n"))
		r.Commit(twoSkills("Newest.\n"))

		// A fresh machine: only the lockfile.
		fresh := newWorld(t)
		require.NoError(t, os.WriteFile(fresh.cfg.LockFile, lockBytes, 0o644))
		res, err := fresh.in.Sync(ctx)
		require.NoError(t, err)
		require.Len(t, res.Skills, 2)
		for _, c := range res.Skills {
			assert.Equal(t, skillinstall.Installed, c.Action)
			assert.Equal(t, locked, c.Commit)
		}
		data, err := os.ReadFile(filepath.Join(fresh.dir("pdf"), "SKILL.md"))
		require.NoError(t, err)
		assert.Contains(t, string(data), "Locked.", "sync installs the locked commit, not the newest")
		after, err := os.ReadFile(fresh.cfg.LockFile)
		require.NoError(t, err)
		assert.Equal(t, string(lockBytes), string(after), "sync never rewrites the lock")
		rep, err := fresh.in.Verify(ctx)
		require.NoError(t, err)
		assert.True(t, rep.OK, "%+v", rep)

		// A second sync has nothing to do; a changed file is put back.
		require.NoError(t, os.WriteFile(filepath.Join(fresh.dir("docx"), "SKILL.md"), []byte("tampered"), 0o644))
		res, err = fresh.in.Sync(ctx)
		require.NoError(t, err)
		assert.Equal(t, skillinstall.Restored, res.Skills[0].Action)
		assert.Equal(t, skillinstall.Unchanged, res.Skills[1].Action)
		rep, err = fresh.in.Verify(ctx)
		require.NoError(t, err)
		assert.True(t, rep.OK)
	})
}

func TestSyncFailsWhenTheLockedCommitIsGone(t *testing.T) {
	r := gittest.New(t, "skills")
	base := r.Commit(twoSkills(""))
	url := gittest.ServeRepo(t, r)
	gone := r.Commit(twoSkills("Rewritten away.\n"))
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, url, skillinstall.AddOptions{})
	require.NoError(t, err)
	require.Equal(t, gone, w.entry(t, "pdf").Commit)
	r.SetBranch("main", base) // a force push: the locked commit is reachable from nothing

	fresh := newWorld(t)
	data, err := os.ReadFile(w.cfg.LockFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fresh.cfg.LockFile, data, 0o644))
	_, err = fresh.in.Sync(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `skill "docx"`)
	assert.Contains(t, err.Error(), gone, "the error names the commit")
	assert.Empty(t, fresh.rootEntries(t)[1:], "nothing installed: %v", fresh.rootEntries(t))
}

func TestSyncRefusesAFileWhoseDigestDiffersFromTheLock(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	data, err := os.ReadFile(w.cfg.LockFile)
	require.NoError(t, err)
	// The lock someone reviewed says the script is something else.
	tampered := strings.Replace(string(data), sum("#!/bin/sh\necho extract\n"), sum("#!/bin/sh\necho reviewed\n"), 1)
	require.NotEqual(t, string(data), tampered)

	fresh := newWorld(t)
	require.NoError(t, os.WriteFile(fresh.cfg.LockFile, []byte(tampered), 0o644))
	_, err = fresh.in.Sync(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `skill "pdf"`)
	assert.Contains(t, err.Error(), "scripts/extract.sh")
	assert.NoDirExists(t, fresh.dir("pdf"))
	assert.NoDirExists(t, fresh.dir("docx"), "one bad skill installs nothing")
}

func TestRemoveDeletesTheFolderAndTheEntry(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)

	res, err := w.in.Remove(ctx, []string{"pdf"})
	require.NoError(t, err)
	assert.Equal(t, skillinstall.Removed, res.Skills[0].Action)
	assert.NoDirExists(t, w.dir("pdf"))
	assert.DirExists(t, w.dir("docx"))
	l := w.lock(t)
	require.Len(t, l.Skills, 1)
	assert.Equal(t, "docx", l.Skills[0].Name)

	require.NoError(t, os.MkdirAll(w.dir("mine"), 0o755))
	_, err = w.in.Remove(ctx, []string{"mine"})
	require.Error(t, err, "helios removes only what it installed")
	assert.Contains(t, err.Error(), `"mine"`)
	assert.DirExists(t, w.dir("mine"))
}

func TestAddRefusesACollisionWithAnUnlockedFolderUnlessForced(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	mine := filepath.Join(w.dir("pdf"), "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte(md("pdf", "My own.")), 0o644))

	res, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err, "a conflict costs only its skill")
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, "pdf", res.Skipped[0].Name)
	assert.Contains(t, res.Skipped[0].Reason, w.dir("pdf"))
	assert.Contains(t, res.Skipped[0].Reason, "--force")
	data, _ := os.ReadFile(mine)
	assert.Contains(t, string(data), "My own.", "the folder is untouched")
	assert.DirExists(t, w.dir("docx"), "the other skill is installed")
	assert.Equal(t, []string{"docx"}, names(w.lock(t)), "only what was installed is locked")

	_, err = w.in.Add(ctx, r.URL(), skillinstall.AddOptions{Force: true})
	require.NoError(t, err)
	data, _ = os.ReadFile(mine)
	assert.Contains(t, string(data), "Work with PDF files.")

	flat := newWorld(t)
	require.NoError(t, os.MkdirAll(flat.cfg.Root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(flat.cfg.Root, "docx.md"), []byte(md("docx", "Mine, flat.")), 0o644))
	res, err = flat.in.Add(ctx, r.URL(), skillinstall.AddOptions{Skills: []string{"docx"}})
	require.NoError(t, err)
	require.Len(t, res.Skipped, 1, "a flat skill of the same name collides too")
	assert.Contains(t, res.Skipped[0].Reason, "docx.md")
	assert.NoDirExists(t, flat.dir("docx"))
	assert.NoFileExists(t, flat.cfg.LockFile, "nothing was installed, nothing locked")
}

func TestHostileSkillsAreRefusedNamingTheFile(t *testing.T) {
	ok := md("evil", "Looks fine.")
	big := strings.Repeat("x", 6<<20)
	many := map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok)}
	for i := range 512 {
		many[fmt.Sprintf("skills/evil/refs/%03d.md", i)] = gittest.Text(fmt.Sprint(i))
	}
	cases := []struct {
		name  string
		files map[string]gittest.File
		want  []string
	}{
		{"absolute symlink", map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok),
			"skills/evil/key": gittest.Link("/root/.ssh/id_rsa")},
			[]string{"skills/evil/key", "outside the skill folder"}},
		{"symlink up and out", map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok),
			"skills/evil/scripts/key": gittest.Link("../../../../etc/passwd")},
			[]string{"skills/evil/scripts/key", "outside the skill folder"}},
		{"symlink into a sibling skill", map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok),
			"skills/evil/other": gittest.Link("../docx/SKILL.md"), "skills/docx/SKILL.md": gittest.Text(md("docx", "d"))},
			[]string{"skills/evil/other", "outside the skill folder"}},
		{"symlink out through another symlink", map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok),
			"skills/evil/here": gittest.Link("."), "skills/evil/sneaky": gittest.Link("here/../secret")},
			[]string{"skills/evil/sneaky", "outside the skill folder"}},
		{"symlink loop", map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok),
			"skills/evil/a": gittest.Link("b"), "skills/evil/b": gittest.Link("a")},
			[]string{"skills/evil/a", "symlinks"}},
		{"path escape", map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok),
			"skills/evil/../../escaped": gittest.Text("x")},
			[]string{"skills/evil/..", "escapes the skill folder"}},
		{"a .git folder", map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok),
			"skills/evil/.git/hooks/post-checkout": gittest.Script("x")},
			[]string{"skills/evil/.git", ".git"}},
		{"over 16 MiB", map[string]gittest.File{"skills/evil/SKILL.md": gittest.Text(ok),
			"skills/evil/a.bin": gittest.Text(big), "skills/evil/b.bin": gittest.Text(big), "skills/evil/c.bin": gittest.Text(big)},
			[]string{"skills/evil/c.bin", "16777216 bytes"}},
		{"over 512 files", many, []string{"skills/evil/refs/511.md", "512 files"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := gittest.New(t, "skills")
			r.Commit(c.files)
			w := newWorld(t)
			_, err := w.in.Add(context.Background(), r.URL(), skillinstall.AddOptions{Skills: []string{"evil"}})
			require.Error(t, err)
			for _, want := range c.want {
				assert.Contains(t, err.Error(), want)
			}
			assert.Empty(t, w.rootEntries(t), "nothing half-installed, no stage left behind")
		})
	}
}

func TestInwardSymlinksAreKept(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(map[string]gittest.File{
		"evil/SKILL.md":        gittest.Text(md("fine", "Inward links.")),
		"evil/run":             gittest.Link("scripts/run.sh"),
		"evil/scripts/run.sh":  gittest.Script("echo\n"),
		"evil/scripts/up":      gittest.Link("../SKILL.md"),
		"evil/dir":             gittest.Link("./scripts/"),
		"evil/through":         gittest.Link("dir/run.sh"),
		"evil/dangling":        gittest.Link("not-yet/there"),
		"evil/scripts/back/in": gittest.Link("../../scripts/../SKILL.md"),
	})
	w := newWorld(t)
	_, err := w.in.Add(context.Background(), r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(w.dir("fine"), "through"))
	require.NoError(t, err)
	assert.Equal(t, "echo\n", string(data))
}

func TestBadInputIsOneClearErrorAndChangesNothing(t *testing.T) {
	empty := gittest.New(t, "empty")
	empty.Commit(map[string]gittest.File{"README.md": gittest.Text("no skills here\n")})
	good := gittest.New(t, "good")
	good.Commit(twoSkills(""))
	noDesc := gittest.New(t, "nodesc")
	noDesc.Commit(map[string]gittest.File{"x/SKILL.md": gittest.Text("---\nname: x\n---\nbody\n")})
	hostile := gittest.New(t, "hostile")
	hostile.Commit(map[string]gittest.File{"sub/SKILL.md": gittest.Text(md("../../evil", "Escapes by name."))})
	plain := t.TempDir()

	cases := []struct {
		name, spec string
		want       []string
	}{
		{"unreachable source", "http://127.0.0.1:1/skills.git", []string{"http://127.0.0.1:1/skills.git", "connection refused"}},
		{"missing local source", filepath.Join(plain, "nope"), []string{filepath.Join(plain, "nope")}},
		{"not a repository", plain, []string{plain, "not a git repository"}},
		{"missing ref", good.URL() + "#nope", []string{`ref "nope" not found`, "branches: main"}},
		{"no SKILL.md", empty.URL(), []string{"no SKILL.md", empty.URL()}},
		{"unusable SKILL.md only", noDesc.URL(), []string{"no usable SKILL.md", noDesc.URL(), "x/SKILL.md", "missing description"}},
		{"hostile name only", hostile.URL(), []string{"no usable SKILL.md", "sub/SKILL.md", `"../../evil"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			_, err := w.in.Add(context.Background(), c.spec, skillinstall.AddOptions{})
			require.Error(t, err)
			for _, want := range c.want {
				assert.Contains(t, err.Error(), want)
			}
			assert.Empty(t, w.rootEntries(t), "nothing installed")
			assert.NoFileExists(t, w.cfg.LockFile)
		})
	}

	t.Run("corrupted lockfile", func(t *testing.T) {
		for _, bad := range []struct{ text, want string }{
			{`{"version": 1, "skills": [`, "line 1"},
			{"{\n  \"version\": 1,\n  \"skills\": [{\"name\": 5}]\n}\n", "line 3"},
			{`{"version": 2, "skills": []}`, "version 2"},
			{`{"version": 1, "skills": [], "extra": true}`, `"extra"`},
			{`{"version": 1, "skills": [{"name": "../x", "source": "s", "ref": "main", "commit": "` + strings.Repeat("a", 40) + `", "path": ".", "files": {"SKILL.md": "` + sum("") + `"}}]}`, `"../x"`},
			{`{"version": 1, "skills": [{"name": "x", "source": "s", "ref": "main", "commit": "` + strings.Repeat("a", 40) + `", "path": ".", "files": {"../../etc/passwd": "` + sum("") + `"}}]}`, "../../etc/passwd"},
			{`{"version": 1, "skills": [{"name": "x", "source": "s", "ref": "main", "commit": "abc", "path": ".", "files": {"SKILL.md": "` + sum("") + `"}}]}`, `"abc"`},
		} {
			w := newWorld(t)
			require.NoError(t, os.WriteFile(w.cfg.LockFile, []byte(bad.text), 0o644))
			for _, op := range []func() error{
				func() error {
					_, err := w.in.Add(context.Background(), good.URL(), skillinstall.AddOptions{})
					return err
				},
				func() error { _, err := w.in.Sync(context.Background()); return err },
				func() error { _, err := w.in.Verify(context.Background()); return err },
			} {
				err := op()
				require.Error(t, err, bad.text)
				assert.ErrorIs(t, err, skillinstall.ErrCorruptLock)
				assert.Contains(t, err.Error(), w.cfg.LockFile)
				assert.Contains(t, err.Error(), bad.want)
			}
			assert.NoDirExists(t, w.cfg.Root)
			data, _ := os.ReadFile(w.cfg.LockFile)
			assert.Equal(t, bad.text, string(data), "the bad lock is left for the user to fix")
		}
	})
}

func TestCredentialsAreUsedButNeverLocked(t *testing.T) {
	r := gittest.New(t, "private")
	commit := r.Commit(twoSkills(""))
	srv := gitserver.Serve(t, filepath.Dir(r.Dir), "alice", "s3cret-token")
	plainURL := srv.URL + "/private"
	ctx := context.Background()

	t.Run("no credentials", func(t *testing.T) {
		t.Setenv("GIT_ASKPASS", "")
		t.Setenv("SSH_ASKPASS", "")
		w := newWorld(t)
		_, err := w.in.Add(ctx, plainURL, skillinstall.AddOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "authentication required")
		assert.Contains(t, err.Error(), "GIT_ASKPASS")
	})
	t.Run("in the URL", func(t *testing.T) {
		w := newWorld(t)
		withCreds := strings.Replace(plainURL, "://", "://alice:s3cret-token@", 1)
		_, err := w.in.Add(ctx, withCreds, skillinstall.AddOptions{})
		require.NoError(t, err)
		assert.Equal(t, plainURL, w.entry(t, "pdf").Source)
		data, _ := os.ReadFile(w.cfg.LockFile)
		assert.NotContains(t, string(data), "s3cret")
		assert.NotContains(t, string(data), "alice")

		for _, bad := range []string{
			strings.Replace(plainURL, "://", "://alice:wrong-token@", 1) + "#nope",
			strings.Replace(plainURL, "://", "://wrong-token@", 1),
			strings.Replace(plainURL, "://", "://alice:s3cret-token@", 1) + "#nope",
		} {
			_, err = w.in.Add(ctx, bad, skillinstall.AddOptions{})
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "-token", "a credential never reaches a message")
		}
	})
	t.Run("from GIT_ASKPASS", func(t *testing.T) {
		script := filepath.Join(t.TempDir(), "askpass")
		require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\ncase \"$1\" in Username*) echo alice;; *) echo s3cret-token;; esac\n"), 0o755))
		t.Setenv("GIT_ASKPASS", script)
		w := newWorld(t)
		_, err := w.in.Add(ctx, plainURL, skillinstall.AddOptions{})
		require.NoError(t, err)
		assert.Equal(t, commit, w.entry(t, "pdf").Commit)
		data, _ := os.ReadFile(w.cfg.LockFile)
		assert.NotContains(t, string(data), "s3cret")

		fresh := newWorld(t)
		require.NoError(t, os.WriteFile(fresh.cfg.LockFile, data, 0o644))
		_, err = fresh.in.Sync(ctx)
		require.NoError(t, err, "sync asks again")
	})
}

func TestAStageLeftByAKilledCommandIsCleanedUp(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	left := filepath.Join(filepath.Dir(w.cfg.Root), ".helios-stage-123", "pdf")
	require.NoError(t, os.MkdirAll(left, 0o755))
	_, err := w.in.Add(context.Background(), r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	assert.NoDirExists(t, filepath.Dir(left))
}

func TestConcurrentCommandsOnOneRootLoseNoEntry(t *testing.T) {
	r := gittest.New(t, "skills")
	files := map[string]gittest.File{}
	names := []string{"one", "two", "three", "four"}
	for _, n := range names {
		files[n+"/SKILL.md"] = gittest.Text(md(n, "Skill "+n+"."))
	}
	r.Commit(files)
	w := newWorld(t)
	errs := make(chan error, len(names))
	for _, n := range names {
		go func() {
			in, err := skillinstall.New(w.cfg) // as separate processes would
			if err == nil {
				_, err = in.Add(context.Background(), r.URL(), skillinstall.AddOptions{Skills: []string{n}})
			}
			errs <- err
		}()
	}
	for range names {
		require.NoError(t, <-errs)
	}
	assert.Len(t, w.lock(t).Skills, len(names), "each add read the lock the previous one wrote")
}

func TestUnusableAndDuplicateSkillsAreLeftOutWithAWarning(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(map[string]gittest.File{
		"skills/pdf/SKILL.md":         gittest.Text(md("pdf", "The one.")),
		".claude/skills/pdf/SKILL.md": gittest.Text(md("pdf", "A copy, deeper.")),
		"skills/nodesc/SKILL.md":      gittest.Text("---\nname: nodesc\n---\n"),
		"skills/evil/SKILL.md":        gittest.Text(md(".hidden", "A hidden name.")),
		"skills/link/SKILL.md":        gittest.Link("../pdf/SKILL.md"),
	})
	w := newWorld(t)
	res, err := w.in.Add(context.Background(), r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, "skills/pdf", res.Skills[0].Path, "the shallowest of two skills named pdf")
	all := strings.Join(res.Warnings, "\n")
	assert.Contains(t, all, ".claude/skills/pdf/SKILL.md")
	assert.Contains(t, all, "skills/nodesc/SKILL.md")
	assert.Contains(t, all, `".hidden"`)
	assert.Len(t, res.Warnings, 3, "a symlinked SKILL.md is no skill of its own: %v", res.Warnings)
	assert.Equal(t, []string{"skills/pdf"}, w.rootEntries(t)[:1])
}
