package workfs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/workfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workFixture is a work dir with links in and out, beside an outside dir and
// a sibling whose name starts with the work dir's:
//
//	base/
//	  outside/secret.txt
//	  work-evil/secret.txt
//	  work/
//	    a.txt
//	    sub/nested/file.txt
//	    .helios/skills/good/SKILL.md
//	    .helios/skills/evil -> base/outside         (absolute, out)
//	    link-in -> sub                              (relative, in)
//	    link-in-abs -> base/work/sub                (absolute, in)
//	    link-file -> a.txt                          (in)
//	    dangling-in -> sub/new.txt                  (missing target, in)
//	    rel-out -> ../outside                       (relative, out)
//	    out-file -> ../outside/secret.txt           (last element, out)
//	    dangling-out -> ../outside/new.txt          (missing target, out)
//	    chain1 -> chain2 -> ../outside              (out at the second link)
//	    back-in -> ../work/a.txt                    (out and back in)
//	    deep/er/link-up -> ../../../outside         (out, deeper)
//	    loop1 -> loop2 -> loop1
type workFixture struct {
	fs   *workfs.FS
	base string // symlink-resolved
	work string
}

func newWorkFixture(t *testing.T) workFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	work := filepath.Join(base, "work")
	files := map[string]string{
		"outside/secret.txt":                "outside secret",
		"work-evil/secret.txt":              "evil secret",
		"work/a.txt":                        "a",
		"work/sub/nested/file.txt":          "nested",
		"work/.helios/skills/good/SKILL.md": "---\nname: good\n---\n",
		"work/deep/er/keep.txt":             "keep",
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	links := [][2]string{
		{"work/.helios/skills/evil", filepath.Join(base, "outside")},
		{"work/link-in", "sub"},
		{"work/link-in-abs", filepath.Join(work, "sub")},
		{"work/link-file", "a.txt"},
		{"work/dangling-in", "sub/new.txt"},
		{"work/rel-out", "../outside"},
		{"work/out-file", "../outside/secret.txt"},
		{"work/dangling-out", "../outside/new.txt"},
		{"work/chain1", "chain2"},
		{"work/chain2", "../outside"},
		{"work/back-in", "../work/a.txt"},
		{"work/deep/er/link-up", "../../../outside"},
		{"work/loop1", "loop2"},
		{"work/loop2", "loop1"},
	}
	for _, l := range links {
		require.NoError(t, os.Symlink(l[1], filepath.Join(base, l[0])))
	}
	f, err := workfs.New(work)
	require.NoError(t, err, "New(%q)", work)
	t.Cleanup(func() { f.Close() })
	return workFixture{fs: f, base: base, work: work}
}

// snapshot records every entry under dir (name -> content, "dir" or the
// link's target) without following links, so a
// test can prove a refused call changed nothing outside.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out[p] = "dir"
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			dest, err := os.Readlink(p)
			out[p] = "-> " + dest
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = string(b)
		return nil
	})
	require.NoError(t, err)
	return out
}

type workfsOp struct {
	name string
	do   func(f *workfs.FS, path string) error
}

var (
	workfsFollowOps = []workfsOp{
		{"Resolve", func(f *workfs.FS, p string) error { _, err := f.Resolve(p); return err }},
		{"Stat", func(f *workfs.FS, p string) error { _, err := f.Stat(p); return err }},
		{"ReadFile", func(f *workfs.FS, p string) error { _, err := f.ReadFile(p); return err }},
		{"ReadDir", func(f *workfs.FS, p string) error { _, err := f.ReadDir(p); return err }},
		{"WriteFile", func(f *workfs.FS, p string) error { return f.WriteFile(p, []byte("pwned"), 0o644) }},
		{"MkdirAll", func(f *workfs.FS, p string) error { return f.MkdirAll(p, 0o755) }},
	}
	workfsNoFollowOps = []workfsOp{
		{"Lstat", func(f *workfs.FS, p string) error { _, err := f.Lstat(p); return err }},
		{"Remove", func(f *workfs.FS, p string) error { return f.Remove(p) }},
	}
	workfsAllOps = append(append([]workfsOp{}, workfsFollowOps...), workfsNoFollowOps...)
)

