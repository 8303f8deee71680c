//go:build !linux

package skillsfloor

import (
	"io"
	"os"
	"path/filepath"
)

// rootDir is the root; each file is opened by its whole path.
type rootDir struct{ path string }

func openRoot(path string) (rootDir, error) { return rootDir{path}, nil }

func (rootDir) close() {}

// readHead opens rel, reads one buffer of it and closes it.
func (d rootDir) readHead(rel string, buf []byte) error {
	f, err := os.Open(filepath.Join(d.path, rel))
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Read(buf); err != nil && err != io.EOF {
		return err
	}
	return nil
}
