//go:build !unix

package watch

import (
	"io/fs"
	"os"
)

// idOf has no inode to return here; identity checks are skipped.
func idOf(fs.FileInfo) fileID { return fileID{} }

// identify stats path; there is no identity to return here.
func identify(_ *os.File, path string) (fileID, error) {
	_, err := os.Stat(path)
	return fileID{}, err
}
