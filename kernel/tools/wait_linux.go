//go:build linux

package tools

import (
	"syscall"
	"unsafe"
)

// waitExited blocks until the process pid has exited, without reaping it
// (WNOWAIT), and reports whether it could: the zombie keeps its pid, and so
// its process group's id, from being reused until os/exec reaps it. This is
// what package os does itself before it reaps (os/wait_waitid.go).
func waitExited(pid int) bool {
	const pPID = 1      // P_PID: idtype_t of waitid(2)
	var info [16]uint64 // siginfo_t: 128 bytes
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return errno == 0
		}
	}
}
