//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// watchClosed calls closed when w is a pipe or socket whose reader went
// away, and returns a function that stops watching. A command that
// writes only when something happens (skills watch) learns this way that
// its output is no longer read, without waiting for its next write.
func watchClosed(w io.Writer, closed func()) (stop func()) {
	f, ok := w.(*os.File)
	if !ok {
		return func() {}
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || (st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK) {
		return func() {}
	}
	// poll reports POLLERR on a pipe whose read end is closed (POLLHUP on a
	// socket) even when no event is asked for; the second pipe wakes it when
	// the command ends first.
	r, wake, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	fd := int(f.Fd())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.Close()
		fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(r.Fd()), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err == nil && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				closed()
			}
			return
		}
	}()
	return func() {
		wake.Close()
		<-done
	}
}
