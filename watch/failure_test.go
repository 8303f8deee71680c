package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantIncompleteThenRecovery checks the recovery protocol: an
// Incomplete+Rescan, then a complete Rescan.
func wantIncompleteThenRecovery(t *testing.T, rec *recorder, what string) {
	t.Helper()
	assert.Empty(t, cmp.Diff(Change{Rescan: true, Incomplete: true}, rec.next(what+": incomplete").Change), "%s: first callback (-want +got)", what)
	assert.Empty(t, cmp.Diff(Change{Rescan: true}, rec.next(what+": recovery").Change), "%s: second callback (-want +got)", what)
}

func TestWatcherErrorRecovers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		inject func(w *Watcher)
	}{
		{"overflow", func(w *Watcher) { w.handleError(fsnotify.ErrEventOverflow) }},
		{"read error", func(w *Watcher) { w.handleError(errors.New("inotify read: input/output error")) }},
		{"overflow through the pump", func(w *Watcher) { w.q.put(item{err: fmt.Errorf("wrapped: %w", fsnotify.ErrEventOverflow)}) }},
		{"queue overflow", func(w *Watcher) {
			w.q.mu.Lock()
			w.q.overflow = true
			w.q.mu.Unlock()
			select {
			case w.q.signal <- struct{}{}:
			default:
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(Native)
			rootA, rootB := tempDir(t), tempDir(t)
			mkBundle(t, rootA, "a")
			w := newWatcher(t, cfg)
			recA, recB := newRecorder(t, cfg), newRecorder(t, cfg)
			sA := recA.watch(w, rootA)
			sB := recB.watch(w, filepath.Join(rootB, "missing"))

			tc.inject(w)
			wantIncompleteThenRecovery(t, recA, "subscription A")
			wantIncompleteThenRecovery(t, recB, "subscription B")
			assert.True(t, sA.Healthy(), "not healthy after recovery")
			assert.True(t, sB.Healthy(), "not healthy after recovery")
			recA.settle()
			recB.settle()

			// Re-armed: changes are seen again, present and missing roots alike.
			writeFile(t, filepath.Join(rootA, "a", "SKILL.md"), skillText("a", "after"))
			recA.waitEntries("a")
			mkdir(t, filepath.Join(rootB, "missing"))
			recB.waitRescan("the missing root appeared after recovery")
		})
	}
}

// failAdd makes the Watcher's fsnotify Add fail with ENOSPC (the inotify
// watch limit) for paths for which fail says so.
func failAdd(w *Watcher, fail func(path string) bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	real := w.add
	w.add = func(path string) error {
		if fail(path) {
			return fmt.Errorf("inotify_add_watch %s: %w", path, syscall.ENOSPC)
		}
		return real(path)
	}
}

func TestFailedWatchIsIncompleteThenRecovers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		path func(root string) string // the path whose watch fails
	}{
		{"root", func(root string) string { return root }},
		{"bundle", func(root string) string { return filepath.Join(root, "a") }},
		{"ancestor of a missing root", func(root string) string { return filepath.Dir(root) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(Native)
			base := tempDir(t)
			root := filepath.Join(base, "skills")
			if tc.name != "ancestor of a missing root" {
				mkBundle(t, root, "a")
			}
			w := newWatcher(t, cfg)
			var failing atomic.Bool
			failing.Store(true)
			failAdd(w, func(p string) bool { return failing.Load() && p == tc.path(root) })
			rec := newRecorder(t, cfg)
			s := rec.watch(w, root)

			assert.False(t, s.Healthy(), "Healthy() = true with a watch that could not be added")
			assert.Empty(t, cmp.Diff(Change{Rescan: true, Incomplete: true}, rec.next("the failure").Change), "first callback (-want +got)")
			rec.assertQuiet("while still failing")
			assert.False(t, s.Healthy(), "Healthy() = true while the watch still fails")

			failing.Store(false) // the periodic check retries
			assert.Empty(t, cmp.Diff(Change{Rescan: true}, rec.next("the recovery").Change), "recovery callback (-want +got)")
			assert.True(t, s.Healthy(), "Healthy() = false after recovery")
			rec.settle()
			if tc.name == "ancestor of a missing root" {
				mkdir(t, root)
				rec.waitRescan("the root appeared")
				rec.settle()
				mkBundle(t, root, "a")
				rec.waitEntries("a")
				return
			}
			writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "after"))
			rec.waitEntries("a")
		})
	}
}

