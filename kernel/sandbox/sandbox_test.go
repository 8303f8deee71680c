package sandbox_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/sandbox"
)

// run runs a shell command through s for session "s1" in dir.
func run(t *testing.T, s *sandbox.Sandbox, dir, command string) (string, error) {
	t.Helper()
	cmd, _, err := s.Command("s1", dir, "sh", "-c", command)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	err = cmd.Wait()
	return out.String(), err
}

func TestConfinedWrites(t *testing.T) {
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	work, outside := t.TempDir(), t.TempDir()
	out, err := run(t, s, work, "echo in > inside.txt && echo $TMPDIR && echo t > $TMPDIR/t && echo x > "+outside+"/x")
	assert.Error(t, err, out)
	assert.Contains(t, out, "Permission denied")
	assert.FileExists(t, filepath.Join(work, "inside.txt"))
	assert.NoFileExists(t, filepath.Join(outside, "x"))
	tmp := s.TempDir("s1")
	assert.True(t, strings.HasPrefix(out, tmp), out)
	_, err = os.Stat(filepath.Join(tmp, "t"))
	assert.NoError(t, err)
}
