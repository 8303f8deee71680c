package watch

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBundleCreateEditRenameRemove(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		root := tempDir(t)
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		mkBundle(t, root, "a")
		rec.waitEntries("a")
		rec.settle()

		writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "second"))
		rec.waitEntries("a")
		rec.settle()

		rename(t, filepath.Join(root, "a"), filepath.Join(root, "b"))
		got := rec.waitEntries("a", "b")
		assert.Empty(t, cmp.Diff([]string{"a", "b"}, entriesOf(got)), "rename: entries (-want +got)")
		rec.settle()

		// The renamed bundle is still watched under its new name.
		writeFile(t, filepath.Join(root, "b", "SKILL.md"), skillText("b", "third"))
		rec.waitEntries("b")
		rec.settle()

		remove(t, filepath.Join(root, "b"))
		rec.waitEntries("b")
		rec.settle()

		// skill.md is a skill file too.
		mkdir(t, filepath.Join(root, "c"))
		rec.waitEntries("c")
		rec.settle()
		writeFile(t, filepath.Join(root, "c", "skill.md"), skillText("c", "lower"))
		rec.waitEntries("c")
	})
}

func TestFlatCreateEditRenameRemove(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		root := tempDir(t)
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		writeFile(t, filepath.Join(root, "x.md"), skillText("x", "first"))
		rec.waitEntries("x.md")
		rec.settle()

		appendFile(t, filepath.Join(root, "x.md"), "More body.\n")
		rec.waitEntries("x.md")
		rec.settle()

		rename(t, filepath.Join(root, "x.md"), filepath.Join(root, "y.md"))
		got := rec.waitEntries("x.md", "y.md")
		assert.Empty(t, cmp.Diff([]string{"x.md", "y.md"}, entriesOf(got)), "rename: entries (-want +got)")
		rec.settle()

		remove(t, filepath.Join(root, "y.md"))
		rec.waitEntries("y.md")
		rec.settle()

		// A root file that is not markdown is not a skill. (One created and
		// removed before the watcher looks is reported: it might have been a
		// bundle directory. So z.md marks when notes.txt has been seen.)
		writeFile(t, filepath.Join(root, "notes.txt"), "hello")
		writeFile(t, filepath.Join(root, "z.md"), skillText("z", "marker"))
		got = rec.waitEntries("z.md")
		assert.Empty(t, cmp.Diff([]string{"z.md"}, entriesOf(got)), "entries (-want +got)")
		rec.settle()
		appendFile(t, filepath.Join(root, "notes.txt"), "again")
		remove(t, filepath.Join(root, "notes.txt"))
		rec.assertQuiet("a non-markdown root file")
	})
}

// eventsOnly turns off Native mode's periodic check, so that what a test
// sees was done by inotify events alone.
func eventsOnly(cfg Config) Config {
	if cfg.Mode == Native {
		cfg.PollInterval = time.Hour
	}
	return cfg
}

func TestMissingRootTwoLevelsDownAppears(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		cfg = eventsOnly(cfg)
		base := tempDir(t)
		root := filepath.Join(base, "p", "q", "skills")
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		s := rec.watch(w, root)
		require.True(t, s.Healthy(), "a missing root is a healthy watch of an absence")
		if cfg.Mode == Native {
			assertAnchor(t, w, base, "p")
		}

		mkdir(t, filepath.Join(base, "p"))
		if cfg.Mode == Native {
			assertAnchor(t, w, filepath.Join(base, "p"), "q")
		}
		mkdir(t, filepath.Join(base, "p", "q"))
		if cfg.Mode == Native {
			assertAnchor(t, w, filepath.Join(base, "p", "q"), "skills")
		}
		rec.assertQuiet("intermediate directories")

		mkdir(t, root)
		rec.waitRescan("the root appeared")
		rec.settle()

		// The root is now watched itself.
		mkBundle(t, root, "a")
		rec.waitEntries("a")
	})
}

