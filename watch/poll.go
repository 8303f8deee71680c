package watch

import (
	"io/fs"
	"os"
	"path/filepath"
)

// fileID is a file's identity: device and inode.
type fileID struct{ dev, ino uint64 }

func (id fileID) zero() bool { return id == fileID{} }

// stamp is what one stat says about a file, for comparison.
type stamp struct {
	exists bool
	mode   fs.FileMode
	size   int64
	mtime  int64
	id     fileID
}

// stampOf stamps fi. A directory's size and mtime are left out: they change
// with anything created inside it, and deeper resources must not count.
func stampOf(fi fs.FileInfo) stamp {
	st := stamp{exists: true, mode: fi.Mode(), id: idOf(fi)}
	if !fi.IsDir() {
		st.size, st.mtime = fi.Size(), fi.ModTime().UnixNano()
	}
	return st
}

func statStamp(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stampOf(fi)
}

// entryFP is what a root child looks like, as far as a skill catalog cares.
type entryFP struct {
	self       stamp // the child itself (not following a symlink)
	target     stamp // a followed symlink's target
	skill      stamp // a bundle's SKILL.md
	skillLower stamp // a bundle's skill.md
}

// isEntry reports whether the child can be a skill: a directory, a
// symlink, or a flat .md file.
func (fp entryFP) isEntry(name string) bool {
	m := fp.self.mode
	return fp.self.exists && (m.IsDir() || m&fs.ModeSymlink != 0 || (m.IsRegular() && isMarkdown(name)))
}

// observeEntry stamps root child path; with follow, through a symlink.
func observeEntry(path string, follow bool) entryFP {
	var fp entryFP
	fi, err := os.Lstat(path)
	if err != nil {
		return fp
	}
	fp.self = stampOf(fi)
	if fi.Mode()&fs.ModeSymlink != 0 {
		if !follow {
			return fp
		}
		if fi, err = os.Stat(path); err != nil {
			return fp
		}
		fp.target = stampOf(fi)
	}
	if fi.IsDir() {
		fp.skill = statStamp(filepath.Join(path, skillFiles[0]))
		fp.skillLower = statStamp(filepath.Join(path, skillFiles[1]))
	}
	return fp
}

// pollRoot is one Poll-mode observation of r: the root, its children and
// each bundle's skill file, compared with the last one. The first
// observation is the baseline and reports nothing.
func (w *Watcher) pollRoot(r *rootState) {
	fi, err := os.Stat(r.path)
	if err != nil && !isMissing(err) {
		w.fail(r, "stat the root", err)
		return
	}
	present := err == nil && fi.IsDir()
	var id fileID
	var children map[string]entryFP
	if present {
		id = idOf(fi)
		children, err = w.observeChildren(r.path)
		switch {
		case isMissing(err):
			present, id, children = false, fileID{}, nil
		case err != nil:
			w.fail(r, "list the root", err)
			return
		}
	}
	r.failed = false
	if r.polled {
		switch {
		case present != r.present || id != r.pollID:
			r.sub.noteRescan()
		case present:
			for name, fp := range children {
				if old, ok := r.children[name]; !ok || old != fp {
					r.sub.noteEntry(r, name)
				}
			}
			for name := range r.children {
				if _, ok := children[name]; !ok {
					r.sub.noteEntry(r, name)
				}
			}
		}
	}
	r.polled, r.present, r.pollID, r.children = true, present, id, children
}

func (w *Watcher) observeChildren(dir string) (map[string]entryFP, error) {
	list, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]entryFP, len(list))
	for _, e := range list {
		name := e.Name()
		if ignoredName(name) {
			continue
		}
		if fp := observeEntry(filepath.Join(dir, name), w.cfg.FollowSymlinks); fp.isEntry(name) {
			out[name] = fp
		}
	}
	return out, nil
}
