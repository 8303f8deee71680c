package skills

import (
	"crypto/sha256"
	"encoding/hex"
)

// The per-skill limits of the Agent Skills extension for MCP (SEP-2640): a
// skill holds at most MaxFiles files of at most MaxBytes together. The MCP
// server serves no more than that of a skill and the installer refuses a
// skill past them.
const (
	MaxFiles = 512
	MaxBytes = 16 << 20 // 16 MiB, summed over a skill's files
)

// FileDigest is the digest of one file of a skill, in the form the MCP skills
// extension and the install lockfile share: "sha256:" and 64 lowercase hex
// digits of the file's bytes.
func FileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
