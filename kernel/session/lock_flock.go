//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"errors"
	"os"
	"syscall"
)

// errBusy means the session is open elsewhere: in another process, or
// through another store value in this one.
var errBusy = errors.New("session is open elsewhere (another process?)")

// lockFile takes an exclusive advisory lock on a session file without
// waiting. The lock goes with the file descriptor: closing the file, or the
// process dying, releases it.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errBusy
		default:
			return err
		}
	}
}
