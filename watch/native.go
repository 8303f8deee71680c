package watch

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// rootState is one root of one Subscription. Guarded by Watcher.mu.
type rootState struct {
	sub  *Subscription
	path string // as given, cleaned

	failed bool // a watch or a read failed; the periodic check re-arms the root
	// denied marks a failure for lack of permission. It is retried like any
	// failure but does not make the Subscription unhealthy: the folder
	// source reports an unreadable root as a permanent, complete absence,
	// and the watcher must agree, or one unreadable root would keep every
	// catalog incomplete (never cached, never published) for good.
	denied bool
	warned bool // the failure was logged; retries that fail again are not
	// armed, while WatchEach arms the root, is told each child once its
	// watch is in place.
	armed func(name string, mode fs.FileMode)

	// Native mode.
	dir     string               // canonical (symlink-free) path while watched directly
	id      fileID               // identity of the root directory while watched
	self    *interest            // the root's own watch while it exists
	anchor  *interest            // the nearest existing ancestor's watch while it does not
	entries map[string]*interest // root child → the watch on its skill file's directory
	known   map[string]bool      // root children that are directories or symlinks
	links   map[string]string    // followed symlink children → their canonical target, "" if dangling

	// Poll mode.
	polled   bool // a baseline was taken
	present  bool
	pollID   fileID
	children map[string]entryFP
}

// observedDir is the directory entries are stat-ed in.
func (r *rootState) observedDir() string {
	if r.dir != "" {
		return r.dir
	}
	return r.path
}

// kind is what a watched directory means to one root.
type kind uint8

const (
	kindRoot   kind = iota // the root: its children are entries
	kindEntry              // holds an entry's skill file: a bundle, or a followed link's target
	kindAnchor             // the nearest existing ancestor of a missing root
)

// interest is one root's reason to watch a directory. A directory is watched
// once in fsnotify however many interests it has.
type interest struct {
	kind  kind
	root  *rootState
	path  string   // canonical directory
	name  string   // kindEntry: the root child; kindAnchor: the next missing segment
	files []string // kindEntry: the names in path that are the skill file
	live  bool
}

// watched is one directory in the fsnotify instance and who wants it.
type watched struct {
	interests []*interest
	id        fileID // the directory's identity when the watch was added
}

var skillFiles = []string{"SKILL.md", "skill.md"}

// addInterest watches in.path, once for all its interests. parent, when
// not nil, is the open directory in.path is a child of (see identify).
func (w *Watcher) addInterest(in *interest, parent *os.File) error {
	ws := w.paths[in.path]
	if ws == nil {
		id, err := identify(parent, in.path)
		if err != nil {
			return err
		}
		if old, ok := w.ids[id]; ok && old != in.path && !id.zero() {
			if ofi, err := os.Stat(old); err != nil || idOf(ofi) != id {
				// The directory moved from old to here and the move's events
				// are not processed yet. Drop old's watch first: fsnotify
				// would hand back old's watch for this path, and remove it
				// when the move event arrives.
				w.lostQ = append(w.lostQ, w.dropPath(old)...)
			}
		}
		if err := w.add(in.path); err != nil {
			return err
		}
		ws = &watched{id: id}
		w.paths[in.path] = ws
		if !id.zero() {
			w.ids[id] = in.path
		}
	}
	ws.interests = append(ws.interests, in)
	in.live = true
	return nil
}

// removeInterest drops in, and the directory's watch with its last interest.
func (w *Watcher) removeInterest(in *interest) {
	if in == nil || !in.live {
		return
	}
	in.live = false
	ws := w.paths[in.path]
	if ws == nil {
		return
	}
	if i := slices.Index(ws.interests, in); i >= 0 {
		ws.interests = slices.Delete(ws.interests, i, i+1)
	}
	if len(ws.interests) == 0 {
		w.forget(in.path, ws)
	}
}

// dropPath forgets the watch of a directory that was removed, renamed or
// replaced, with all its interests, and returns them to be re-resolved. The
// whole watch must go, not just one interest: re-adding a path that another
// interest still holds would keep the dead watch.
func (w *Watcher) dropPath(path string) []*interest {
	ws := w.paths[path]
	if ws == nil {
		return nil
	}
	w.forget(path, ws)
	for _, in := range ws.interests {
		in.live = false
	}
	return ws.interests
}

func (w *Watcher) forget(path string, ws *watched) {
	delete(w.paths, path)
	if w.ids[ws.id] == path {
		delete(w.ids, ws.id)
	}
	_ = w.remove(path) // already gone with its directory: fine
}

