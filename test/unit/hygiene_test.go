package unit_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// executableMagic are the first bytes of the executable formats Go builds:
// ELF, Mach-O (32/64-bit, both byte orders, fat) and PE ("MZ").
var executableMagic = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	{'M', 'Z'},
}

// isExecutable tells whether head starts with one of executableMagic.
func isExecutable(head []byte) bool {
	for _, m := range executableMagic {
		if bytes.HasPrefix(head, m) {
			return true
		}
	}
	return false
}

// TestNoBuiltBinaryTracked fails when git tracks a built executable: they
// are rebuilt from source by the tests that need them, and one committed
// binary weighs more than the whole history of the code.
func TestNoBuiltBinaryTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not a git checkout: nothing is tracked")
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	require.NoError(t, err, "git ls-files")
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	require.NotEmpty(t, files)
	var binaries []string
	for _, name := range files {
		head, err := readHead(filepath.Join(root, name), 4)
		if err != nil {
			continue // deleted in the work tree, or not a regular file
		}
		if isExecutable(head) {
			binaries = append(binaries, name)
		}
	}
	assert.Empty(t, binaries, "built executables are tracked; remove them (git rm --cached) and ignore them by rule")
}

func TestIsExecutableRecognisesBuiltGoBinaries(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	head, err := readHead(self, 4)
	require.NoError(t, err)
	assert.True(t, isExecutable(head), "the running test binary must read as an executable")
	assert.False(t, isExecutable([]byte("pack")), "a Go source file is not an executable")
	assert.False(t, isExecutable([]byte("#!/u")), "a script is text, not a built binary")
}

// readHead returns up to n first bytes of the regular file at path.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return buf[:k], nil
}
