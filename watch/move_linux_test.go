//go:build linux

package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A bundle directory moved, then armed at its new path before the move's
// events are read. inotify keeps one watch per directory, so adding one for
// the new path returns the watch descriptor the old path has; fsnotify finds
// it under the old path, records the new path nowhere, and removes the watch
// when it reads the move (or when the watcher drops the old path on the
// MOVED_FROM). Unless addInterest's identity check drops the old path's watch
// first, the new path is in the watcher's table but watched by nothing.
//
// Moved into a root that was not watched when it moved, nothing later names
// the new path: its changes are lost for good. Within a watched root, the
// MOVED_TO re-adds the watch once processed; until then the table claims a
// watch fsnotify does not have, and the old path stays in it.
func TestBundleArmedAtNewPathBeforeMoveEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		dest func(src string) string // the root the bundle is moved into
	}{
		{"into a root being armed", func(src string) string { return filepath.Join(filepath.Dir(src), "two") }},
		{"within the root", func(src string) string { return src }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(Native)
			src := filepath.Join(tempDir(t), "one")
			dst := tc.dest(src)
			mkBundle(t, src, "a")
			mkdir(t, dst)
			oldPath, newPath := filepath.Join(src, "a"), filepath.Join(dst, "b")
			w := newWatcher(t, cfg)
			rec1 := newRecorder(t, cfg)
			rec1.watch(w, src)
			require.True(t, locked(w, func() bool { return w.paths[oldPath] != nil }), "the bundle is not watched before the move")

			fd, release := holdEvents(t, w, src)
			rename(t, oldPath, newPath)
			require.Positive(t, unread(t, fd), "the move's events were read before the new path was armed")

			// Another Subscription arms the new path: a second project's
			// session watching the destination root.
			rec2 := newRecorder(t, cfg)
			rec2.watch(w, dst)
			assert.False(t, locked(w, func() bool { return w.paths[oldPath] != nil }), "the old path is still watched after the new one was armed")
			assert.True(t, locked(w, func() bool { return w.paths[newPath] != nil }), "the new path is not watched")
			assertWatchesAgree(t, w, "armed before the move's events")

			release()
			// Events are processed in order: once this later bundle is
			// reported, the move's events have been.
			mkBundle(t, src, "c")
			rec1.waitFor("a bundle made after the move", func(c Change) bool { return slices.Contains(c.Entries, "c") })
			rec1.settle()
			rec2.settle()
			assert.False(t, locked(w, func() bool { return w.paths[oldPath] != nil }), "the old path is watched after the move's events")
			assert.True(t, locked(w, func() bool { return w.paths[newPath] != nil }), "the new path is not watched after the move's events")
			assertWatchesAgree(t, w, "after the move's events")

			writeFile(t, filepath.Join(newPath, "SKILL.md"), skillText("b", "edited after the move"))
			rec2.waitEntries("b")
		})
	}
}

// holdEvents stops w's events short of the fsnotify reader, so that what
// happens next under dir's watches stays unread in the inotify queue until
// release (also called at cleanup). It holds the queue the pump fills and
// makes two events under dir: the pump blocks putting the first, fsnotify's
// reader blocks sending the second, and neither reads on.
// The inotify instance's descriptor is returned too, to look at its queue.
func holdEvents(t *testing.T, w *Watcher, dir string) (fd int, release func()) {
	t.Helper()
	fd = inotifyFD(t, dir)
	w.q.mu.Lock()
	release = sync.OnceFunc(w.q.mu.Unlock)
	t.Cleanup(release) // before the Watcher's Close, which waits for the pump
	for i := range 2 {
		mkdir(t, filepath.Join(dir, fmt.Sprintf(".plug%d", i))) // an ignored name
	}
	eventually(t, "fsnotify's reader took the plugging events", func() bool { return unread(t, fd) == 0 })
	return fd, release
}

// inotifyFD finds the inotify instance that watches dir: its watch list in
// /proc names dir's inode.
func inotifyFD(t *testing.T, dir string) int {
	t.Helper()
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	want := fmt.Sprintf(" ino:%x ", fi.Sys().(*syscall.Stat_t).Ino)
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, e := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err != nil || !strings.Contains(target, "inotify") {
			continue
		}
		info, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", e.Name()))
		if err == nil && strings.Contains(string(info), want) {
			var fd int
			_, err := fmt.Sscan(e.Name(), &fd)
			require.NoError(t, err)
			return fd
		}
	}
	require.FailNow(t, "no inotify instance watches "+dir)
	return -1
}

// unread is how many bytes of events wait in the inotify queue of fd.
func unread(t *testing.T, fd int) int {
	t.Helper()
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
	require.NoError(t, err)
	return n
}

// assertWatchesAgree checks that the paths the Watcher's table says are
// watched are the ones fsnotify watches.
func assertWatchesAgree(t *testing.T, w *Watcher, when string) {
	t.Helper()
	got := locked(w, func() [2][]string {
		var table []string
		for p := range w.paths {
			table = append(table, p)
		}
		return [2][]string{table, w.fsw.WatchList()}
	})
	assert.ElementsMatch(t, got[0], got[1], "%s: the watcher's table (first) and fsnotify's watch list (second) differ", when)
}