// settle re-resolves the interests that lost their watch while something
// else was being armed. Called at the end of every operation that arms.
func (w *Watcher) settle() {
	for range maxResolve * 64 {
		if len(w.lostQ) == 0 {
			return
		}
		in := w.lostQ[0]
		w.lostQ = w.lostQ[1:]
		w.lost(in)
	}
	// Something keeps moving under us: let the periodic check start over.
	for _, in := range w.lostQ {
		if !in.root.failed && in.root.sub.status == statusActive {
			w.fail(in.root, "re-arm a moved directory", errors.New("too many moves at once"))
		}
	}
	w.lostQ = nil
}

// disarmRoot drops every watch of r.
func (w *Watcher) disarmRoot(r *rootState) {
	w.removeInterest(r.self)
	w.removeInterest(r.anchor)
	for _, in := range r.entries {
		w.removeInterest(in)
	}
	r.self, r.anchor, r.entries, r.known, r.links = nil, nil, nil, nil, nil
	r.dir, r.id = "", fileID{}
}

// fail marks r as not reliably observed; the periodic check re-arms it.
func (w *Watcher) fail(r *rootState, what string, err error) {
	level := slog.LevelWarn
	if r.warned {
		level = slog.LevelDebug // the retry failed again: said already
	}
	w.log.Log(context.Background(), level, "observe skills root: failed; will retry", "root", r.path, "what", what, "err", err)
	r.failed, r.warned = true, true
	r.denied = errors.Is(err, fs.ErrPermission)
	w.updateHealth(r.sub)
}

// maxResolve bounds resolveRoot's loop when the path keeps changing under it.
const maxResolve = 16

// resolveRoot makes r watched as it is now: the root directly when it
// exists, else its nearest existing ancestor for the next missing segment.
// After each watch is added the next level is looked at again, because it
// may have appeared before the watch was in place. With report, a root that
// appears or disappears is reported as Rescan.
func (w *Watcher) resolveRoot(r *rootState, report bool) {
	for range maxResolve {
		fi, err := os.Stat(r.path)
		if err == nil && fi.IsDir() {
			if r.self != nil {
				return
			}
			switch ok, err := w.armPresent(r, fi); {
			case err != nil:
				w.fail(r, "watch the root", err)
				return
			case !ok:
				continue // gone again while arming
			}
			if report {
				r.sub.noteRescan()
			}
			return
		}
		if err != nil && !isMissing(err) {
			w.fail(r, "stat the root", err)
			return
		}
		if r.self != nil {
			w.disarmRoot(r)
			if report {
				r.sub.noteRescan()
			}
		}
		anc, next, err := nearestDir(r.path)
		if err != nil {
			w.fail(r, "find an existing ancestor", err)
			return
		}
		canon, err := filepath.EvalSymlinks(anc)
		if err != nil {
			if isMissing(err) {
				continue
			}
			w.fail(r, "resolve an ancestor", err)
			return
		}
		if a := r.anchor; a != nil && a.live && a.path == canon && a.name == next {
			return
		}
		w.removeInterest(r.anchor)
		r.anchor = &interest{kind: kindAnchor, root: r, path: canon, name: next}
		if err := w.addInterest(r.anchor, nil); err != nil {
			r.anchor = nil
			if isMissing(err) {
				continue
			}
			w.fail(r, "watch an ancestor", err)
			return
		}
		w.log.Debug("observe skills root: missing; watching its ancestor", "root", r.path, "ancestor", canon, "next", next)
		if fi, err := os.Stat(filepath.Join(anc, next)); err != nil || !fi.IsDir() {
			return
		}
	}
	w.fail(r, "resolve the root", errors.New("the path kept changing"))
}

// armPresent watches the existing root directory and its entries. ok is
// false when the root vanished meanwhile.
func (w *Watcher) armPresent(r *rootState, fi fs.FileInfo) (ok bool, err error) {
	canon, err := filepath.EvalSymlinks(r.path)
	if err != nil {
		if isMissing(err) {
			return false, nil
		}
		return false, err
	}
	self := &interest{kind: kindRoot, root: r, path: canon}
	if err := w.addInterest(self, nil); err != nil {
		if isMissing(err) {
			return false, nil
		}
		return false, err
	}
	w.removeInterest(r.anchor)
	r.anchor = nil
	r.self, r.dir, r.id = self, canon, idOf(fi)
	// Listed, and each child identified, through one open descriptor of the
	// root (see identify). The listing need not be sorted.
	var children []fs.DirEntry
	dir, err := os.Open(canon)
	if err == nil {
		defer dir.Close()
		children, err = dir.ReadDir(-1)
	}
	if err != nil {
		w.disarmRoot(r)
		if isMissing(err) {
			return false, nil
		}
		return false, err
	}
	r.entries, r.known, r.links = make(map[string]*interest, len(children)), make(map[string]bool, len(children)), map[string]string{}
	for _, c := range children {
		if !ignoredName(c.Name()) {
			// The type the listing gave, not a stat of each child: a
			// child replaced since is reported by the root's watch,
			// which is in place already.
			w.classifyAs(r, c.Name(), c.Type(), false, dir)
			if r.armed != nil {
				r.armed(c.Name(), c.Type())
			}
		}
	}
	return true, nil
}

