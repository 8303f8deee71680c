// Package pluginprobe is the example plugin's debug protocol, written once
// for the plugin that speaks it and the tests that listen: when the
// variable EnvVar names a folder, the plugin appends "<what> <pid>" lines to
// calls.log there (at start, and for every hook call), and its
// context:prepare handler hangs while a file named stall exists there.
package pluginprobe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvVar turns the probe on in the plugin.
const EnvVar = "RELEASE_NOTES_DEBUG_DIR"

// Dir is a probe folder; "" is off.
type Dir string

// FromEnv is the plugin's probe folder, "" when the variable is unset.
func FromEnv() Dir { return Dir(os.Getenv(EnvVar)) }

// Env is the environment entry that hands d to a plugin.
func (d Dir) Env() string { return EnvVar + "=" + string(d) }

var traceMu sync.Mutex // one calls.log line at a time within a process

// Trace appends "<what> <pid>" to calls.log; errors are ignored (a probe
// must never change what the plugin does).
func (d Dir) Trace(what string) {
	if d == "" {
		return
	}
	traceMu.Lock()
	defer traceMu.Unlock()
	f, err := os.OpenFile(filepath.Join(string(d), "calls.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %d\n", what, os.Getpid())
	f.Close()
}

// Stall waits while the stall file exists, or until ctx is done.
func (d Dir) Stall(ctx context.Context) error {
	if d == "" {
		return nil
	}
	for {
		if _, err := os.Stat(filepath.Join(string(d), "stall")); err != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Calls returns the pid of each calls.log line for what, in order.
func (d Dir) Calls(what string) ([]int, error) {
	data, err := os.ReadFile(filepath.Join(string(d), "calls.log"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var pids []int
	for line := range strings.Lines(string(data)) {
		w, p, _ := strings.Cut(strings.TrimSpace(line), " ")
		if w == what {
			pid, _ := strconv.Atoi(p)
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// SetStall creates or removes the stall file.
func (d Dir) SetStall(on bool) error {
	f := filepath.Join(string(d), "stall")
	if on {
		return os.WriteFile(f, nil, 0o644)
	}
	return os.Remove(f)
}
