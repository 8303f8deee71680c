package skillfs

import (
	"io/fs"
	"os"
)

// FS is what a skills root is read through. Paths are absolute. Stat follows
// symlinks. The user-level source uses OSFS; project skills use the guarded
// work-dir port, which refuses anything that resolves outside the work dir.
type FS interface {
	ReadDir(name string) ([]fs.DirEntry, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	// Open opens a file for reading, following symlinks. It must not block
	// on a FIFO or a device (open non-blocking): the reader checks that it
	// got a regular file before reading, and reads only as much as it needs
	// (a frontmatter, a bounded body).
	Open(name string) (fs.File, error)
}

// OSFS reads the local file system directly.
type OSFS struct{}

// ReadDir is os.ReadDir.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Stat is os.Stat.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// Lstat is os.Lstat.
func (OSFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// Open opens a file for reading without blocking on a FIFO or a device.
func (OSFS) Open(name string) (fs.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err // never a nil *os.File inside fs.File
	}
	return f, nil
}

// ReadFile reads a whole file (not part of FS: skills never read unbounded).
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }
