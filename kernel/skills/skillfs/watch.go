package skillfs

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/helios-agents/helios/kernel/skills"
)

// RootWatcher watches skills roots for a DirSource. WatcherOf adapts
// watch's; tests may provide their own.
type RootWatcher interface {
	// WatchRoots calls onChange, never concurrently, when something in the
	// roots changes: the names of the root entries that changed, or rescan
	// when everything must be read again.
	WatchRoots(roots []string, onChange func(entries []string, rescan bool)) (RootWatch, error)
}

// EachWatcher is a RootWatcher that also hands over each root entry, while
// it arms the roots, once the entry's watch is in place (watch's
// WatchEach): Watch then reads the entry at once, alongside the arming of
// the rest, for the first scan to use.
type EachWatcher interface {
	RootWatcher
	// WatchRootsEach is WatchRoots that calls armed for each entry of
	// roots[root] once changes to it are reported; only before it
	// returns, and never concurrently.
	WatchRootsEach(roots []string, onChange func(entries []string, rescan bool), armed func(root int, entry string, mode fs.FileMode)) (RootWatch, error)
}

// RootWatch is one running watch.
type RootWatch interface {
	// Touch says the watch was just observed (it may re-arm an evicted one).
	Touch()
	// Healthy is false while changes may be missed; results are then
	// incomplete.
	Healthy() bool
	Close()
}

// Watch starts the watcher on the roots; each change marks the entries it
// names (or everything) for re-reading and calls invalidate. Without a
// Watcher it returns ErrNotWatched and the registry asks again every time.
func (d *DirSource) Watch(invalidate func(), done <-chan struct{}) error {
	d.mu.Lock()
	d.invalidate = invalidate // for loads that find a stale name
	d.mu.Unlock()
	if d.Watcher == nil {
		return skills.ErrNotWatched
	}
	roots := make([]string, len(d.Roots))
	for i, r := range d.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return fmt.Errorf("watch %s: %w", r, err)
		}
		roots[i] = abs
	}
	onChange := func(entries []string, rescan bool) {
		d.mu.Lock()
		if rescan {
			d.rescan = true
		}
		for _, e := range entries {
			d.markDirty(e)
			d.forgetErrors(e)
		}
		d.mu.Unlock()
		invalidate()
	}
	var (
		sub RootWatch
		err error
		pre []map[string]prefetched
	)
	if ew, ok := d.Watcher.(EachWatcher); ok {
		// Each entry is read once its watch is armed, never before: a
		// change after the read is reported, and a report that comes
		// before the first scan makes it read the entry again (see scan).
		armed, wait := d.prefetch(roots)
		sub, err = ew.WatchRootsEach(roots, onChange, armed)
		pre = wait()
	} else {
		sub, err = d.Watcher.WatchRoots(roots, onChange)
	}
	if err != nil {
		return fmt.Errorf("watch %s: %w", strings.Join(roots, ", "), err)
	}
	d.mu.Lock()
	d.sub = sub
	// What was read before the watch was armed cannot be trusted: the first
	// scan reads again, all but what was read after its entry was armed.
	d.state, d.pre = nil, pre
	d.mu.Unlock()
	go func() {
		<-done
		sub.Close()
	}()
	return nil
}

// PathChanged is the first-party write entry point: path was just written,
// created or removed by the agent's own tools. It reports whether the change
// can affect this source's catalog, marking what to re-read; a file deep in
// a bundle (scripts/, references/) cannot.
func (d *DirSource) PathChanged(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, root := range d.Roots {
		rootAbs, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rootAbs, abs)
		if err != nil {
			continue
		}
		if rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			// The root itself, or a folder above it, changed.
			if rel == "." || strings.HasPrefix(rootAbs, abs+string(filepath.Separator)) {
				d.rescan = true
				return true
			}
			continue
		}
		parts := strings.Split(rel, string(filepath.Separator))
		switch {
		case strings.HasPrefix(parts[0], "."):
			continue
		case len(parts) == 1,
			len(parts) == 2 && (parts[1] == "SKILL.md" || parts[1] == "skill.md"):
			d.markDirty(parts[0])
			d.forgetErrors(parts[0])
			return true
		}
	}
	return false
}

// stale marks an entry whose load found another name to be read again and
// invalidates the registration, so the next snapshot publishes the new name.
func (d *DirSource) stale(entry string) {
	d.mu.Lock()
	d.markDirty(entry)
	invalidate := d.invalidate
	d.mu.Unlock()
	if invalidate != nil {
		invalidate()
	}
}

// prefetched is an entry read by Watch once its watch was armed.
type prefetched struct {
	mode fs.FileMode // the type it was read as
	st   entryState
}

// prefetch starts reading the entries armed hands over, at most GOMAXPROCS
// at a time, as the first scan would (roots are absolute). wait, called
// once the arming is over, returns what was read, by root.
func (d *DirSource) prefetch(roots []string) (armed func(root int, entry string, mode fs.FileMode), wait func() []map[string]prefetched) {
	type item struct {
		root  int
		entry string
		mode  fs.FileMode
	}
	ch := make(chan item, 256) // armed blocks the arming when reads fall this far behind
	out := make([]map[string]prefetched, len(roots))
	prefixes := make([]string, len(roots))
	for i, r := range roots {
		out[i] = map[string]prefetched{}
		prefixes[i] = strings.TrimSuffix(r, string(filepath.Separator)) + string(filepath.Separator)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for it := range ch {
				st := d.readEntrySafe(context.Background(), fsOpener{d.FS}, prefixes[it.root]+it.entry, it.mode)
				mu.Lock()
				out[it.root][it.entry] = prefetched{mode: it.mode, st: st}
				mu.Unlock()
			}
		})
	}
	armed = func(root int, entry string, mode fs.FileMode) {
		if !strings.HasPrefix(entry, ".") {
			ch <- item{root, entry, mode}
		}
	}
	wait = func() []map[string]prefetched {
		close(ch)
		wg.Wait()
		return out
	}
	return armed, wait
}
