package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Protects: the environment rule in isolation: the allowlist and LC_*,
// passed names, set values winning over passed ones, the extra entries
// (TMPDIR) winning over everything, and neither a denied name nor HELIOS_*
// getting through by any route.
func TestEnviron(t *testing.T) {
	kernel := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "TMPDIR=/tmp", "SECRET=s", "KEY=k", "HELIOS_X=h", "PASSED=p", "OVER=kernel", "NOEQUALS"}
	got := environ(kernel, []string{"PASSED", "KEY", "HELIOS_X", "OVER"}, []string{"OVER=set", "KEY=again", "HELIOS_Y=1", "NEW=n"}, []string{"KEY"}, "TMPDIR=/session")
	assert.Equal(t, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "TMPDIR=/session", "PASSED=p", "OVER=set", "NEW=n"}, got)
}

// Protects: the report warns when the writable paths hold the home
// directory.
func TestWidePaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	assert.Len(t, widePaths([]string{home}), 1)
	assert.Len(t, widePaths([]string{"/"}), 1)
	assert.Empty(t, widePaths([]string{home + "/project", t.TempDir()}))
}