func TestWorkFSRefuses(t *testing.T) {
	tests := []struct {
		name   string
		path   func(fx workFixture) string
		ops    []workfsOp
		reason func(fx workFixture) string // substring of EscapeError.Reason
	}{
		{
			name:   "dot-dot",
			path:   func(workFixture) string { return "../outside/secret.txt" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "contains .." },
		},
		{
			name:   "dot-dot alone",
			path:   func(workFixture) string { return ".." },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "contains .." },
		},
		{
			name:   "dot-dot after a descent",
			path:   func(workFixture) string { return "sub/nested/../../../outside/secret.txt" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "contains .." },
		},
		{
			name:   "absolute path elsewhere",
			path:   func(fx workFixture) string { return filepath.Join(fx.base, "outside", "secret.txt") },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "absolute path outside" },
		},
		{
			name:   "absolute system path",
			path:   func(workFixture) string { return "/etc/passwd" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "absolute path outside" },
		},
		{
			// A string-prefix check ("starts with /base/work") lets this through.
			name:   "sibling whose name starts with the work dir's",
			path:   func(fx workFixture) string { return fx.work + "-evil/secret.txt" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "absolute path outside" },
		},
		{
			name:   "sibling directory itself",
			path:   func(fx workFixture) string { return fx.work + "-evil" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "absolute path outside" },
		},
		{
			name:   "absolute path climbing out of the work dir",
			path:   func(fx workFixture) string { return fx.work + "/../work-evil/secret.txt" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "absolute path outside" },
		},
		{
			name:   "NUL byte",
			path:   func(workFixture) string { return "a.txt\x00.png" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "NUL byte" },
		},
		{
			name: "absolute symlinked ancestor pointing out",
			path: func(workFixture) string { return ".helios/skills/evil/secret.txt" },
			ops:  workfsAllOps,
			reason: func(fx workFixture) string {
				return "symlink .helios/skills/evil points to " + filepath.Join(fx.base, "outside")
			},
		},
		{
			name:   "symlinked ancestor of a file that does not exist yet",
			path:   func(workFixture) string { return ".helios/skills/evil/new/SKILL.md" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "symlink .helios/skills/evil points to" },
		},
		{
			name:   "symlinked directory pointing out, itself",
			path:   func(workFixture) string { return ".helios/skills/evil" },
			ops:    workfsFollowOps,
			reason: func(workFixture) string { return "symlink .helios/skills/evil points to" },
		},
		{
			name:   "relative symlinked ancestor pointing out",
			path:   func(workFixture) string { return "rel-out/secret.txt" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "symlink rel-out points to ../outside" },
		},
		{
			name:   "symlink as the last element pointing to a file outside",
			path:   func(workFixture) string { return "out-file" },
			ops:    workfsFollowOps,
			reason: func(workFixture) string { return "symlink out-file points to ../outside/secret.txt" },
		},
		{
			name:   "dangling symlink as the last element of a write target",
			path:   func(workFixture) string { return "dangling-out" },
			ops:    workfsFollowOps,
			reason: func(workFixture) string { return "symlink dangling-out points to ../outside/new.txt" },
		},
		{
			name:   "second link of a chain points out",
			path:   func(workFixture) string { return "chain1/secret.txt" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "symlink chain2 points to ../outside" },
		},
		{
			name:   "link that goes out and comes back",
			path:   func(workFixture) string { return "back-in" },
			ops:    workfsFollowOps,
			reason: func(workFixture) string { return "symlink back-in points to ../work/a.txt" },
		},
		{
			name:   "symlink deep in the tree",
			path:   func(workFixture) string { return "deep/er/link-up/secret.txt" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "symlink deep/er/link-up points to ../../../outside" },
		},
		{
			name:   "inside link then outside link",
			path:   func(workFixture) string { return "link-in/../rel-out/secret.txt" },
			ops:    workfsAllOps,
			reason: func(workFixture) string { return "symlink rel-out points to" },
		},
	}
	for _, tt := range tests {
		for _, op := range tt.ops {
			t.Run(tt.name+"/"+op.name, func(t *testing.T) {
				fx := newWorkFixture(t)
				path := tt.path(fx)
				before := snapshot(t, fx.base)

				err := op.do(fx.fs, path)

				require.ErrorIs(t, err, workfs.ErrOutsideWorkDir, "%s(%q)", op.name, path)
				var esc *workfs.EscapeError
				require.ErrorAs(t, err, &esc, "%s(%q) error %T is not a *workfs.EscapeError", op.name, path, err)
				assert.Equal(t, path, esc.Path, "EscapeError.Path = %q, want the path as given %q", esc.Path, path)
				want := tt.reason(fx)
				assert.Contains(t, esc.Reason, want, "EscapeError.Reason = %q, want it to contain %q", esc.Reason, want)
				assert.NotErrorIs(t, err, fs.ErrNotExist, "a refusal must not look like a missing file")
				assert.Empty(t, cmp.Diff(before, snapshot(t, fx.base)), "refused %s changed the disk (-before +after)", op.name)
			})
		}
	}
}

