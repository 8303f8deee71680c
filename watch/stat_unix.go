//go:build unix

package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// idOf returns the device and inode of fi.
func idOf(fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)} //nolint:unconvert // int32 on some systems
	}
	return fileID{}
}

// identify returns the identity of the directory at path (symlinks
// followed). With parent, the open directory path is a child of, only the
// last component is resolved: arming a root of 10,000 bundles identifies
// each, and need not walk each whole path again.
func identify(parent *os.File, path string) (fileID, error) {
	if parent == nil {
		fi, err := os.Stat(path)
		if err != nil {
			return fileID{}, err
		}
		return idOf(fi), nil
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(int(parent.Fd()), filepath.Base(path), &st, 0)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fileID{}, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil //nolint:unconvert // int32 on some systems
	}
}
