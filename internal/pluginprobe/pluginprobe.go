// Package pluginprobe is the tests' window into a plugin process, written
// once for the wrapper that speaks it and the tests that listen. The plugin
// itself knows nothing of it: Serve wraps any sdk plugin so that, when the
// variable EnvVar names a folder, it appends "<what> <pid>" lines to
// calls.log there (at start, and for every hook call), and its
// context:prepare handlers hang while a file named stall exists there.
//
// The example plugin's test binary serves its plugin through Serve when a
// kernel starts it (see plugins/examples/release-notes/main_test.go); the
// suites build that binary with `go test -c` and launch it as the plugin.
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

	"github.com/helios-agents/helios/plugins/sdk"
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

// Serve serves p wrapped (see Wrap) with the folder named by EnvVar, after
// tracing "start".
func Serve(p sdk.Plugin) {
	d := FromEnv()
	d.Trace("start")
	sdk.Serve(Wrap(p, d), sdk.Config{})
}

// Wrap returns p with each hook call traced as "<point> <pid>" before the
// handler runs, and each context:prepare handler held while the stall file
// exists (until its call is cancelled): a hung handler on demand. Tools pass
// through. With d off, the wrapper changes nothing.
func Wrap(p sdk.Plugin, d Dir) sdk.Plugin { return wrapped{p, d} }

type wrapped struct {
	p sdk.Plugin
	d Dir
}

func (w wrapped) Hooks() []sdk.Hook {
	hp, ok := w.p.(sdk.HookProvider)
	if !ok {
		return nil
	}
	hs := hp.Hooks()
	out := make([]sdk.Hook, len(hs))
	for i, h := range hs {
		handle := h.Handle
		h.Handle = func(ctx context.Context, in any) (any, bool, error) {
			if err := w.before(ctx, h.Point); err != nil {
				return nil, false, err
			}
			return handle(ctx, in)
		}
		out[i] = h
	}
	return out
}

// before traces a call of point and holds a context:prepare call while the
// stall file exists.
func (w wrapped) before(ctx context.Context, point string) error {
	w.d.Trace(point)
	if point == "context:prepare" {
		return w.d.Stall(ctx)
	}
	return nil
}

func (w wrapped) Tools() []sdk.Tool {
	if tp, ok := w.p.(sdk.ToolProvider); ok {
		return tp.Tools()
	}
	return nil
}