// classifyChild looks at root child name as it is now and watches what it
// needs: a bundle's directory, a followed link's target. With report, the
// entry is noted as changed.
func (w *Watcher) classifyChild(r *rootState, name string, report bool) {
	fi, err := os.Lstat(filepath.Join(r.dir, name))
	if err != nil {
		w.dropEntry(r, name)
		delete(r.known, name)
		delete(r.links, name)
		// Gone again before we looked (or unreadable): a file cannot be
		// told from a directory now, and a directory the provider saw in
		// between would be missed if its removal went unreported.
		if report {
			r.sub.noteEntry(r, name)
		}
		return
	}
	w.classifyAs(r, name, fi.Mode().Type(), report, nil)
}

// classifyAs is classifyChild for a child whose type is known. root, when
// not nil, is r.dir open (see identify).
//
// The entry is reported only once the watch it needs is in place: the
// callback does not wait for the Watcher's lock, so a report made first
// could have the provider read the entry, and a writer change it again,
// before the watch existed; that change would never be reported and the
// catalog would keep the older text for good.
func (w *Watcher) classifyAs(r *rootState, name string, mode fs.FileMode, report bool, root *os.File) {
	full := filepath.Join(r.dir, name)
	switch {
	case mode&fs.ModeSymlink != 0:
		r.known[name] = true
		if !w.cfg.FollowSymlinks {
			w.dropEntry(r, name)
		} else {
			w.followLink(r, name)
		}
	case mode.IsDir():
		r.known[name] = true
		delete(r.links, name)
		w.ensureEntry(r, name, full, skillFiles, root)
	default:
		w.dropEntry(r, name)
		delete(r.known, name)
		delete(r.links, name)
		if !mode.IsRegular() || !isMarkdown(name) {
			return
		}
	}
	if report {
		r.sub.noteEntry(r, name)
	}
}

// followLink watches what symlink child name points to: a directory for its
// skill file, a flat .md file through its directory (an editor may replace
// the file by renaming over it).
func (w *Watcher) followLink(r *rootState, name string) {
	target, err := filepath.EvalSymlinks(filepath.Join(r.dir, name))
	var fi fs.FileInfo
	if err == nil {
		fi, err = os.Stat(target)
	}
	if err != nil {
		r.links[name] = "" // dangling: the periodic check looks again
		w.dropEntry(r, name)
		return
	}
	r.links[name] = target
	switch {
	case fi.IsDir():
		w.ensureEntry(r, name, target, skillFiles, nil)
	case fi.Mode().IsRegular() && isMarkdown(name):
		w.ensureEntry(r, name, filepath.Dir(target), []string{filepath.Base(target)}, nil)
	default:
		w.dropEntry(r, name)
	}
}

// ensureEntry watches dir for entry name's skill files. parent, when not
// nil, is the open directory dir is a child of.
func (w *Watcher) ensureEntry(r *rootState, name, dir string, files []string, parent *os.File) {
	if in := r.entries[name]; in != nil && in.live && in.path == dir && slices.Equal(in.files, files) {
		return
	}
	w.dropEntry(r, name)
	in := &interest{kind: kindEntry, root: r, path: dir, name: name, files: files}
	if err := w.addInterest(in, parent); err != nil {
		if isMissing(err) {
			return // gone already; its removal is reported by the root's watch
		}
		w.fail(r, "watch a skill directory", err)
		return
	}
	r.entries[name] = in
}

func (w *Watcher) dropEntry(r *rootState, name string) {
	if in := r.entries[name]; in != nil {
		w.removeInterest(in)
		delete(r.entries, name)
	}
}

// isMissing reports an error that means "not there": ENOENT, or ENOTDIR
// (a file where a directory of the path should be).
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// nearestDir returns the nearest existing directory above path and the
// segment below it that leads to path.
func nearestDir(path string) (dir, next string, err error) {
	child := path
	for {
		parent := filepath.Dir(child)
		if parent == child {
			return "", "", errors.New("no existing ancestor")
		}
		fi, err := os.Stat(parent)
		switch {
		case err == nil && fi.IsDir():
			return parent, filepath.Base(child), nil
		case err != nil && !isMissing(err):
			return "", "", err
		}
		child = parent
	}
}
