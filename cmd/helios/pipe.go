package main

import (
	"errors"
	"io"
	"sync"
)

// exitPipe is the status of a command whose reader went away (`helios …
// | head -1`): 128+SIGPIPE, what a shell reports for a writer killed by
// SIGPIPE, so pipelines with pipefail read it the usual way.
const exitPipe = 141

// errStdoutClosed is the cause of a command's context cancelled because
// nothing reads its output any more.
var errStdoutClosed = errors.New("stdout closed")

// outWriter is the commands' stdout. The first failed write (EPIPE when
// the reader is gone) ends the command: onFail cancels its context, so a
// long-running command (run, skills watch) stops instead of computing
// output no one reads, and every later write fails at once, without a
// system call and without a message per write.
type outWriter struct {
	w      io.Writer
	onFail func()

	mu  sync.Mutex
	err error
}

func (o *outWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
		o.onFail()
	}
	return n, err
}

// failed returns the first write error, if any.
func (o *outWriter) failed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}
