package skillinstall_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gitserver"
	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/skillinstall"
)

func names(l skillinstall.Lock) []string {
	out := []string{}
	for _, s := range l.Skills {
		out = append(out, s.Name)
	}
	return out
}

// A locally edited skill is refused by update although its ref did not
// move (verify says it differs, so update must not say "unchanged").
func TestUpdateRefusesLocalEditsWhenUpstreamDidNotMove(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, r.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	edited := filepath.Join(w.dir("pdf"), "SKILL.md")
	require.NoError(t, os.WriteFile(edited, []byte(md("pdf", "Mine now.")), 0o644))
	before, err := os.ReadFile(w.cfg.LockFile)
	require.NoError(t, err)

	for _, sel := range [][]string{nil, {"pdf"}} {
		_, err = w.in.Update(ctx, sel, skillinstall.UpdateOptions{})
		require.Error(t, err, "update %v over a local edit", sel)
		assert.Contains(t, err.Error(), `"pdf"`)
		assert.Contains(t, err.Error(), "changed: SKILL.md", "the refusal names the changed file")
		assert.Contains(t, err.Error(), "--force", "and how to proceed")
	}
	data, _ := os.ReadFile(edited)
	assert.Contains(t, string(data), "Mine now.", "nothing was replaced")
	after, _ := os.ReadFile(w.cfg.LockFile)
	assert.Equal(t, string(before), string(after))

	res, err := w.in.Update(ctx, []string{"docx"}, skillinstall.UpdateOptions{})
	require.NoError(t, err, "an unedited skill updates as before")
	require.Len(t, res.Skills, 1)
	assert.Equal(t, skillinstall.Unchanged, res.Skills[0].Action)

	res, err = w.in.Update(ctx, []string{"pdf"}, skillinstall.UpdateOptions{Force: true})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, skillinstall.Restored, res.Skills[0].Action, "--force puts the locked commit's files back")
	data, _ = os.ReadFile(edited)
	assert.Contains(t, string(data), "Work with PDF files.")
	rep, err := w.in.Verify(ctx)
	require.NoError(t, err)
	assert.True(t, rep.OK, "%+v", rep)
}

// List names each skill of a source with its description and installs
// nothing: no root, no lockfile, no stage.
func TestListShowsEachSkillWithoutInstalling(t *testing.T) {
	transports(t, func(t *testing.T, r *gittest.Repo, url string) {
		commit := r.Commit(twoSkills(""))
		w := newWorld(t)
		l, err := w.in.List(context.Background(), url)
		require.NoError(t, err)
		assert.Equal(t, []skillinstall.Available{
			{Name: "docx", Description: "Work with Word files.", Path: "nested/deep/docx"},
			{Name: "pdf", Description: "Work with PDF files.", Path: "skills/pdf"},
		}, l.Skills)
		assert.Equal(t, commit, l.Commit)
		assert.Equal(t, "main", l.Ref)
		assert.Empty(t, w.rootEntries(t), "nothing written beside the root")
		assert.NoFileExists(t, w.cfg.LockFile)
	})
}

func TestParseGitHubSources(t *testing.T) {
	const gh = "https://github.com"
	work := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(work, "local", "repo"), 0o755))
	t.Chdir(work)
	for _, c := range []struct {
		in                   string
		url, local, ref, sub string
		err                  string
	}{
		{in: "acme/skills", url: gh + "/acme/skills"},
		{in: "acme/skills.git", url: gh + "/acme/skills.git"},
		{in: "Acme-Co/my_skills.v2", url: gh + "/Acme-Co/my_skills.v2"},
		{in: "local/repo", url: filepath.Join(work, "local", "repo"), local: filepath.Join(work, "local", "repo")},
		{in: "./acme/skills", url: filepath.Join(work, "acme", "skills"), local: filepath.Join(work, "acme", "skills")},
		{in: "acme/skills/more", url: filepath.Join(work, "acme", "skills", "more"), local: filepath.Join(work, "acme", "skills", "more")},
		{in: gh + "/acme/skills", url: gh + "/acme/skills"},
		{in: gh + "/acme/skills/tree/main", url: gh + "/acme/skills", ref: "main"},
		{in: gh + "/acme/skills/tree/v1.4/skills/pdf", url: gh + "/acme/skills", ref: "v1.4", sub: "skills/pdf"},
		{in: gh + "/acme/skills/tree/v1.4/skills/", url: gh + "/acme/skills", ref: "v1.4", sub: "skills"},
		{in: "git@github.com:acme/skills.git", url: "git@github.com:acme/skills.git"},
		{in: gh + "/acme/skills/tree/", err: "no ref after tree/"},
		{in: gh + "/acme/skills/tree/main/../x", err: `path "../x" is not a clean relative path`},
	} {
		t.Run(c.in, func(t *testing.T) {
			url, spec, local, ref, sub, err := skillinstall.ParseArg(c.in, gh)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				assert.Contains(t, err.Error(), c.in, "the error names the source")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.url, url)
			assert.Equal(t, c.url, spec, "what the lockfile records")
			assert.Equal(t, c.local, local)
			assert.Equal(t, c.ref, ref)
			assert.Equal(t, c.sub, sub)
		})
	}
}

