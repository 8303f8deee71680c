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

// Protects: a program that forgot Main learns it when it makes a confining
// sandbox (assembly.Load, tools.New), with what to add, instead of at its
// first command; a sandbox that confines nothing needs no entry point.
func TestNewWithoutMainSaysWhatToAdd(t *testing.T) {
	saved := mainCalled.Load()
	mainCalled.Store(false)
	defer mainCalled.Store(saved)
	for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
		s, err := New(Config{Mode: mode})
		if err == nil {
			s.Close()
		}
		require.ErrorIs(t, err, ErrNoMain, "mode %s", mode)
		assert.Contains(t, err.Error(), "add sandbox.Main() (package github.com/helios-agents/helios/sandbox) as the first statement of main")
	}
	s, err := New(Config{Mode: Off})
	require.NoError(t, err, "mode off starts no child")
	require.NoError(t, s.Close())

	mainCalled.Store(true)
	s, err = New(Config{Mode: WorkspaceWrite})
	require.NoError(t, err)
	require.NoError(t, s.Close())
}
