package watch

import (
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"
)

// pending is the batch of changes waiting for its callback.
type pending struct {
	entries     map[string]struct{}
	rescan      bool
	incomplete  bool      // sticky: some Incomplete happened since the last callback
	first, last time.Time // of the batch's events; zero when empty
	now         bool      // deliver without waiting for the window (entries that settled)
}

func (p *pending) empty() bool { return p.first.IsZero() }

func (p *pending) add(at time.Time, rescan, incomplete bool) {
	if p.first.IsZero() {
		p.first = at
	}
	p.last = at
	p.rescan = p.rescan || rescan
	p.incomplete = p.incomplete || incomplete
	if p.rescan {
		p.entries = nil
	}
}

func (p *pending) addEntry(at time.Time, name string) {
	p.add(at, false, false)
	if p.rescan {
		return
	}
	if p.entries == nil {
		p.entries = map[string]struct{}{}
	}
	p.entries[name] = struct{}{}
	if len(p.entries) > maxEntries {
		p.rescan, p.entries = true, nil
	}
}

// leadingDelay is how long the first change after a quiet period waits
// before its callback: long enough for the other events of the same file
// system operation (a rename's two halves, read from inotify together) to
// join it, short enough that a new skill is visible within a few
// milliseconds.
const leadingDelay = time.Millisecond

// due is when the batch's callback should run. On the leading edge (the
// batch's first event came at least Coalesce after the last callback,
// lastTake) it runs at once, leadingDelay after that event; otherwise the
// batch is part of a burst and runs Coalesce after its last event, but no
// later than 10×Coalesce after its first, so a steady trickle of events
// cannot postpone it for ever.
func (p *pending) due(coalesce time.Duration, lastTake time.Time) time.Time {
	if p.now {
		return p.last
	}
	if p.first.Sub(lastTake) >= coalesce {
		return p.first.Add(leadingDelay)
	}
	due := p.last.Add(coalesce)
	if limit := p.first.Add(10 * coalesce); limit.Before(due) {
		due = limit
	}
	return due
}

// unstable is an entry held back by WriteStability.
type unstable struct {
	dir, name string    // the root (as observed) and the entry
	stamp     entryFP   // what the entry's skill file looked like at the last event
	due       time.Time // report it if the stamp is unchanged by then
}

