// Package proctest holds test helpers about processes, shared by the tests
// that prove no plugin or tool process outlives its owner.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"
)

// Alive reports whether pid is a running process; a zombie is not (the
// container's init may never reap it).
func Alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] != 'Z' && data[i+2] != 'X'
}

// Eventually polls cond until it holds, failing the test after d. It is for
// conditions no signal announces (a process disappearing).
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