func TestWorkFSEscapeErrorMessage(t *testing.T) {
	fx := newWorkFixture(t)
	_, err := fx.fs.ReadFile("../x")
	want := `path "../x" is outside the work dir ` + fx.work + `: contains .. that climbs above it`
	assert.EqualError(t, err, want)
	assert.Same(t, workfs.ErrOutsideWorkDir, (&workfs.EscapeError{Path: "p", Reason: "r"}).Unwrap(), "Unwrap()")
}

func TestWorkFSAccepts(t *testing.T) {
	tests := []struct {
		name        string
		path        func(fx workFixture) string
		wantResolve string // relative to the work dir
		wantContent string // ReadFile result; "" for a directory
	}{
		{"work dir itself, relative", func(workFixture) string { return "." }, ".", ""},
		{"work dir itself, absolute", func(fx workFixture) string { return fx.work }, ".", ""},
		{"work dir with a trailing slash", func(fx workFixture) string { return fx.work + "/" }, ".", ""},
		{"nested file", func(workFixture) string { return "sub/nested/file.txt" }, "sub/nested/file.txt", "nested"},
		{"absolute path inside", func(fx workFixture) string { return filepath.Join(fx.work, "sub/nested/file.txt") }, "sub/nested/file.txt", "nested"},
		{"dot-dot that stays inside", func(workFixture) string { return "sub/nested/../../a.txt" }, "a.txt", "a"},
		{"relative symlinked directory inside", func(workFixture) string { return "link-in/nested/file.txt" }, "link-in/nested/file.txt", "nested"},
		{"absolute symlinked directory inside", func(workFixture) string { return "link-in-abs/nested/file.txt" }, "link-in-abs/nested/file.txt", "nested"},
		{"symlinked file inside", func(workFixture) string { return "link-file" }, "link-file", "a"},
		{"dotfiles", func(workFixture) string { return ".helios/skills/good/SKILL.md" }, ".helios/skills/good/SKILL.md", "---\nname: good\n---\n"},
		{"name starting with two dots", func(workFixture) string { return "..a.txt" }, "..a.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newWorkFixture(t)
			require.NoError(t, os.WriteFile(filepath.Join(fx.work, "..a.txt"), nil, 0o644))
			path := tt.path(fx)
			got, err := fx.fs.Resolve(path)
			require.NoError(t, err, "Resolve(%q)", path)
			assert.Equal(t, filepath.Join(fx.work, tt.wantResolve), got, "Resolve(%q)", path)
			fi, err := fx.fs.Stat(path)
			require.NoError(t, err, "Stat(%q)", path)
			if fi.IsDir() {
				_, err := fx.fs.ReadDir(path)
				assert.NoError(t, err, "ReadDir(%q)", path)
				return
			}
			b, err := fx.fs.ReadFile(path)
			require.NoError(t, err, "ReadFile(%q)", path)
			assert.Equal(t, tt.wantContent, string(b), "ReadFile(%q) = %q", path, b)
		})
	}
}

func TestWorkFSNew(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(base, "file"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(base, "real"), 0o755))
	require.NoError(t, os.Symlink("real", filepath.Join(base, "link")))

	t.Run("dir is absolute and symlink-resolved", func(t *testing.T) {
		t.Chdir(base)
		f, err := workfs.New("link")
		require.NoError(t, err, "New")
		defer f.Close()
		assert.Equal(t, filepath.Join(base, "real"), f.Dir(), "Dir()")
		// The absolute name New was given still leads inside.
		for _, p := range []string{filepath.Join(base, "link", "x"), filepath.Join(base, "real", "x")} {
			got, err := f.Resolve(p)
			assert.NoError(t, err, "Resolve(%q)", p)
			assert.Equal(t, filepath.Join(base, "real", "x"), got, "Resolve(%q)", p)
		}
	})
	t.Run("missing dir", func(t *testing.T) {
		_, err := workfs.New(filepath.Join(base, "missing"))
		assert.ErrorIs(t, err, fs.ErrNotExist, "New(missing)")
	})
	t.Run("file", func(t *testing.T) {
		_, err := workfs.New(filepath.Join(base, "file"))
		assert.Error(t, err, "New(file) succeeded, want an error")
	})
}