// assertAnchor waits until the missing root is watched through dir, for the
// creation of next.
func assertAnchor(t *testing.T, w *Watcher, dir, next string) {
	t.Helper()
	eventually(t, fmt.Sprintf("anchored at %s for %q", dir, next), func() bool {
		return locked(w, func() bool {
			ws := w.paths[dir]
			return ws != nil && slices.ContainsFunc(ws.interests, func(in *interest) bool {
				return in.kind == kindAnchor && in.name == next
			})
		})
	})
}

func TestMissingRootCreatedAllAtOnce(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		cfg = eventsOnly(cfg)
		base := tempDir(t)
		root := filepath.Join(base, "p", "q", "skills")
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		mkdir(t, filepath.Join(root, "a"))
		writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "x"))
		rec.waitRescan("the root appeared with mkdir -p")
		rec.settle()
		writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "y"))
		rec.waitEntries("a")
	})
}

func TestRootDeletedThenRecreated(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		cfg = eventsOnly(cfg)
		base := tempDir(t)
		root := filepath.Join(base, "skills")
		mkBundle(t, root, "a")
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		remove(t, root)
		rec.waitRescan("the root was deleted")
		rec.settle()
		if cfg.Mode == Native {
			assertAnchor(t, w, base, "skills")
		}

		mkdir(t, root)
		rec.waitRescan("the root was recreated")
		rec.settle()

		mkBundle(t, root, "b")
		rec.waitEntries("b")
		rec.settle()

		// And once more, renamed away and back.
		rename(t, root, root+"-old")
		rec.waitRescan("the root was renamed away")
		rec.settle()
		rename(t, root+"-old", root)
		rec.waitRescan("the root was renamed back")
		rec.settle()
		writeFile(t, filepath.Join(root, "b", "SKILL.md"), skillText("b", "again"))
		rec.waitEntries("b")
	})
}

func TestDeeperResourcesCauseNoCallback(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		root := tempDir(t)
		mkBundle(t, root, "a")
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		a := filepath.Join(root, "a")
		mkdir(t, filepath.Join(a, "scripts"))
		writeFile(t, filepath.Join(a, "scripts", "x.sh"), "echo hi\n")
		appendFile(t, filepath.Join(a, "scripts", "x.sh"), "echo again\n")
		mkdir(t, filepath.Join(a, "references", "deep"))
		writeFile(t, filepath.Join(a, "references", "deep", "r.md"), "ref")
		writeFile(t, filepath.Join(a, "references", "SKILL.md"), "not the bundle's skill file")
		writeFile(t, filepath.Join(a, "notes.md"), "a file beside SKILL.md")
		rename(t, filepath.Join(a, "scripts", "x.sh"), filepath.Join(a, "scripts", "y.sh"))
		remove(t, filepath.Join(a, "references"))
		remove(t, filepath.Join(a, "notes.md"))
		rec.assertQuiet("changes inside a bundle other than its SKILL.md")
	})
}

func TestEditorTempNamesCauseNoCallback(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		root := tempDir(t)
		mkBundle(t, root, "a")
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		names := []string{"x.md~", ".x.md.swp", "x.md.swx", "x.md.swo", "4913", "#x.md#", ".#x.md", "x.md.tmp", ".tmp123.md"}
		for _, dir := range []string{root, filepath.Join(root, "a")} {
			for _, n := range names {
				p := filepath.Join(dir, n)
				writeFile(t, p, "temp")
				appendFile(t, p, "more")
				remove(t, p)
			}
		}
		for _, n := range []string{"SKILL.md~", ".SKILL.md.swp", "SKILL.md.tmp"} {
			writeFile(t, filepath.Join(root, "a", n), "temp")
		}
		mkdir(t, filepath.Join(root, ".hidden-bundle"))
		writeFile(t, filepath.Join(root, ".hidden-bundle", "SKILL.md"), "hidden")
		mkdir(t, filepath.Join(root, "backup~"))
		rec.assertQuiet("editor temp names")
	})
}

