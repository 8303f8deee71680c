package skillfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// transientErrnos are the errors a later read can heal: an interrupted or
// would-block call, descriptor or memory exhaustion, an I/O or network file
// system hiccup, a busy file. Everything else — a symlink loop, a name too
// long, a path through a file, an invalid argument, a refused permission, a
// path outside the work dir — stays the same however often it is retried.
var transientErrnos = []error{
	syscall.EINTR, syscall.EAGAIN, syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM,
	syscall.EIO, syscall.ESTALE, syscall.ETIMEDOUT, syscall.EBUSY,
}

// errVanished marks an entry that was listed but was gone when read: the
// next read sees the root as it is now.
var errVanished = errors.New("vanished while being read")

// isTransient reports whether an error reading a skills root can heal on a
// later read: EINTR, EAGAIN, EMFILE, ENFILE, ENOMEM, EIO, ESTALE, ETIMEDOUT,
// EBUSY, a timeout, or an entry that vanished mid-read. A transient error
// makes the observation incomplete (it is never published as the catalog);
// any other error costs only its entry, skipped with a warning, and the
// catalog stays complete.
func isTransient(err error) bool {
	if err == nil {
		return false
	}
	for _, e := range transientErrnos {
		if errors.Is(err, e) {
			return true
		}
	}
	return errors.Is(err, errVanished) || errors.Is(err, os.ErrDeadlineExceeded)
}

// repeatLimit is how many consecutive reads may fail identically on the same
// unchanged entry before the error is taken as permanent: a "transient"
// error that never heals must not freeze the catalog either.
const repeatLimit = 3

// errRecord is the last transient error an entry (or a root) gave.
type errRecord struct {
	msg   string
	stamp entryStamp
	count int
}

// entryStamp is what an entry looked like when it failed; a different stamp
// means the entry changed, and its count of repeats starts over.
type entryStamp struct {
	mode  uint32
	size  int64
	mtime int64
	err   string
}

func stampOf(fsys FS, path string) entryStamp {
	fi, err := fsys.Lstat(path)
	if err != nil {
		return entryStamp{err: err.Error()}
	}
	return entryStamp{mode: uint32(fi.Mode()), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// settle applies the repeat rule to an entry's (or a root's) read: a
// transient error seen identically on the unchanged entry for repeatLimit
// consecutive reads is taken as permanent. prev holds the earlier records.
func (d *DirSource) settle(path string, st *entryState, prev map[string]errRecord) {
	if st.transient == "" {
		delete(d.errs, path)
		return
	}
	stamp := stampOf(d.FS, path)
	rec, ok := prev[path]
	if ok && rec.msg == st.transient && rec.stamp == stamp {
		rec.count++
	} else {
		rec = errRecord{msg: st.transient, stamp: stamp, count: 1}
	}
	if d.errs == nil {
		d.errs = map[string]errRecord{}
	}
	d.errs[path] = rec
	if rec.count >= repeatLimit {
		st.incomplete = false
		if n := len(st.warnings); n > 0 {
			st.warnings[n-1].Message += fmt.Sprintf(" (the same error %d reads in a row: taken as permanent until this entry changes)", rec.count)
		}
	}
}

// forgetErrors drops the repeat records of a changed entry of every root.
func (d *DirSource) forgetErrors(name string) {
	for _, root := range d.Roots {
		if dir, err := filepath.Abs(root); err == nil {
			delete(d.errs, filepath.Join(dir, name))
		}
	}
}
