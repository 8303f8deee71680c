package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: a program that lacks the entry point (here /bin/true stands for
// one that never calls Main) cannot run a command unconfined: Start fails,
// saying what the program must do.
func TestMissingEntryPointFailsClosed(t *testing.T) {
	saved := selfExe
	selfExe = "/bin/true"
	defer func() { selfExe = saved }()
	s, err := New(Config{})
	require.NoError(t, err)
	defer s.Close()
	cmd, _, err := s.Command("s", t.TempDir(), "sh", "-c", "echo ran")
	require.NoError(t, err)
	err = cmd.Start()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must call sandbox.Main")
}
