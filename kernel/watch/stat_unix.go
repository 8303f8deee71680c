//go:build unix

package watch

import (
	"io/fs"
	"syscall"
)

// idOf returns the device and inode of fi.
func idOf(fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)} //nolint:unconvert // int32 on some systems
	}
	return fileID{}
}
