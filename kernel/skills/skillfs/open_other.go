//go:build !unix

package skillfs

import (
	"io/fs"

	"github.com/helios-agents/helios/kernel/skills"
)

const openNonblock = 0

// fileID is unknown here: skills reached by two paths are told apart by
// path only.
func fileID(fs.FileInfo) skills.FileID { return skills.FileID{} }
