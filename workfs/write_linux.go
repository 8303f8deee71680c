//go:build linux

package workfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// writeResolve is how every component of a write target is resolved: never
// above the directory it starts from, and never through a symlink, so a
// folder swapped for a link between the check and the open cannot redirect
// the write.
const writeResolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS

// writeBeneath writes data to rel (clean, relative, lexically inside) by
// opening each directory on the way relative to the one before it with
// openat2 under resolve, creating missing ones, and checks the protected
// paths on what it opened: the parent directory's path as the kernel knows
// it (/proc/self/fd), not the name it was given.
func (f *FS) writeBeneath(path, rel string, data []byte, perm fs.FileMode, resolve uint64) error {
	dirfd, err := f.openParent(path, rel, resolve)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	base := filepath.Base(rel)
	if err := f.protectedAt(path, dirfd, base); err != nil {
		return err
	}
	fd, err := openat2(dirfd, base, &unix.OpenHow{
		Flags:   unix.O_WRONLY | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Mode:    uint64(perm.Perm()),
		Resolve: resolve,
	})
	if err != nil {
		return f.writeErr(path, rel, err)
	}
	file := os.NewFile(uintptr(fd), path)
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return f.opErr("write", path, err)
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("not a regular file (%s)", fi.Mode().Type())}
	}
	if err := file.Truncate(0); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: errors.Unwrap(err)}
	}
	if _, err := file.Write(data); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: errors.Unwrap(err)}
	}
	if err := file.Close(); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: errors.Unwrap(err)}
	}
	return nil
}

// openParent opens the directory rel lies in, one component at a time from
// the work dir, creating what is missing with 0o755 (before umask). A
// protected folder is never created.
func (f *FS) openParent(path, rel string, resolve uint64) (int, error) {
	dirfd, err := unix.Dup(int(f.dirFile.Fd()))
	if err != nil {
		return -1, f.opErr("write", path, err)
	}
	parent := filepath.Dir(rel)
	if parent == "." {
		return dirfd, nil
	}
	how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolve}
	for _, c := range strings.Split(parent, string(filepath.Separator)) {
		next, err := openat2(dirfd, c, how)
		if errors.Is(err, unix.ENOENT) {
			if perr := f.protectedAt(path, dirfd, c); perr != nil {
				unix.Close(dirfd)
				return -1, perr
			}
			if err = unix.Mkdirat(dirfd, c, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openat2(dirfd, c, how)
			}
		}
		unix.Close(dirfd)
		if err != nil {
			return -1, f.writeErr(path, rel, err)
		}
		dirfd = next
	}
	return dirfd, nil
}

// protectedAt refuses name in the directory dirfd when it is a protected
// path of the work dir (or where one leads), judged by where dirfd really is.
func (f *FS) protectedAt(path string, dirfd int, name string) error {
	at, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(dirfd))
	if err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("cannot tell where the opened folder is (/proc/self/fd): %w", err)}
	}
	rel, ok := inside(f.dir, at)
	if !ok {
		return f.escape(path, "the folder opened for it is "+at)
	}
	if p, ok := Protected(filepath.Join(rel, name)); ok {
		return &ProtectedError{Path: path, Protected: p, Dir: f.dir}
	}
	return f.linked(path, filepath.Join(at, name))
}

// openat2 retries on EINTR and EAGAIN (a rename elsewhere on the system can
// make RESOLVE_BENEATH ask for a retry).
func openat2(dirfd int, name string, how *unix.OpenHow) (int, error) {
	for {
		fd, err := unix.Openat2(dirfd, name, how)
		if err != unix.EINTR && err != unix.EAGAIN {
			return fd, err
		}
	}
}

// writeErr names why opening a write target failed: a symlink on the way
// (named when it is still there), a kernel without openat2, or the OS error.
func (f *FS) writeErr(path, rel string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return &SymlinkError{Path: path, Link: f.firstLink(rel), Dir: f.dir}
	case errors.Is(err, unix.EXDEV):
		return f.escape(path, "a symlink on the way points outside (it changed during the call)")
	case errors.Is(err, unix.ENOSYS):
		return &fs.PathError{Op: "write", Path: path, Err: ErrNoOpenat2}
	}
	return &fs.PathError{Op: "write", Path: path, Err: err}
}

// write writes the checked target t through openat2.
func (f *FS) write(path string, t target, data []byte, perm fs.FileMode) error {
	return f.writeBeneath(path, t.rel, data, perm, writeResolve)
}
