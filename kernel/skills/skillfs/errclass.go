package skillfs

import (
	"errors"
	"os"
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

// IsTransient reports whether an error reading a skills root can heal on a
// later read: EINTR, EAGAIN, EMFILE, ENFILE, ENOMEM, EIO, ESTALE, ETIMEDOUT,
// EBUSY, a timeout, or an entry that vanished mid-read. A transient error
// makes the observation incomplete (it is never published as the catalog);
// any other error costs only its entry, skipped with a warning, and the
// catalog stays complete.
func IsTransient(err error) bool {
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
