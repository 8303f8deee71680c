package watch

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/fsnotify/fsnotify"
)

// handleEvent routes one fsnotify event. Its name is either a watched
// directory itself (it was removed, renamed or recreated) or a child of one.
func (w *Watcher) handleEvent(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	if ev.Op&(fsnotify.Remove|fsnotify.Rename|fsnotify.Create) != 0 {
		for _, in := range w.dropPath(name) {
			w.lost(in)
		}
	}
	dir := filepath.Dir(name)
	if dir == name {
		return
	}
	ws := w.paths[dir]
	if ws == nil {
		return
	}
	base := filepath.Base(name)
	for _, in := range slices.Clone(ws.interests) {
		if in.live {
			w.child(in, base, ev.Op)
		}
	}
}

// lost re-resolves what a dropped watch was for.
func (w *Watcher) lost(in *interest) {
	r := in.root
	if r.sub.status != statusActive {
		return
	}
	switch in.kind {
	case kindRoot:
		if r.self == in {
			r.self = nil
			w.rearmRoot(r)
		}
	case kindEntry:
		if r.entries[in.name] == in {
			delete(r.entries, in.name)
			if r.self != nil {
				w.classifyChild(r, in.name, true)
			}
		}
	case kindAnchor:
		if r.anchor == in {
			r.anchor = nil
			w.resolveRoot(r, true)
		}
	}
}

// child handles an event about a child base of a watched directory.
func (w *Watcher) child(in *interest, base string, op fsnotify.Op) {
	r := in.root
	if r.sub.status != statusActive {
		return
	}
	switch in.kind {
	case kindAnchor:
		if base == in.name && r.anchor == in {
			w.resolveRoot(r, true)
		}
	case kindEntry:
		if op&^fsnotify.Chmod != 0 && slices.Contains(in.files, base) {
			r.sub.noteEntry(r, in.name)
		}
	case kindRoot:
		if ignoredName(base) {
			return
		}
		switch {
		case op&fsnotify.Create != 0:
			w.classifyChild(r, base, true)
		case op&(fsnotify.Remove|fsnotify.Rename) != 0:
			known := r.known[base] || r.entries[base] != nil
			w.dropEntry(r, base)
			delete(r.known, base)
			delete(r.links, base)
			if known || isMarkdown(base) {
				r.sub.noteEntry(r, base)
			}
		case op&fsnotify.Write != 0:
			if isMarkdown(base) && !r.known[base] {
				r.sub.noteEntry(r, base)
			}
		}
	}
}

// checkRoot is Native mode's periodic check of one root: it retries what
// failed, looks again for a missing root (in case an event was missed), and
// notices a root that was replaced or a followed link that was retargeted,
// which inotify does not report.
func (w *Watcher) checkRoot(r *rootState) {
	switch {
	case r.failed:
		w.rearmRoot(r)
		return
	case r.self == nil:
		w.resolveRoot(r, true)
		return
	}
	fi, err := os.Stat(r.path)
	if err != nil || !fi.IsDir() || idOf(fi) != r.id {
		w.rearmRoot(r)
		return
	}
	if canon, err := filepath.EvalSymlinks(r.path); err != nil || canon != r.dir {
		w.rearmRoot(r)
		return
	}
	for name, target := range r.links {
		now, err := filepath.EvalSymlinks(filepath.Join(r.dir, name))
		if err != nil {
			now = ""
		}
		if now != target {
			w.classifyChild(r, name, true)
		}
	}
}
