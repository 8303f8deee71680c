package workfs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkFSLinkSwappedAfterTheCheck plays the race the walk cannot see: a
// directory that was checked is replaced by a link pointing out before the
// operation runs. os.Root must refuse it, and the refusal must surface as an
// *EscapeError (this also pins the text of os.Root's unexported error, which
// isRootEscape matches).
func TestWorkFSLinkSwappedAfterTheCheck(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	work := filepath.Join(base, "work")
	for _, p := range []string{"work/d/file.txt", "outside/file.txt"} {
		p = filepath.Join(base, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(p), 0o644))
	}
	f, err := New(work)
	require.NoError(t, err)
	defer f.Close()

	ops := []struct {
		name string
		do   func(real string) error
	}{
		{"read", func(real string) error { _, err := f.root.ReadFile(real); return err }},
		{"write", func(real string) error { return f.root.WriteFile(real, []byte("pwned"), 0o644) }},
		{"stat", func(real string) error { _, err := f.root.Stat(real); return err }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			require.NoError(t, os.RemoveAll(filepath.Join(work, "d")))
			require.NoError(t, os.MkdirAll(filepath.Join(work, "d"), 0o755))
			tg, err := f.check("d/file.txt", true)
			require.NoError(t, err, "check")
			// The swap.
			require.NoError(t, os.RemoveAll(filepath.Join(work, "d")))
			require.NoError(t, os.Symlink("../outside", filepath.Join(work, "d")))

			err = f.opErr(op.name, "d/file.txt", op.do(tg.real))

			var esc *EscapeError
			require.ErrorAs(t, err, &esc, "error (), want an *EscapeError")
			require.ErrorIs(t, err, ErrOutsideWorkDir, "error (), want an *EscapeError")
			assert.Equal(t, "d/file.txt", esc.Path, "EscapeError = %+v", esc)
			assert.Contains(t, esc.Reason, "changed during the call", "EscapeError = %+v", esc)
			b, err := os.ReadFile(filepath.Join(base, "outside/file.txt"))
			assert.NoError(t, err, "outside file = %q; want it untouched", b)
			assert.NotContains(t, string(b), "pwned", "outside file = %q; want it untouched", b)
		})
	}
}