func TestFailedWatchDuringOverflowRecovery(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	root := tempDir(t)
	w := newWatcher(t, cfg)
	rec := newRecorder(t, cfg)
	s := rec.watch(w, root)

	var failing atomic.Bool
	failing.Store(true)
	failAdd(w, func(p string) bool { return failing.Load() && p == root })
	w.handleError(fsnotify.ErrEventOverflow)
	assert.False(t, s.Healthy(), "Healthy() = true while the re-arm after an overflow fails")
	assert.Empty(t, cmp.Diff(Change{Rescan: true, Incomplete: true}, rec.next("the overflow").Change))
	failing.Store(false)
	assert.Empty(t, cmp.Diff(Change{Rescan: true}, rec.next("the recovery").Change))
}

// A root whose path cannot be resolved (a symlink loop: ELOOP, neither
// missing nor present) is a failure of either mode, without any injection.
func TestUnresolvableRootIsIncompleteThenRecovers(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		base := tempDir(t)
		root := filepath.Join(base, "skills")
		symlink(t, root, root) // ELOOP
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		s := rec.watch(w, root)
		assert.False(t, s.Healthy(), "Healthy() = true for a root that cannot be resolved")
		assert.Empty(t, cmp.Diff(Change{Rescan: true, Incomplete: true}, rec.next("the failure").Change))

		remove(t, root)
		mkBundle(t, root, "a")
		assert.Empty(t, cmp.Diff(Change{Rescan: true}, rec.next("the recovery").Change))
		assert.True(t, s.Healthy(), "Healthy() = false after recovery")
		rec.settle()
		writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "after"))
		rec.waitEntries("a")
	})
}

func TestCapacityEvictsLeastRecentlyObserved(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		cfg.Capacity = 2
		rootA, rootB, rootC := tempDir(t), tempDir(t), tempDir(t)
		w := newWatcher(t, cfg)
		recA, recB, recC := newRecorder(t, cfg), newRecorder(t, cfg), newRecorder(t, cfg)
		sA := recA.watch(w, rootA)
		sB := recB.watch(w, rootB)
		sA.Touch() // B is now the least recently observed
		sC := recC.watch(w, rootC)

		assert.Empty(t, cmp.Diff(Change{Rescan: true, Incomplete: true}, recB.next("B evicted").Change), "evicted B (-want +got)")
		assert.False(t, sB.Healthy(), "Healthy: A=%v B=%v C=%v, want true false true", sA.Healthy(), sB.Healthy(), sC.Healthy())
		assert.True(t, sA.Healthy(), "Healthy: A=%v B=%v C=%v, want true false true", sA.Healthy(), sB.Healthy(), sC.Healthy())
		assert.True(t, sC.Healthy(), "Healthy: A=%v B=%v C=%v, want true false true", sA.Healthy(), sB.Healthy(), sC.Healthy())
		if cfg.Mode == Native {
			assert.False(t, locked(w, func() bool { return w.paths[rootB] != nil }), "the evicted subscription's root is still watched")
		}
		mkBundle(t, rootB, "b")
		recB.assertQuiet("an evicted subscription")
		recA.assertQuiet("A untouched by the eviction")

		sB.Touch() // re-arms B, evicting A (C was watched after A's touch)
		assert.Empty(t, cmp.Diff(Change{Rescan: true}, recB.next("B re-armed").Change), "re-armed B (-want +got)")
		assert.Empty(t, cmp.Diff(Change{Rescan: true, Incomplete: true}, recA.next("A evicted").Change), "evicted A (-want +got)")
		assert.True(t, sB.Healthy(), "Healthy: A=%v B=%v, want false true", sA.Healthy(), sB.Healthy())
		assert.False(t, sA.Healthy(), "Healthy: A=%v B=%v, want false true", sA.Healthy(), sB.Healthy())
		recB.settle()
		writeFile(t, filepath.Join(rootB, "b", "SKILL.md"), skillText("b", "after"))
		recB.waitEntries("b")
		mkBundle(t, rootC, "c")
		recC.waitEntries("c")
	})
}