// noteEntry records that entry name of root r changed. It is called under
// Watcher.mu; with WriteStability the entry is stamped (which is I/O) and
// held back until the stamp stops changing.
func (s *Subscription) noteEntry(r *rootState, name string) {
	ws := s.w.cfg.WriteStability
	if ws <= 0 {
		s.mu.Lock()
		if s.accepting {
			s.pend.addEntry(time.Now(), name)
			s.rearmLocked()
		}
		s.mu.Unlock()
		return
	}
	dir := r.observedDir()
	stamp := observeEntry(filepath.Join(dir, name), true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.accepting {
		return
	}
	if s.unstable == nil {
		s.unstable = map[string]*unstable{}
	}
	// A new record, not an update: settle compares identities to see
	// whether an event came in while it was stat-ing.
	s.unstable[dir+"\x00"+name] = &unstable{dir: dir, name: name, stamp: stamp, due: time.Now().Add(ws)}
	s.rearmLocked()
}

// noteRescan records that the roots must be read again.
func (s *Subscription) noteRescan() {
	s.mu.Lock()
	if s.accepting {
		s.pend.add(time.Now(), true, false)
		s.rearmLocked()
	}
	s.mu.Unlock()
}

// noteIncomplete records that changes may be missed from now on.
func (s *Subscription) noteIncomplete() {
	s.mu.Lock()
	if s.accepting {
		s.pend.add(time.Now(), true, true)
		s.rearmLocked()
	}
	s.mu.Unlock()
}

// rearmLocked sets the timer for the next thing due: the pending batch or a
// held entry. Called with s.mu held after every change of either.
func (s *Subscription) rearmLocked() {
	if s.closed {
		return
	}
	var due time.Time
	if !s.pend.empty() {
		due = s.pend.due(s.w.cfg.Coalesce, s.lastTake)
	}
	for _, u := range s.unstable {
		if due.IsZero() || u.due.Before(due) {
			due = u.due
		}
	}
	switch {
	case due.IsZero():
		if !s.armedAt.IsZero() {
			s.timer.Stop()
			s.armedAt = time.Time{}
		}
	case s.armedAt.IsZero() || !due.Equal(s.armedAt):
		s.timer.Reset(time.Until(due))
		s.armedAt = due
	}
}

// fire runs on the timer's goroutine: it settles held entries and delivers
// the batch if it is due. Only one fire delivers at a time; a fire that
// finds another running asks it to look again and returns, so a slow
// callback does not pile up goroutines.
func (s *Subscription) fire() {
	s.mu.Lock()
	s.armedAt = time.Time{}
	if s.running {
		s.again = true
		s.mu.Unlock()
		return
	}
	s.running = true
	defer func() {
		s.running = false
		s.idle.Broadcast()
		s.rearmLocked()
		s.mu.Unlock()
	}()
	for !s.closed {
		s.again = false
		s.settleLocked()
		for _, ch := range s.takeLocked(time.Now()) {
			if s.closed {
				return
			}
			s.mu.Unlock()
			s.call(ch)
			s.mu.Lock()
		}
		if !s.again {
			return
		}
	}
}

// settleLocked reports the held entries whose stamp did not change during
// WriteStability, and holds the others for another round. It stats without
// s.mu held (fire's running flag keeps other fires out).
func (s *Subscription) settleLocked() {
	now := time.Now()
	var due []*unstable
	for _, u := range s.unstable {
		if !now.Before(u.due) {
			due = append(due, u)
		}
	}
	if len(due) == 0 {
		return
	}
	stamps := make([]entryFP, len(due))
	s.mu.Unlock()
	for i, u := range due {
		stamps[i] = observeEntry(filepath.Join(u.dir, u.name), true)
	}
	s.mu.Lock()
	now = time.Now()
	for i, u := range due {
		key := u.dir + "\x00" + u.name
		if s.unstable[key] != u {
			continue // a newer event replaced it
		}
		if stamps[i] != u.stamp {
			u.stamp, u.due = stamps[i], now.Add(s.w.cfg.WriteStability)
			continue
		}
		delete(s.unstable, key)
		if s.accepting {
			s.pend.addEntry(now, u.name)
			s.pend.now = true // it already waited out WriteStability
		}
	}
}

// takeLocked empties the batch if it is due and returns the callbacks to
// make: usually one; two when an Incomplete is delivered for a failure that
// has already been recovered from (the recovery Rescan follows at once).
func (s *Subscription) takeLocked(now time.Time) []Change {
	p := &s.pend
	if p.empty() || now.Before(p.due(s.w.cfg.Coalesce, s.lastTake)) {
		return nil
	}
	healthy := s.healthy.Load()
	ch := Change{Rescan: p.rescan, Incomplete: p.incomplete || !healthy}
	if !ch.Rescan && len(p.entries) > 0 {
		ch.Entries = make([]string, 0, len(p.entries))
		for e := range p.entries {
			ch.Entries = append(ch.Entries, e)
		}
		slices.Sort(ch.Entries)
	}
	stickyIncomplete := p.incomplete
	s.pend = pending{}
	s.lastTake = now
	switch {
	case ch.Incomplete:
		s.owes = true
	case s.owes:
		ch.Rescan, ch.Entries, s.owes = true, nil, false
	}
	if !ch.Rescan && !ch.Incomplete && len(ch.Entries) == 0 {
		return nil
	}
	out := []Change{ch}
	if stickyIncomplete && healthy {
		out = append(out, Change{Rescan: true})
		s.owes = false
	}
	return out
}

// call runs the callback. A panic is logged, not spread: the Watcher is
// shared by the whole kernel and one provider's bug must not stop the others'
// watches.
func (s *Subscription) call(ch Change) {
	defer func() {
		if v := recover(); v != nil {
			s.w.log.Error("deliver change: callback panicked", "panic", v, "roots", s.rootPaths(), "stack", string(debug.Stack()))
		}
	}()
	s.onChange(ch)
}
