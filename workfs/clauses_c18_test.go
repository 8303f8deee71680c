package workfs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/workfs"
)

// Protects (C18): .git is read-only to Write and Edit whatever it is: a
// worktree's or submodule's "gitdir:" file cannot be rewritten (it would
// point git at a repository the model wrote) or removed, and a .git that
// is a symlink to a folder of the work dir refuses writes through its
// name; nothing changes on disk.
func TestWorkFSGitThatIsNotAFolder(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, work string)
		paths []string // each refused to WriteFile and Remove ($WORK: the work dir)
	}{
		{"gitdir file, relative", func(t *testing.T, work string) {
			require.NoError(t, os.WriteFile(filepath.Join(work, ".git"), []byte("gitdir: meta/repo\n"), 0o644))
		}, []string{".git", "./.git", "sub/../.git"}},
		{"gitdir file, absolute", func(t *testing.T, work string) {
			require.NoError(t, os.WriteFile(filepath.Join(work, ".git"), []byte("gitdir: "+filepath.Join(work, "meta/repo")+"\n"), 0o644))
		}, []string{".git", "$WORK/.git"}},
		{"symlink to a folder inside", func(t *testing.T, work string) {
			require.NoError(t, os.Symlink("meta/repo", filepath.Join(work, ".git")))
		}, []string{".git/hooks/pre-commit", ".git/config", ".git"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := work(t)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "meta/repo/hooks"), 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "meta/repo/config"), []byte("[core]\n"), 0o644))
			tt.setup(t, dir)
			before := tree(t, dir)
			f, err := workfs.New(dir)
			require.NoError(t, err)
			defer f.Close()
			for _, p := range tt.paths {
				p = strings.Replace(p, "$WORK", dir, 1)
				err := f.WriteFile(p, []byte("gitdir: /tmp/evil\n"), 0o644)
				assert.ErrorIs(t, err, workfs.ErrProtected, "WriteFile(%s)", p)
				err = f.Remove(p)
				assert.ErrorIs(t, err, workfs.ErrProtected, "Remove(%s)", p)
			}
			assert.Equal(t, before, tree(t, dir), "a refused change changed the disk")
			assert.NoError(t, f.WriteFile("sub/ok.txt", []byte("ok"), 0o644), "the rest stays writable")
		})
	}
}

// work is a fresh work dir, its symlinks resolved.
func work(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

// tree maps each file and link under dir to its content or target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		require.NoError(t, err)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			require.NoError(t, err)
			out[p] = "-> " + l
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			out[p] = string(b)
		}
		return nil
	}))
	return out
}