func TestSubscriptionCloseStopsCallbacks(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		root := tempDir(t)
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		s := rec.watch(w, root)
		mkBundle(t, root, "a") // queued, perhaps mid-window, when Close comes
		s.Close()
		// What was delivered before Close returned is fine; nothing after.
		for len(rec.ch) > 0 {
			<-rec.ch
		}
		mkBundle(t, root, "b")
		rec.assertQuiet("after Subscription.Close")
	})
}

func TestWatcherCloseStopsCallbacks(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		cfg.Coalesce = 2 * time.Millisecond
		cfg.PollInterval = 5 * time.Millisecond
		root := tempDir(t)
		var late atomic.Int32
		for i := range 30 {
			w, err := New(cfg)
			require.NoError(t, err)
			var closed atomic.Bool
			_, err = w.Watch([]string{root}, func(Change) {
				if closed.Load() {
					late.Add(1)
				}
			})
			require.NoError(t, err)
			for j := range 5 {
				mkBundle(t, root, fmt.Sprintf("b%d-%d", i, j))
			}
			// Land Close at various points of the pipeline: events queued,
			// a batch mid-window, a callback due.
			time.Sleep(time.Duration(i%6) * time.Millisecond)
			require.NoError(t, w.Close())
			closed.Store(true)
			mkBundle(t, root, fmt.Sprintf("after%d", i))
		}
		time.Sleep(quietPeriod(cfg)) // let any stray timer fire: it must find nothing to do
		n := late.Load()
		assert.Zero(t, n, "%d callbacks ran after Close returned", n)
	})
}

func TestCloseWaitsForRunningCallback(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	root := tempDir(t)
	w, err := New(cfg)
	require.NoError(t, err)
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	_, err = w.Watch([]string{root}, func(Change) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	require.NoError(t, err)
	mkBundle(t, root, "a")
	select {
	case <-entered:
	case <-time.After(waitTimeout):
		t.Fatal("no callback")
	}
	closed := make(chan struct{})
	go func() {
		w.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a callback was running")
	case <-time.After(quietPeriod(cfg)):
	}
	mkBundle(t, root, "b") // must not be delivered: Close has begun
	close(release)
	select {
	case <-closed:
	case <-time.After(waitTimeout):
		t.Fatal("Close did not return after the callback finished")
	}
	assert.Equal(t, int32(1), calls.Load(), "callbacks")
}

func TestCallbackPanicDoesNotStopTheWatcher(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	rootA, rootB := tempDir(t), tempDir(t)
	w := newWatcher(t, cfg)
	_, err := w.Watch([]string{rootA}, func(Change) { panic("provider bug") })
	require.NoError(t, err)
	rec := newRecorder(t, cfg)
	rec.watch(w, rootB)
	mkBundle(t, rootA, "a")
	mkBundle(t, rootB, "b")
	rec.waitEntries("b")
	rec.settle()
	mkBundle(t, rootB, "c")
	rec.waitEntries("c")
}

func locked2(w *Watcher, f func() (int, int)) (int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return f()
}

// countInotify counts this process's inotify instances.
func countInotify(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot list file descriptors: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.Contains(target, "inotify") {
			n++
		}
	}
	return n
}

func TestOneInotifyInstanceForAllSubscriptions(t *testing.T) {
	// Not parallel: it counts the process's inotify instances.
	before := countInotify(t)
	w, err := New(testConfig(Native))
	require.NoError(t, err)
	got := countInotify(t) - before
	assert.Equal(t, 1, got, "New made %d inotify instances, want 1", got)
	base := tempDir(t)
	for i := range 40 {
		root := filepath.Join(base, fmt.Sprintf("project%d", i), "skills")
		if i%2 == 0 {
			mkBundle(t, root, "a")
			mkBundle(t, root, "b")
		}
		_, err := w.Watch([]string{root, filepath.Join(base, "user-skills")}, func(Change) {})
		require.NoError(t, err)
	}
	assert.Equal(t, 1, countInotify(t)-before, "inotify instances for 40 subscriptions")
	// Every watched directory is in fsnotify once, however many subscriptions
	// share it (the missing user root's ancestor is shared by all 40).
	watched, inFsnotify := locked2(w, func() (int, int) { return len(w.paths), len(w.fsw.WatchList()) })
	assert.Equal(t, watched, inFsnotify, "fsnotify watches %d paths, the watcher's table %d", inFsnotify, watched)
	shared := locked(w, func() int { return len(w.paths[base].interests) })
	assert.GreaterOrEqual(t, shared, 32, "the shared ancestor has %d interests, want one per active subscription", shared)
	require.NoError(t, w.Close())
	assert.Zero(t, countInotify(t)-before, "inotify instances left after Close")

	before = countInotify(t)
	p := newWatcher(t, testConfig(Poll))
	_, err = p.Watch([]string{base}, func(Change) {})
	require.NoError(t, err)
	assert.Zero(t, countInotify(t)-before, "inotify instances made by Poll mode")
}

func TestWatchAfterClose(t *testing.T) {
	t.Parallel()
	w, err := New(testConfig(Native))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	assert.NoError(t, w.Close(), "second Close")
	_, err = w.Watch([]string{tempDir(t)}, func(Change) {})
	assert.ErrorIs(t, err, ErrClosed, "Watch after Close")
}

func TestRepeatedErrorsRearmAtMostOncePerInterval(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	root := tempDir(t)
	w := newWatcher(t, cfg)
	var rootAdds atomic.Int32
	failAdd(w, func(p string) bool {
		if p == root {
			rootAdds.Add(1)
		}
		return false
	})
	rec := newRecorder(t, cfg)
	s := rec.watch(w, root)
	rootAdds.Store(0)

	start := time.Now()
	for range 20 {
		w.handleError(errors.New("inotify read: input/output error"))
	}
	// Twenty errors in a row take microseconds; a loaded machine can stall
	// the loop past an interval, and then one more re-arm is due.
	allowed := 2 + int32(time.Since(start)/cfg.PollInterval)
	// The first error makes the catalog incomplete at once. If the
	// deliverer runs between two errors of the stream (a loaded machine),
	// it may report the recovery and then the next error before the
	// periodic check's recovery: any number of incomplete rescans, then a
	// complete one.
	assert.Empty(t, cmp.Diff(Change{Rescan: true, Incomplete: true}, rec.next("a stream of errors: incomplete").Change), "first callback (-want +got)")
	got := rec.waitFor("a stream of errors: recovery", func(c Change) bool { return !c.Incomplete })
	for _, c := range got {
		assert.True(t, c.Rescan, "every callback of a stream of errors asks for a rescan: %+v", c.Change)
	}
	assert.True(t, s.Healthy(), "not healthy after recovery")
	n := rootAdds.Load()
	assert.LessOrEqual(t, n, allowed, "20 errors re-armed the root %d times, want ≤ %d (once, then once more from the periodic check, plus one per interval the errors took)", n, allowed)
	rec.settle()
	mkBundle(t, root, "a")
	rec.waitEntries("a")
}