func TestVimRenameOverSaveReportsOnce(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		cfg.Coalesce = 100 * time.Millisecond // the save is a handful of syscalls; one window is plenty
		root := tempDir(t)
		mkBundle(t, root, "a")
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		a := filepath.Join(root, "a")
		writeFile(t, filepath.Join(a, "4913"), "")
		remove(t, filepath.Join(a, "4913"))
		writeFile(t, filepath.Join(a, "SKILL.md.tmp"), skillText("a", "saved"))
		rename(t, filepath.Join(a, "SKILL.md.tmp"), filepath.Join(a, "SKILL.md"))

		got := rec.waitEntries("a")
		if assert.Len(t, got, 1, "got %+v, want one callback naming a", got) {
			assert.Equal(t, []string{"a"}, got[0].Entries, "entries of the callback")
		}
		rec.assertQuiet("after the save's callback")
	})
}

func TestVimBackupSaveReportsBundle(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		root := tempDir(t)
		mkBundle(t, root, "a")
		writeFile(t, filepath.Join(root, "flat.md"), skillText("flat", "x"))
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		// vim's default: move the file to a backup, write anew, drop the backup.
		for _, f := range []string{filepath.Join(root, "a", "SKILL.md"), filepath.Join(root, "flat.md")} {
			rename(t, f, f+"~")
			writeFile(t, f, skillText("a", "saved"))
			remove(t, f+"~")
		}
		got := rec.waitEntries("a", "flat.md")
		assert.Empty(t, cmp.Diff([]string{"a", "flat.md"}, entriesOf(got)), "entries (-want +got)")
	})
}

func TestGitCheckoutUnlinkCreate(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		root := tempDir(t)
		mkBundle(t, root, "a")
		writeFile(t, filepath.Join(root, "flat.md"), skillText("flat", "x"))
		w := newWatcher(t, cfg)
		rec := newRecorder(t, cfg)
		rec.watch(w, root)

		for _, f := range []string{filepath.Join(root, "a", "SKILL.md"), filepath.Join(root, "flat.md")} {
			remove(t, f)
			writeFile(t, f, skillText("checked-out", "y"))
		}
		got := rec.waitEntries("a", "flat.md")
		assert.Empty(t, cmp.Diff([]string{"a", "flat.md"}, entriesOf(got)), "entries (-want +got)")
		rec.settle()
		// Still watched after the unlink.
		writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "z"))
		rec.waitEntries("a")
	})
}

func TestSymlinkedBundle(t *testing.T) {
	forEachMode(t, func(t *testing.T, cfg Config) {
		for _, follow := range []bool{true, false} {
			t.Run(fmt.Sprintf("follow=%v", follow), func(t *testing.T) {
				cfg := cfg
				cfg.FollowSymlinks = follow
				base := tempDir(t)
				root := filepath.Join(base, "skills")
				mkdir(t, root)
				mkBundle(t, filepath.Join(base, "elsewhere"), "real")
				writeFile(t, filepath.Join(base, "elsewhere", "f.md"), skillText("f", "x"))
				symlink(t, filepath.Join(base, "elsewhere", "real"), filepath.Join(root, "link"))
				symlink(t, filepath.Join(base, "elsewhere", "f.md"), filepath.Join(root, "alias.md"))
				w := newWatcher(t, cfg)
				rec := newRecorder(t, cfg)
				rec.watch(w, root)

				writeFile(t, filepath.Join(base, "elsewhere", "real", "SKILL.md"), skillText("real", "edited"))
				appendFile(t, filepath.Join(base, "elsewhere", "f.md"), "edited\n")
				if follow {
					got := rec.waitEntries("link", "alias.md")
					assert.Empty(t, cmp.Diff([]string{"alias.md", "link"}, entriesOf(got)), "entries (-want +got)")
					rec.settle()
					// Replacing the target file by renaming over it is seen too.
					f := filepath.Join(base, "elsewhere", "f.md")
					writeFile(t, f+".tmp", skillText("f", "renamed over"))
					rename(t, f+".tmp", f)
					rec.waitEntries("alias.md")
					rec.settle()
				} else {
					rec.assertQuiet("an edit behind an unfollowed link")
				}

				remove(t, filepath.Join(root, "link"))
				rec.waitEntries("link")
				rec.settle()
				symlink(t, filepath.Join(base, "elsewhere", "real"), filepath.Join(root, "link2"))
				rec.waitEntries("link2")
				rec.settle()
				if follow {
					writeFile(t, filepath.Join(base, "elsewhere", "real", "SKILL.md"), skillText("real", "again"))
					rec.waitEntries("link2")
				}
			})
		}
	})
}

