package skillsfloor

import (
	"fmt"
	"path/filepath"
	"syscall"
)

// rootDir is the root held open, each file opened relative to it with the
// bare system calls: openat, read, close. os.Open would add four fcntl calls
// and an epoll_ctl a file (it tries to make the file pollable), which is the
// runtime's cost, not the I/O's: on a machine where system calls are dear
// that doubled the floor.
type rootDir struct {
	path string
	fd   int
}

func openRoot(path string) (rootDir, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return rootDir{}, fmt.Errorf("open %s: %w", path, err)
	}
	return rootDir{path: path, fd: fd}, nil
}

func (d rootDir) close() { syscall.Close(d.fd) }

// readHead opens rel, reads one buffer of it and closes it.
func (d rootDir) readHead(rel string, buf []byte) error {
	fd, err := syscall.Openat(d.fd, rel, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Join(d.path, rel), err)
	}
	_, err = syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(d.path, rel), err)
	}
	return nil
}
