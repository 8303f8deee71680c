//go:build !linux

package workfs

import (
	"io/fs"
	"path/filepath"
)

// write writes the checked target t through os.Root, which keeps it inside
// the work dir; without openat2 it cannot refuse a symlink swapped in during
// the call, so only the walk refuses symlinks here.
func (f *FS) write(path string, t target, data []byte, perm fs.FileMode) error {
	if t.rel != t.real {
		return &SymlinkError{Path: path, Link: f.firstLink(t.rel), Dir: f.dir}
	}
	if parent := filepath.Dir(t.real); parent != "." {
		if err := f.root.MkdirAll(parent, 0o755); err != nil {
			return f.opErr("write", path, err)
		}
	}
	if err := f.root.WriteFile(t.real, data, perm); err != nil {
		return f.opErr("write", path, err)
	}
	return nil
}
