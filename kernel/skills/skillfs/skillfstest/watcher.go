// Package skillfstest is the test kit of package skillfs: a RootWatcher whose
// changes a test fires by hand, so that refresh tests are deterministic. Only
// tests import it.
package skillfstest

import (
	"sync"
	"sync/atomic"

	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// Watcher is a skillfs.RootWatcher that reports a change only when the test
// calls Fire. It starts healthy.
type Watcher struct {
	mu        sync.Mutex
	subs      []*watch
	unhealthy atomic.Bool
}

var _ skillfs.RootWatcher = (*Watcher)(nil)

type watch struct {
	w        *Watcher
	onChange func([]string, bool)
	closed   atomic.Bool
}

// WatchRoots records onChange for Fire; the roots are not watched.
func (w *Watcher) WatchRoots(_ []string, onChange func([]string, bool)) (skillfs.RootWatch, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := &watch{w: w, onChange: onChange}
	w.subs = append(w.subs, s)
	return s, nil
}

// Fire delivers a change to every open watch, as the OS watcher would: the
// entries that changed, or rescan when the whole root must be read again.
func (w *Watcher) Fire(entries []string, rescan bool) {
	w.mu.Lock()
	subs := append([]*watch(nil), w.subs...)
	w.mu.Unlock()
	for _, s := range subs {
		if !s.closed.Load() {
			s.onChange(entries, rescan)
		}
	}
}

// SetHealthy sets what every watch's Healthy reports.
func (w *Watcher) SetHealthy(ok bool) { w.unhealthy.Store(!ok) }

func (s *watch) Touch()        {}
func (s *watch) Healthy() bool { return !s.w.unhealthy.Load() }
func (s *watch) Close()        { s.closed.Store(true) }
