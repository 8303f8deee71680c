package main

import (
	"bytes"
	"context"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

// failing is a stdout whose reader is gone.
type failing struct {
	err    error
	writes int
}

func (f *failing) Write([]byte) (int, error) {
	f.writes++
	return 0, f.err
}

// A closed stdout ends a command with 141 and nothing on stderr; another
// write error with one line naming it.
func TestClosedStdout(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{syscall.EPIPE, exitPipe, ""},
		{syscall.EIO, exitFail, "helios: write output: input/output error\n"},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			out := &failing{err: tc.err}
			var stderr bytes.Buffer
			code := run(context.Background(), []string{"--work-dir", t.TempDir(), "hooks", "describe"}, out, &stderr)
			assert.Equal(t, tc.code, code)
			assert.Equal(t, tc.stderr, stderr.String())
			assert.Equal(t, 1, out.writes, "writes after the first failure reach the stdout")
		})
	}
}

// The first failed write cancels the command once; later writes fail
// without a system call.
func TestOutWriterStopsAtFirstFailure(t *testing.T) {
	f := &failing{err: syscall.EPIPE}
	cancels := 0
	w := &outWriter{w: f, onFail: func() { cancels++ }}
	for range 3 {
		_, err := w.Write([]byte("line\n"))
		assert.ErrorIs(t, err, syscall.EPIPE)
	}
	assert.Equal(t, 1, f.writes)
	assert.Equal(t, 1, cancels)
	assert.ErrorIs(t, w.failed(), syscall.EPIPE)
}
