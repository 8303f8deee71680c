package skillfs

import (
	"io/fs"

	"github.com/helios-agents/helios/watch"
)

// WatcherOf adapts a watch watcher to what DirSource.Watch uses: its
// changes as entry names or a rescan, and each root entry handed over once
// its watch is armed. The assembly and the plugin SDK both watch this way.
func WatcherOf(w *watch.Watcher) EachWatcher { return kernelWatcher{w} }

type kernelWatcher struct{ w *watch.Watcher }

func (k kernelWatcher) WatchRoots(roots []string, onChange func(entries []string, rescan bool)) (RootWatch, error) {
	return k.WatchRootsEach(roots, onChange, nil)
}

func (k kernelWatcher) WatchRootsEach(roots []string, onChange func(entries []string, rescan bool), armed func(root int, entry string, mode fs.FileMode)) (RootWatch, error) {
	sub, err := k.w.WatchEach(roots, func(c watch.Change) { onChange(c.Entries, c.Rescan) }, armed)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return sub, nil
}