func TestWriteStability(t *testing.T) {
	// Not parallel: the writer's 20ms rhythm is part of what is tested.
	for _, mode := range []Mode{Native, Poll} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := testConfig(mode)
			cfg.WriteStability = 150 * time.Millisecond
			root := tempDir(t)
			mkBundle(t, root, "a")
			w := newWatcher(t, cfg)
			rec := newRecorder(t, cfg)
			rec.watch(w, root)
			skill := filepath.Join(root, "a", "SKILL.md")

			// A writer stalled for longer than WriteStability makes a report
			// mid-save correct; such a run cannot be judged, so try again.
			judged := false
			for attempt := 0; attempt < 3 && !judged; attempt++ {
				var lastStart time.Time
				var maxGap time.Duration
				end := time.Now().Add(300 * time.Millisecond)
				for time.Now().Before(end) {
					now := time.Now()
					if !lastStart.IsZero() && now.Sub(lastStart) > maxGap {
						maxGap = now.Sub(lastStart)
					}
					lastStart = now
					appendFile(t, skill, "a line of a slow save\n")
					time.Sleep(20 * time.Millisecond) // the workload's rhythm, not a wait for the result
				}
				first := rec.next("the save settled")
				if maxGap >= cfg.WriteStability-30*time.Millisecond {
					t.Logf("attempt %d: the writer stalled %s; not judged", attempt, maxGap)
					rec.settle()
					continue
				}
				judged = true
				assert.Empty(t, cmp.Diff(Change{Entries: []string{"a"}}, first.Change), "callback (-want +got)")
				early := first.at.Sub(lastStart)
				assert.GreaterOrEqual(t, early, cfg.WriteStability, "callback %s after the last write began; want ≥ %s (not mid-save)", early, cfg.WriteStability)
				rec.assertQuiet("after the one settled callback")
			}
			if !judged {
				t.Skip("the writer stalled in every attempt; the machine is too loaded to judge")
			}

			// A removal waits too, and is reported once settled.
			remove(t, filepath.Join(root, "a"))
			rec.waitEntries("a")
		})
	}
}

func TestCoalesceBurst(t *testing.T) {
	// Not parallel: a burst is a burst only when the writer is not starved.
	for _, mode := range []Mode{Native, Poll} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := testConfig(mode)
			cfg.Coalesce = 0 // the default, 50ms
			// How long the burst may take and still be one: in Native mode,
			// the 10-window cap; in Poll mode, polling is its own coalescer
			// (a burst is cut where a poll round falls), so make the round
			// longer than the burst.
			limit := 400 * time.Millisecond
			if mode == Poll {
				cfg.PollInterval = 250 * time.Millisecond
				limit = cfg.PollInterval
			}
			root := tempDir(t)
			w := newWatcher(t, cfg)
			cfg, _ = cfg.withDefaults()
			rec := newRecorder(t, cfg)
			rec.watch(w, root)

			judged := false
			for attempt := 0; attempt < 3 && !judged; attempt++ {
				var want []string
				start := time.Now()
				last, gap := start, time.Duration(0)
				for i := range 100 {
					name := fmt.Sprintf("s%d-%03d", attempt, i)
					want = append(want, name)
					mkBundle(t, root, name)
					now := time.Now()
					gap, last = max(gap, now.Sub(last)), now
				}
				took := time.Since(start)
				got := rec.waitEntries(want...)
				assert.Empty(t, cmp.Diff(want, entriesOf(got)), "entries (-want +got)")
				// A burst is one only while its creates come closer than the
				// coalescing window: on a loaded machine a stall between two
				// of them ends it, and the rest is a second burst.
				if took >= limit || (mode == Native && gap >= cfg.Coalesce/2) {
					t.Logf("attempt %d: the burst took %s, its longest pause %s; not judged", attempt, took, gap)
					rec.settle()
					continue
				}
				judged = true
				// Native: the leading edge and one trailing batch. Poll: a
				// burst shorter than a round is seen by at most two rounds,
				// and a round's scan reports its finds over time: under load
				// the leading edge (1ms after the first find) leaves with the
				// first of them and the rest follow as one trailing batch,
				// so at most two callbacks a round.
				most := 2
				if mode == Poll {
					most = 4
				}
				assert.LessOrEqual(t, len(got), most, "100 creates in %s made %d callbacks, want ≤ %d", took, len(got), most)
			}
			if !judged {
				t.Skip("no burst was fast enough to judge; the machine is too loaded")
			}
		})
	}
}