func TestWorkFSOrdinaryErrors(t *testing.T) {
	tests := []struct {
		name     string
		call     func(f *workfs.FS) error
		wantOp   string
		wantPath string
		wantErr  error
	}{
		{"read missing file", func(f *workfs.FS) error { _, err := f.ReadFile("nope.txt"); return err }, "read", "nope.txt", fs.ErrNotExist},
		{"stat missing under an inside link", func(f *workfs.FS) error { _, err := f.Stat("link-in/nope"); return err }, "stat", "link-in/nope", fs.ErrNotExist},
		{"lstat missing", func(f *workfs.FS) error { _, err := f.Lstat("nope"); return err }, "lstat", "nope", fs.ErrNotExist},
		{"readdir missing", func(f *workfs.FS) error { _, err := f.ReadDir("nope"); return err }, "readdir", "nope", fs.ErrNotExist},
		{"remove missing", func(f *workfs.FS) error { return f.Remove("nope") }, "remove", "nope", fs.ErrNotExist},
		{"read through a dangling inside link", func(f *workfs.FS) error { _, err := f.ReadFile("dangling-in"); return err }, "read", "dangling-in", fs.ErrNotExist},
		{"read missing by absolute path", func(f *workfs.FS) error {
			_, err := f.ReadFile(filepath.Join(f.Dir(), "nope"))
			return err
		}, "read", "", fs.ErrNotExist},
		{"empty path", func(f *workfs.FS) error { _, err := f.ReadFile(""); return err }, "read", "", fs.ErrInvalid},
		{"empty path to Resolve", func(f *workfs.FS) error { _, err := f.Resolve(""); return err }, "resolve", "", fs.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newWorkFixture(t)
			err := tt.call(fx.fs)
			require.ErrorIs(t, err, tt.wantErr)
			assert.NotErrorIs(t, err, workfs.ErrOutsideWorkDir, "error %v is a refusal, want an ordinary error", err)
			var pe *fs.PathError
			require.ErrorAs(t, err, &pe, "error () is not a *fs.PathError")
			wantPath := tt.wantPath
			if tt.name == "read missing by absolute path" {
				wantPath = filepath.Join(fx.work, "nope")
			}
			assert.Equal(t, tt.wantOp, pe.Op, "PathError{Op, Path}")
			assert.Equal(t, wantPath, pe.Path, "PathError{Op, Path}")
		})
	}

	t.Run("not a directory on the way", func(t *testing.T) {
		fx := newWorkFixture(t)
		_, err := fx.fs.ReadFile("a.txt/x")
		if assert.Error(t, err, "ReadFile(a.txt/x) error, want an ordinary error") {
			assert.NotErrorIs(t, err, workfs.ErrOutsideWorkDir, "ReadFile(a.txt/x) error, want an ordinary error")
		}
	})
	t.Run("symlink loop", func(t *testing.T) {
		fx := newWorkFixture(t)
		_, err := fx.fs.ReadFile("loop1")
		if assert.Error(t, err, "ReadFile(loop1) error, want an ordinary error") {
			assert.NotErrorIs(t, err, workfs.ErrOutsideWorkDir, "ReadFile(loop1) error, want an ordinary error")
		}
	})
	t.Run("closed", func(t *testing.T) {
		fx := newWorkFixture(t)
		require.NoError(t, fx.fs.Close(), "Close")
		_, err := fx.fs.ReadFile("a.txt")
		assert.Error(t, err, "ReadFile after Close succeeded")
	})
}

