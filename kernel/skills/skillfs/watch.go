package skillfs

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/helios-agents/helios/kernel/skills"
)

// RootWatcher watches skills roots for a DirSource. kernel/watch provides
// one (adapted by package kernel); tests may provide their own.
type RootWatcher interface {
	// WatchRoots calls onChange, never concurrently, when something in the
	// roots changes: the names of the root entries that changed, or rescan
	// when everything must be read again.
	WatchRoots(roots []string, onChange func(entries []string, rescan bool)) (RootWatch, error)
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
	sub, err := d.Watcher.WatchRoots(roots, func(entries []string, rescan bool) {
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
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", strings.Join(roots, ", "), err)
	}
	d.mu.Lock()
	d.sub = sub
	d.state = nil
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
