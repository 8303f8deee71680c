package workfs

import (
	"io/fs"
	"os"
)

// Open opens the file at path for reading, following symlinks, which must
// stay inside. It never blocks on a FIFO or a device: the file is opened
// non-blocking, so a caller can check what it got (f.Stat) before reading.
// Readers that bound their reads (skill discovery reads only a file's
// frontmatter) use it instead of ReadFile.
func (f *FS) Open(path string) (fs.File, error) {
	t, err := f.check(path, true)
	if err != nil {
		return nil, f.opErr("open", path, err)
	}
	file, err := f.root.OpenFile(t.real, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, f.opErr("open", path, err)
	}
	return file, nil
}