func TestWorkFSWrite(t *testing.T) {
	t.Run("creates missing parents", func(t *testing.T) {
		fx := newWorkFixture(t)
		require.NoError(t, fx.fs.WriteFile("new/deeper/x.txt", []byte("hi"), 0o644), "WriteFile")
		b, err := os.ReadFile(filepath.Join(fx.work, "new/deeper/x.txt"))
		assert.NoError(t, err, "file on disk = %q", b)
		assert.Equal(t, "hi", string(b), "file on disk = %q", b)
	})
	t.Run("never through a link, even one inside", func(t *testing.T) {
		fx := newWorkFixture(t)
		before := snapshot(t, fx.base)
		for path, link := range map[string]string{"link-in/made/y.txt": "link-in", "dangling-in": "dangling-in", "link-file": "link-file", "link-in-abs/x": "link-in-abs"} {
			err := fx.fs.WriteFile(path, []byte("y"), 0o644)
			require.ErrorIs(t, err, workfs.ErrSymlink, path)
			var se *workfs.SymlinkError
			require.ErrorAs(t, err, &se, path)
			assert.Equal(t, link, se.Link, path)
			assert.Contains(t, err.Error(), "goes through the symlink "+link, path)
			assert.NotErrorIs(t, err, workfs.ErrOutsideWorkDir, path)
		}
		assert.Empty(t, cmp.Diff(before, snapshot(t, fx.base)), "a refused write changed the disk")
	})
	t.Run("overwrites through an absolute path", func(t *testing.T) {
		fx := newWorkFixture(t)
		p := filepath.Join(fx.work, "a.txt")
		require.NoError(t, fx.fs.WriteFile(p, []byte("new"), 0o644), "WriteFile")
		b, err := fx.fs.ReadFile("a.txt")
		assert.NoError(t, err, "a.txt = %q", b)
		assert.Equal(t, "new", string(b), "a.txt = %q", b)
	})
	t.Run("MkdirAll", func(t *testing.T) {
		fx := newWorkFixture(t)
		require.NoError(t, fx.fs.MkdirAll("made/a/b", 0o755), "MkdirAll")
		fi, err := fx.fs.Stat("made/a/b")
		assert.NoError(t, err, "Stat(made/a/b) = %v; want a directory", fi)
		assert.True(t, fi.IsDir(), "Stat(made/a/b) = %v; want a directory", fi)
		assert.NoError(t, fx.fs.MkdirAll("made/a/b", 0o755), "MkdirAll on an existing dir")
	})
}

func TestWorkFSLinksThemselves(t *testing.T) {
	t.Run("Lstat describes a link that points out", func(t *testing.T) {
		fx := newWorkFixture(t)
		fi, err := fx.fs.Lstat("out-file")
		require.NoError(t, err, "Lstat")
		assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "Lstat(out-file) mode = %v, want a symlink", fi.Mode())
	})
	t.Run("Remove deletes the link, not its target", func(t *testing.T) {
		fx := newWorkFixture(t)
		require.NoError(t, fx.fs.Remove("out-file"), "Remove")
		_, err := os.Lstat(filepath.Join(fx.work, "out-file"))
		assert.ErrorIs(t, err, fs.ErrNotExist, "link still there")
		b, err := os.ReadFile(filepath.Join(fx.base, "outside/secret.txt"))
		assert.NoError(t, err, "outside target")
		assert.Equal(t, "outside secret", string(b), "outside target: want it untouched")
	})
	t.Run("ReadDir lists in byte order without following", func(t *testing.T) {
		fx := newWorkFixture(t)
		for _, name := range []string{"B.txt", "_x", "b.txt", "Ä.txt"} {
			require.NoError(t, os.WriteFile(filepath.Join(fx.work, name), nil, 0o644))
		}
		entries, err := fx.fs.ReadDir(".")
		require.NoError(t, err, "ReadDir")
		var got []string
		for _, e := range entries {
			name := e.Name()
			if e.Type()&fs.ModeSymlink != 0 {
				name += "@"
			}
			got = append(got, name)
		}
		want := []string{".helios", "B.txt", "_x", "a.txt", "b.txt", "back-in@", "chain1@", "chain2@",
			"dangling-in@", "dangling-out@", "deep", "link-file@", "link-in@", "link-in-abs@",
			"loop1@", "loop2@", "out-file@", "rel-out@", "sub", "Ä.txt"}
		assert.Empty(t, cmp.Diff(want, got), "ReadDir(.) (-want +got)")
	})
}

// globFixture:
//
//	base/outside/x.go
//	base/work/{.hidden.go, a.go, b.txt, sub/c.go, sub/deep/{d.go, e.txt}}
//	base/work/linkdir -> sub, base/work/out -> ../outside
func newGlobFixture(t *testing.T) workFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	work := filepath.Join(base, "work")
	for _, name := range []string{"outside/x.go", "work-evil/y.go", "work/.hidden.go", "work/a.go", "work/b.txt",
		"work/sub/c.go", "work/sub/deep/d.go", "work/sub/deep/e.txt"} {
		p := filepath.Join(base, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	require.NoError(t, os.Symlink("sub", filepath.Join(work, "linkdir")))
	require.NoError(t, os.Symlink("../outside", filepath.Join(work, "out")))
	f, err := workfs.New(work)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return workFixture{fs: f, base: base, work: work}
}

func TestWorkFSGlob(t *testing.T) {
	tests := []struct {
		pattern func(fx workFixture) string
		name    string
		want    []string // relative to the work dir
	}{
		{name: "star", pattern: lit("*.go"), want: []string{".hidden.go", "a.go"}},
		{name: "double star at any depth", pattern: lit("**/*.go"), want: []string{".hidden.go", "a.go", "sub/c.go", "sub/deep/d.go"}},
		{name: "trailing double star", pattern: lit("sub/**"), want: []string{"sub/c.go", "sub/deep", "sub/deep/d.go", "sub/deep/e.txt"}},
		{name: "double star in the middle matches zero dirs", pattern: lit("sub/**/c.go"), want: []string{"sub/c.go"}},
		{name: "double star in the middle matches dirs", pattern: lit("**/deep/*.txt"), want: []string{"sub/deep/e.txt"}},
		{name: "question mark", pattern: lit("sub/?.go"), want: []string{"sub/c.go"}},
		{name: "class", pattern: lit("sub/deep/[d-e].*"), want: []string{"sub/deep/d.go", "sub/deep/e.txt"}},
		{name: "every entry, minus the link that points out", pattern: lit("*"), want: []string{".hidden.go", "a.go", "b.txt", "linkdir", "sub"}},
		{name: "literal segment through an inside link", pattern: lit("linkdir/*.go"), want: []string{"linkdir/c.go"}},
		{name: "through a link that points out", pattern: lit("out/*"), want: nil},
		{name: "absolute inside", pattern: func(fx workFixture) string { return fx.work + "/sub/*.go" }, want: []string{"sub/c.go"}},
		{name: "literal file", pattern: lit("b.txt"), want: []string{"b.txt"}},
		{name: "no match", pattern: lit("*.rs"), want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newGlobFixture(t)
			pattern := tt.pattern(fx)
			got, err := fx.fs.Glob(pattern)
			require.NoError(t, err, "Glob(%q)", pattern)
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(fx.work, w))
			}
			assert.Empty(t, cmp.Diff(want, got), "Glob(%q) (-want +got)", pattern)
		})
	}
}

func TestWorkFSGlobRefuses(t *testing.T) {
	tests := []struct {
		name    string
		pattern func(fx workFixture) string
		reason  string
	}{
		{"dot-dot double star", lit("../**"), "glob pattern reaches outside"},
		{"dot-dot into a sibling", lit("../outside/*.go"), "glob pattern reaches outside"},
		{"climbing after a descent", lit("sub/../../*"), "glob pattern reaches outside"},
		{"absolute elsewhere", lit("/etc/*"), "glob pattern reaches outside"},
		{"sibling sharing the prefix", func(fx workFixture) string { return fx.work + "-evil/*.go" }, "glob pattern reaches outside"},
		{"wildcard over the work dir's name", func(fx workFixture) string { return fx.base + "/wor*/*.go" }, "glob pattern reaches outside"},
		{"NUL byte", lit("*.go\x00"), "NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newGlobFixture(t)
			pattern := tt.pattern(fx)
			got, err := fx.fs.Glob(pattern)
			var esc *workfs.EscapeError
			require.ErrorAs(t, err, &esc, "Glob(%q) = %q; want an *EscapeError", pattern, got)
			require.ErrorIs(t, err, workfs.ErrOutsideWorkDir, "Glob(%q) = %q; want an *EscapeError", pattern, got)
			assert.Equal(t, pattern, esc.Path, "EscapeError{Path, Reason}")
			assert.Equal(t, tt.reason, esc.Reason, "EscapeError{Path, Reason}")
		})
	}

	t.Run("malformed pattern", func(t *testing.T) {
		fx := newGlobFixture(t)
		_, err := fx.fs.Glob("sub/[")
		assert.ErrorIs(t, err, filepath.ErrBadPattern, "Glob(sub/[)")
	})
}

func lit(s string) func(workFixture) string { return func(workFixture) string { return s } }

