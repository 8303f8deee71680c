package watch

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A new root child is reported only once the watch on its skill file is in
// place: a provider reads the entry when told, and a write after that read
// must be reported. Reported first, the callback (which does not wait for
// the Watcher's lock) could run, and the provider read the file, before the
// watch was added; a write in between was then never reported and the
// catalog kept the older text for good (TestSoakLiveCatalog's "Reborn 23."
// with "Reborn 98." on disk). The interleaving is forced here: if the entry
// is already noted when its watch is added, the add waits for that callback,
// whose handler writes the file again, as a racing writer would.
func TestNewEntryIsReportedOnlyOnceWatched(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		follow bool
		make   func(t *testing.T, root, outside string)
	}{
		{"bundle", false, func(t *testing.T, root, _ string) {
			mkdir(t, filepath.Join(root, "a"))
		}},
		{"followed symlink", true, func(t *testing.T, root, outside string) {
			symlink(t, outside, filepath.Join(root, "a"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(Native)
			cfg.FollowSymlinks = tc.follow
			base := tempDir(t)
			root, outside := filepath.Join(base, "skills"), filepath.Join(base, "outside")
			mkdir(t, root)
			mkdir(t, outside)
			skill := filepath.Join(outside, "SKILL.md")
			if !tc.follow {
				skill = filepath.Join(root, "a", "SKILL.md")
			}
			w := newWatcher(t, cfg)
			rec := newRecorder(t, cfg)
			var once sync.Once
			handled := make(chan struct{})
			s, err := w.Watch([]string{root}, func(c Change) {
				if slices.Contains(c.Entries, "a") || c.Rescan {
					// The provider has read the entry; a writer now
					// changes it again.
					once.Do(func() {
						writeFile(t, skill, skillText("a", "second"))
						close(handled)
					})
				}
				rec.onChange(c)
			})
			require.NoError(t, err)
			t.Cleanup(s.Close)

			var gate sync.Once
			watchedDir := outside
			if !tc.follow {
				watchedDir = filepath.Join(root, "a")
			}
			w.mu.Lock()
			real := w.add
			w.add = func(path string) error { // called with w.mu held
				if path == watchedDir {
					gate.Do(func() {
						s.mu.Lock()
						_, noted := s.pend.entries["a"]
						s.mu.Unlock()
						if noted { // reported before watched: let the callback run first
							select {
							case <-handled:
							case <-time.After(waitTimeout):
							}
						}
					})
				}
				return real(path)
			}
			w.mu.Unlock()
			tc.make(t, root, outside)

			rec.waitEntries("a") // the first report
			// The write made after the first report must be reported too.
			rec.waitEntries("a")
		})
	}
}