func TestPendingBatch(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	const window = 50 * time.Millisecond

	var p pending
	require.True(t, p.empty(), "zero batch not empty")
	p.addEntry(t0, "a")
	p.addEntry(t0.Add(10*time.Millisecond), "b")
	p.addEntry(t0.Add(20*time.Millisecond), "a")
	assert.Empty(t, cmp.Diff(map[string]struct{}{"a": {}, "b": {}}, p.entries), "entries (-want +got)")
	// The leading edge: the first event after a quiet window is due at once.
	got, want := p.due(window, t0.Add(-window)), t0.Add(leadingDelay)
	assert.True(t, got.Equal(want), "due after a quiet window = %v, want the first event + %s = %v", got, leadingDelay, want)
	// Within the window of the last callback: coalesced.
	lastTake := t0.Add(-window / 2)
	got, want = p.due(window, lastTake), t0.Add(70*time.Millisecond)
	assert.True(t, got.Equal(want), "due = %v, want the last event + the window = %v", got, want)
	// A steady trickle cannot postpone the callback past 10 windows.
	for i := range 40 {
		p.addEntry(t0.Add(time.Duration(i)*20*time.Millisecond), "c")
	}
	got, want = p.due(window, lastTake), t0.Add(10*window)
	assert.True(t, got.Equal(want), "due under a trickle = %v, want first + 10 windows = %v", got, want)

	// Too many entries become a Rescan, which names none.
	var q pending
	for i := range maxEntries + 1 {
		q.addEntry(t0, fmt.Sprintf("s%d", i))
	}
	assert.True(t, q.rescan, "after %d entries: rescan=%v entries=%d, want a Rescan and no entries", maxEntries+1, q.rescan, len(q.entries))
	assert.Nil(t, q.entries, "after %d entries: rescan=%v entries=%d, want a Rescan and no entries", maxEntries+1, q.rescan, len(q.entries))
	q.addEntry(t0, "late")
	assert.Nil(t, q.entries, "an entry was recorded next to a Rescan")
}

func TestTooManyEntriesBecomeRescan(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	cfg.Coalesce = 500 * time.Millisecond // one batch, even on a loaded machine
	root := tempDir(t)
	w := newWatcher(t, cfg)
	rec := newRecorder(t, cfg)
	// The files are written aside and renamed in: a rename is one cheap
	// call, so the whole burst lands well inside one window even on a
	// loaded machine, where writing them could stall past it. The leading
	// edge delivers the first few at once; twice maxEntries and more make
	// sure the batch after it is still too big to name.
	const n = 2*maxEntries + 10
	staging := tempDir(t)
	for i := range n {
		writeFile(t, filepath.Join(staging, fmt.Sprintf("s%04d.md", i)), "x")
	}
	rec.watch(w, root)
	for i := range n {
		name := fmt.Sprintf("s%04d.md", i)
		require.NoError(t, os.Rename(filepath.Join(staging, name), filepath.Join(root, name)))
	}
	rec.waitFor("a Rescan for a huge burst", func(c Change) bool { return c.Rescan && len(c.Entries) == 0 })
}

func TestSubscriptionsShareAndRefcountWatches(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	root := tempDir(t)
	mkBundle(t, root, "a")
	w := newWatcher(t, cfg)
	rec1, rec2 := newRecorder(t, cfg), newRecorder(t, cfg)
	s1 := rec1.watch(w, root)
	rec2.watch(w, root)

	interests := func(path string) int {
		return locked(w, func() int {
			if ws := w.paths[path]; ws != nil {
				return len(ws.interests)
			}
			return 0
		})
	}
	require.Equal(t, 2, interests(root), "root interests, want 2 (one watch, two subscriptions)")
	require.Equal(t, 2, interests(filepath.Join(root, "a")), "bundle interests")

	writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "both"))
	rec1.waitEntries("a")
	rec2.waitEntries("a")

	s1.Close()
	require.Equal(t, 1, interests(root), "after closing one: root interests")
	rec2.settle()
	writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillText("a", "one left"))
	rec2.waitEntries("a")
	rec1.assertQuiet("a closed subscription")
}

