//go:build linux

package workfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/helios-agents/helios/workfs"
)

// Probe: a command left running swaps a real folder x and a symlink to .git
// (renameat2 RENAME_EXCHANGE) while Write x/config runs again and again.
// Whatever the interleaving, .git/config is never written: the write opens
// x beneath the work dir refusing symlinks, so a swap after the check makes
// it fail instead of landing in .git.
func TestWorkFSWriteRaceWithASwappedLink(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	const original = "[core]\n"
	require.NoError(t, os.MkdirAll(filepath.Join(base, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, ".git", "config"), []byte(original), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(base, "x"), 0o755))
	require.NoError(t, os.Symlink(".git", filepath.Join(base, "y")))
	f, err := workfs.New(base)
	require.NoError(t, err)
	defer f.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(base, "x"), unix.AT_FDCWD, filepath.Join(base, "y"), unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
		}
	}()
	written, refused := 0, 0
	for range 500 {
		if err := f.WriteFile("x/config", []byte("[core]\n\tfsmonitor = \"touch /tmp/pwned\"\n"), 0o644); err != nil {
			assert.True(t, errors.Is(err, workfs.ErrSymlink) || errors.Is(err, workfs.ErrProtected), "unexpected error: %v", err)
			refused++
		} else {
			written++
		}
	}
	stop.Store(true)
	wg.Wait()
	got, err := os.ReadFile(filepath.Join(base, ".git", "config"))
	require.NoError(t, err)
	assert.Equal(t, original, string(got), ".git/config was rewritten through the swapped link")
	t.Logf("%d writes landed in the real folder, %d were refused", written, refused)
	assert.NotZero(t, refused, "the swap never happened during a write: the race was not played")
}

// Probe, directly: x/config where x is a symlink to .git is refused; where
// x is a real folder it is written.
func TestWorkFSWriteThroughALinkToGit(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(base, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, ".git", "config"), []byte("[core]\n"), 0o644))
	require.NoError(t, os.Symlink(".git", filepath.Join(base, "x")))
	require.NoError(t, os.Mkdir(filepath.Join(base, "real"), 0o755))
	f, err := workfs.New(base)
	require.NoError(t, err)
	defer f.Close()

	err = f.WriteFile("x/config", []byte("pwned"), 0o644)
	require.ErrorIs(t, err, workfs.ErrProtected)
	assert.Contains(t, err.Error(), `"x/config" is in .git`)
	got, err := os.ReadFile(filepath.Join(base, ".git", "config"))
	require.NoError(t, err)
	assert.Equal(t, "[core]\n", string(got))

	require.NoError(t, f.WriteFile("real/config", []byte("ok"), 0o644))
	got, err = os.ReadFile(filepath.Join(base, "real", "config"))
	require.NoError(t, err)
	assert.Equal(t, "ok", string(got))
}