// Protects: the guard's protected paths (issue 21): Write and Edit (and
// every change through the port) are refused on helios.config.json, .git
// and .helios and .agents but their skills folders, at the top of the work
// dir, however the path names them (absolute, with "..", through a
// symlink, a symlink named like one of them); the refusal is an
// *ProtectedError naming the protected path and nothing changes on disk.
// Reading them works; a skills folder, a nested .git and a similar name are
// writable, and the parents of a new project skill are created.
func TestWorkFSProtected(t *testing.T) {
	fx := newWorkFixture(t)
	for name, content := range map[string]string{"helios.config.json": "{}", "helios-lock.json": "{}", ".git/config": "[core]", ".agents/other/x": "x"} {
		require.NoError(t, os.MkdirAll(filepath.Join(fx.work, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(fx.work, name), []byte(content), 0o644))
	}
	require.NoError(t, os.Symlink(".git", filepath.Join(fx.work, "to-git")))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(fx.work, ".helios", "alias")))
	before := snapshot(t, fx.base)

	refused := []struct {
		op, path, protected string
	}{
		{"WriteFile", "helios.config.json", "helios.config.json"},
		{"WriteFile", filepath.Join(fx.work, "helios.config.json"), "helios.config.json"},
		{"WriteFile", ".git/hooks/pre-commit", ".git"},
		{"WriteFile", "sub/../.git/config", ".git"},
		{"WriteFile", "to-git/config", ".git"},
		{"WriteFile", ".git", ".git"},
		{"WriteFile", ".helios/settings.json", ".helios"},
		{"WriteFile", ".helios/alias", ".helios"},
		{"WriteFile", ".agents/other/x", ".agents"},
		{"WriteFile", ".agents", ".agents"},
		{"MkdirAll", ".helios", ".helios"},
		{"MkdirAll", ".git/hooks", ".git"},
		{"Remove", "helios.config.json", "helios.config.json"},
		{"WriteFile", "helios-lock.json", "helios-lock.json"},
		{"Remove", "helios-lock.json", "helios-lock.json"},
		{"Remove", ".git/config", ".git"},
		{"Remove", ".helios/alias", ".helios"},
	}
	for _, tt := range refused {
		var err error
		switch tt.op {
		case "WriteFile":
			err = fx.fs.WriteFile(tt.path, []byte("pwned"), 0o644)
		case "MkdirAll":
			err = fx.fs.MkdirAll(tt.path, 0o755)
		case "Remove":
			err = fx.fs.Remove(tt.path)
		}
		require.ErrorIs(t, err, workfs.ErrProtected, "%s(%s)", tt.op, tt.path)
		var pe *workfs.ProtectedError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, tt.protected, pe.Protected, "%s(%s)", tt.op, tt.path)
		assert.Equal(t, tt.path, pe.Path)
		assert.NotErrorIs(t, err, workfs.ErrOutsideWorkDir)
	}
	assert.Empty(t, cmp.Diff(before, snapshot(t, fx.base)), "a refused change changed the disk")

	data, err := fx.fs.ReadFile("helios.config.json")
	assert.NoError(t, err)
	assert.Equal(t, "{}", string(data))
	for _, p := range []string{".helios/skills/new/SKILL.md", ".agents/skills/a/SKILL.md", "sub/.git/config", "sub/helios-lock.json", "helios.config.json.bak", ".gitignore"} {
		assert.NoError(t, fx.fs.WriteFile(p, []byte("ok"), 0o644), p)
		assert.FileExists(t, filepath.Join(fx.work, p))
	}
	assert.NoError(t, fx.fs.MkdirAll(".helios/skills/more", 0o755))
}

// Protects: the rule itself, on clean relative paths.
func TestWorkFSProtectedRule(t *testing.T) {
	for rel, want := range map[string]string{
		"helios.config.json": "helios.config.json", ".git": ".git", ".git/objects/ab": ".git",
		".helios": ".helios", ".helios/x": ".helios", ".agents/skills-not/x": ".agents",
		".helios/skills": "", ".helios/skills/x/SKILL.md": "", ".agents/skills/y": "",
		"a/.git": "", "x/helios.config.json": "", ".": "", "src/main.go": "", ".github/workflows/ci.yml": "",
	} {
		got, ok := workfs.Protected(rel)
		assert.Equal(t, want, got, rel)
		assert.Equal(t, want != "", ok, rel)
	}
}
