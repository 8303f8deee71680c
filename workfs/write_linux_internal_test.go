//go:build linux

package workfs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The protected paths are checked on the folder the write opened, not on
// the name: with symlinks followed (RESOLVE_BENEATH alone), a name outside
// .git that leads into it is still refused, so the check holds even if the
// resolve flags let a link through.
func TestWorkFSProtectedOnWhatWasOpened(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(base, ".git", "hooks"), 0o755))
	require.NoError(t, os.Symlink(".git", filepath.Join(base, "x")))
	f, err := New(base)
	require.NoError(t, err)
	defer f.Close()

	for _, rel := range []string{"x/config", "x/hooks/pre-commit", "x/new/file"} {
		err = f.writeBeneath(rel, rel, []byte("pwned"), 0o644, unix.RESOLVE_BENEATH)
		var pe *ProtectedError
		require.ErrorAs(t, err, &pe, rel)
		assert.Equal(t, ".git", pe.Protected, rel)
	}
	assert.NoFileExists(t, filepath.Join(base, ".git", "config"))
	assert.NoFileExists(t, filepath.Join(base, ".git", "hooks", "pre-commit"))
	assert.NoDirExists(t, filepath.Join(base, ".git", "new"))
}

// A kernel without openat2 answers ENOSYS: the write fails closed with
// ErrNoOpenat2, which says what is missing, never falling back to a write
// that could follow a swapped link.
func TestWorkFSWriteWithoutOpenat2FailsClosed(t *testing.T) {
	f, err := New(t.TempDir())
	require.NoError(t, err)
	defer f.Close()
	err = f.writeErr("a/b.txt", "a/b.txt", unix.ENOSYS)
	require.ErrorIs(t, err, ErrNoOpenat2)
	assert.Contains(t, err.Error(), `write a/b.txt: the kernel lacks openat2 (Linux 5.6 or later`)
}