// A timer that fired just before Close, whose goroutine runs only after
// Close returned, must find nothing to deliver.
func TestLateTimerAfterCloseDeliversNothing(t *testing.T) {
	t.Parallel()
	for _, closeWatcher := range []bool{false, true} {
		t.Run(fmt.Sprintf("watcher=%v", closeWatcher), func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(Native)
			cfg.WriteStability = time.Millisecond
			w, err := New(cfg)
			require.NoError(t, err)
			defer w.Close()
			var calls atomic.Int32
			s, err := w.Watch([]string{tempDir(t)}, func(Change) { calls.Add(1) })
			require.NoError(t, err)
			if closeWatcher {
				w.Close()
			} else {
				s.Close()
			}
			// A batch and a held entry, both overdue, as if queued right
			// before Close.
			s.mu.Lock()
			s.pend.add(time.Now().Add(-time.Hour), true, false)
			s.unstable = map[string]*unstable{"x": {dir: t.TempDir(), name: "a", due: time.Now().Add(-time.Hour)}}
			s.mu.Unlock()
			s.fire()
			n := calls.Load()
			assert.Zero(t, n, "%d callbacks after Close", n)
		})
	}
}

// Native mode's periodic check finds a root that appeared when inotify said
// nothing (here: the ancestor's watch silently watches nothing).
func TestPeriodicCheckFindsRootInotifyMissed(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	base := tempDir(t)
	root := filepath.Join(base, "skills")
	w := newWatcher(t, cfg)
	w.mu.Lock()
	real := w.add
	w.add = func(p string) error {
		if p == base {
			return nil // "watched", but no event will ever come
		}
		return real(p)
	}
	w.mu.Unlock()
	rec := newRecorder(t, cfg)
	rec.watch(w, root)
	mkBundle(t, root, "a")
	rec.waitRescan("the periodic check found the root")
	rec.settle()
	writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "after"))
	rec.waitEntries("a")
}

// A root the process may not read is a permanent condition, reported by the
// folder source as a complete absence with a warning. The watcher agrees: a
// permission failure does not make the Subscription unhealthy (which would
// keep every catalog incomplete for good), but it is still retried, so a
// root that becomes readable is picked up.
func TestPermissionDeniedRootStaysHealthy(t *testing.T) {
	cfg := testConfig(Native)
	root := filepath.Join(tempDir(t), "skills")
	mkBundle(t, root, "a")
	w := newWatcher(t, cfg)
	var denied atomic.Bool
	denied.Store(true)
	w.mu.Lock()
	real := w.add
	w.add = func(path string) error {
		if denied.Load() && path == root {
			return fmt.Errorf("inotify_add_watch %s: %w", path, syscall.EACCES)
		}
		return real(path)
	}
	w.mu.Unlock()
	rec := newRecorder(t, cfg)
	s := rec.watch(w, root)
	assert.True(t, s.Healthy(), "Healthy() = false for a root we may not read; want true (a permanent, complete absence)")
	denied.Store(false) // permissions fixed: the periodic retry arms the root
	rec.settle()
	writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "after"))
	rec.waitEntries("a")
}

// A kernel closes its registrations (each closing its Subscription) before
// its resources (the Watcher). The Watcher's Close must not wait for the
// Subscription to remove its watches one by one: closing the instance drops
// them all at once.
func TestWatcherCloseDuringSubscriptionCloseSkipsTheRemovals(t *testing.T) {
	t.Parallel()
	const n = 4096 // 16 batches
	root := tempDir(t)
	for i := range n {
		mkdir(t, filepath.Join(root, fmt.Sprintf("s%04d", i)))
	}
	w, err := New(testConfig(Native))
	require.NoError(t, err)
	s, err := w.Watch([]string{root}, func(Change) {})
	require.NoError(t, err)
	remove := w.remove
	var removed atomic.Int32
	closed := make(chan error)
	w.remove = func(p string) error { // called with w.mu held
		if removed.Add(1) == 1 {
			go func() { closed <- w.Close() }()
			// Let Close start waiting for the lock this removal holds.
			time.Sleep(20 * time.Millisecond)
		}
		return remove(p)
	}
	s.Close()
	require.NoError(t, <-closed)
	assert.Less(t, int(removed.Load()), n/2, "watches removed one by one although the Watcher closed meanwhile")
}