// owner/repo and a tree URL install through smart HTTP from the base URL
// the installer is given (GitHub's, in use).
func TestAddGitHubShorthandsThroughSmartHTTP(t *testing.T) {
	r := gittest.New(t, "acme/skills") // served at BASE/acme/skills
	first := r.Commit(twoSkills(""))
	files := twoSkills("v2\n")
	files["nested/deep/xlsx/SKILL.md"] = gittest.Text(md("xlsx", "Work with spreadsheets."))
	v2 := r.CommitOn("v2", files)
	srv := gitserver.Serve(t, filepath.Dir(filepath.Dir(r.Dir)), "", "")
	ctx := context.Background()
	newIn := func() world {
		w := newWorld(t)
		w.cfg.GitHub = srv.URL
		in, err := skillinstall.New(w.cfg)
		require.NoError(t, err)
		w.in = in
		return w
	}

	w := newIn()
	res, err := w.in.Add(ctx, "acme/skills", skillinstall.AddOptions{})
	require.NoError(t, err)
	assert.Len(t, res.Skills, 2)
	pdf := w.entry(t, "pdf")
	assert.Equal(t, srv.URL+"/acme/skills", pdf.Source, "the lockfile records the URL")
	assert.Equal(t, first, pdf.Commit)

	w = newIn()
	res, err = w.in.Add(ctx, srv.URL+"/acme/skills/tree/v2/nested", skillinstall.AddOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"docx", "xlsx"}, names(w.lock(t)), "only the skills under the tree URL's path")
	xlsx := w.entry(t, "xlsx")
	assert.Equal(t, srv.URL+"/acme/skills", xlsx.Source)
	assert.Equal(t, "v2", xlsx.Ref)
	assert.Equal(t, v2, xlsx.Commit)
	assert.Equal(t, "nested/deep/xlsx", xlsx.Path)
	res, err = w.in.Update(ctx, nil, skillinstall.UpdateOptions{})
	require.NoError(t, err, "the locked source updates as any URL does")
	assert.Equal(t, skillinstall.Unchanged, res.Skills[0].Action)

	_, err = w.in.Add(ctx, "acme/nothing", skillinstall.AddOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), srv.URL+"/acme/nothing", "the error names the URL tried")
	assert.Contains(t, err.Error(), "acme/nothing read as a GitHub repository: no local path of that name")

	_, err = w.in.Add(ctx, srv.URL+"/acme/skills/tree/v2/nested#main", skillinstall.AddOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "two refs")
	_, err = w.in.Add(ctx, srv.URL+"/acme/skills/tree/v2/nowhere", skillinstall.AddOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no folder nowhere")
}

// A name conflict costs only that skill: the others of the repository are
// installed and locked, the conflicting one keeps its folder and entry.
func TestAddConflictSkipsOnlyThatSkill(t *testing.T) {
	a := gittest.New(t, "a")
	a.Commit(map[string]gittest.File{"pdf/SKILL.md": gittest.Text(md("pdf", "From a."))})
	b := gittest.New(t, "b")
	files := map[string]gittest.File{}
	for _, n := range []string{"pdf", "docx", "xlsx", "pptx"} {
		files[n+"/SKILL.md"] = gittest.Text(md(n, "From b."))
	}
	b.Commit(files)
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.in.Add(ctx, a.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)

	res, err := w.in.Add(ctx, b.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, "pdf", res.Skipped[0].Name)
	assert.Contains(t, res.Skipped[0].Reason, a.URL(), "the reason names the installed one's source")
	require.NotEmpty(t, res.Warnings)
	assert.Contains(t, res.Warnings[len(res.Warnings)-1], `skill "pdf" not installed`)
	assert.Len(t, res.Skills, 3)
	assert.Equal(t, []string{"docx", "pdf", "pptx", "xlsx"}, names(w.lock(t)))
	assert.Equal(t, a.URL(), w.entry(t, "pdf").Source, "the conflicting skill keeps its entry")
	assert.Equal(t, b.URL(), w.entry(t, "xlsx").Source)
	rep, err := w.in.Verify(ctx)
	require.NoError(t, err)
	assert.True(t, rep.OK, "the lockfile matches the root: %+v", rep)
}

func TestNamingASkillTheLockDoesNotHoldWrapsErrNotLocked(t *testing.T) {
	w := newWorld(t)
	_, err := w.in.Remove(context.Background(), []string{"nope"})
	require.Error(t, err)
	assert.True(t, errors.Is(err, skillinstall.ErrNotLocked), "%v", err)
	assert.Contains(t, err.Error(), w.cfg.LockFile)
}
