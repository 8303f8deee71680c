//go:build unix

package skillfs

import (
	"io/fs"
	"syscall"

	"github.com/helios-agents/helios/kernel/skills"
)

// openNonblock keeps an open of a FIFO or a device from blocking.
const openNonblock = syscall.O_NONBLOCK

// fileID is the device and inode of what fi describes, when it came from
// the operating system.
func fileID(fi fs.FileInfo) skills.FileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return skills.FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)} //nolint:unconvert // their types differ by platform
	}
	return skills.FileID{}
}
