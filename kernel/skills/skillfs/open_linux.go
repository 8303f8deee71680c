//go:build linux

package skillfs

import (
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/helios-agents/helios/kernel/skills"
)

// rawRoot opens the skill files of one root of the local file system with
// plain system calls, relative to the root's directory: a path walk of two
// names instead of the whole path, and no *os.File (no poller registration,
// no finalizer). Discovery opens thousands of files; this is most of what
// separates it from the I/O floor. Errors are those os.Open, File.Stat and
// File.Read return, so warnings read the same either way.
type rawRoot struct {
	fd     int
	prefix string // the root's absolute path and a separator
}

// rootOpener returns the opener for the files under dir, an absolute and
// clean path: a rawRoot for OSFS, when the root's directory can be opened;
// otherwise the FS itself (which reports whatever went wrong).
func rootOpener(fsys FS, dir string) (opener, func()) {
	if _, ok := fsys.(OSFS); !ok {
		return fsOpener{fsys}, func() {}
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		return fsOpener{fsys}, func() {}
	}
	r := &rawRoot{fd: fd, prefix: strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator)}
	return r, func() { syscall.Close(r.fd) }
}

func (r *rawRoot) openRegular(file string) (io.ReadCloser, skills.FileID, error) {
	rel, ok := strings.CutPrefix(file, r.prefix)
	if !ok || rel == "" {
		return fsOpener{OSFS{}}.openRegular(file)
	}
	const flags = syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	fd, err := syscall.Openat(r.fd, rel, flags, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Openat(r.fd, rel, flags, 0)
	}
	if err != nil {
		return nil, skills.FileID{}, &fs.PathError{Op: "open", Path: file, Err: err}
	}
	var st syscall.Stat_t
	err = syscall.Fstat(fd, &st)
	for err == syscall.EINTR {
		err = syscall.Fstat(fd, &st)
	}
	if err != nil {
		syscall.Close(fd)
		return nil, skills.FileID{}, &fs.PathError{Op: "stat", Path: file, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, skills.FileID{}, errNotRegular
	}
	return &rawFile{fd: fd, name: file}, skills.FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, nil
}

// rawFile is an open skill file of a rawRoot.
type rawFile struct {
	fd   int
	name string
}

func (f *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := syscall.Read(f.fd, p)
	for err == syscall.EINTR {
		n, err = syscall.Read(f.fd, p)
	}
	switch {
	case err != nil:
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (f *rawFile) Close() error {
	if err := syscall.Close(f.fd); err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}