func TestWatchArguments(t *testing.T) {
	t.Parallel()
	w := newWatcher(t, testConfig(Native))
	nop := func(Change) {}
	_, err := w.Watch([]string{"relative/skills"}, nop)
	assert.Error(t, err, "Watch(relative root)")
	_, err = w.Watch([]string{tempDir(t)}, nil)
	assert.Error(t, err, "Watch(nil callback)")
	s, err := w.Watch(nil, nop)
	require.NoError(t, err, "Watch(no roots)")
	s.Close()
	s.Close() // idempotent
	assert.False(t, s.Healthy(), "a closed subscription reports healthy")
	s.Touch() // harmless after Close
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"mode", Config{Mode: 7}},
		{"poll interval", Config{PollInterval: -1}},
		{"write stability", Config{WriteStability: -1}},
		{"coalesce", Config{Coalesce: -1}},
		{"capacity", Config{Capacity: -1}},
	} {
		w, err := New(tc.cfg)
		if err == nil {
			w.Close()
		}
		assert.Error(t, err, "New with a bad %s", tc.name)
	}
}

func TestIgnoredName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"a": false, "a.md": false, "SKILL.md": false, "#": false, "2048": false,
		".a": true, ".#a.md": true, "#a.md#": true, "a.md~": true, "a.md.swp": true,
		"a.swx": true, "a.swo": true, "4913": true, "SKILL.md.tmp": true, "": true,
	} {
		assert.Equal(t, want, ignoredName(name), "ignoredName(%q)", name)
	}
}

func TestRootIsReplacedBySymlinkRetarget(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	base := tempDir(t)
	mkBundle(t, filepath.Join(base, "v1"), "a")
	mkBundle(t, filepath.Join(base, "v2"), "b")
	root := filepath.Join(base, "current")
	symlink(t, filepath.Join(base, "v1"), root)
	w := newWatcher(t, cfg)
	rec := newRecorder(t, cfg)
	rec.watch(w, root)

	// ln -sfn v2 current: a new link renamed over the old one.
	symlink(t, filepath.Join(base, "v2"), root+".new")
	rename(t, root+".new", root)
	rec.waitRescan("the root now points elsewhere")
	rec.settle()
	writeFile(t, filepath.Join(base, "v2", "b", "SKILL.md"), skillText("b", "edited"))
	rec.waitEntries("b")
	rec.settle()
	writeFile(t, filepath.Join(base, "v1", "a", "SKILL.md"), skillText("a", "edited"))
	rec.assertQuiet("the old target")
}

// WatchEach hands each root child over only once its watch is in place: a
// provider reading it from then on, while the rest are still being armed,
// misses no change made after its read.
func TestWatchEachHandsOverArmedChildren(t *testing.T) {
	t.Parallel()
	cfg := testConfig(Native)
	root := tempDir(t)
	for _, name := range []string{"a", "b", ".hidden"} {
		mkBundle(t, root, name)
	}
	writeFile(t, filepath.Join(root, "c.md"), skillText("c", "flat"))
	w := newWatcher(t, cfg)
	rec := newRecorder(t, cfg)
	var got []string
	s, err := w.WatchEach([]string{root}, rec.onChange, func(i int, name string, mode fs.FileMode) {
		assert.Equal(t, 0, i, "root index of %s", name)
		got = append(got, name)
		if mode.IsDir() {
			// Changed the moment it is handed over, as if just after a
			// provider read it.
			writeFile(t, filepath.Join(root, name, "SKILL.md"), skillText(name, "edited while arming"))
		}
	})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	slices.Sort(got)
	assert.Equal(t, []string{"a", "b", "c.md"}, got, "children handed over")
	rec.waitEntries("a", "b")
}
