package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ErrClosed is returned by [Watcher.Watch] after [Watcher.Close].
var ErrClosed = errors.New("watcher closed")

// Mode chooses how changes are observed.
type Mode int

const (
	// Native uses one fsnotify (inotify) instance for the whole Watcher.
	Native Mode = iota
	// Poll uses no OS notification: every PollInterval it stats the roots,
	// their children and each bundle's skill file, and reports differences.
	// For file systems where inotify does not work (NFS, some FUSE mounts).
	Poll
)

// String returns "native" or "poll".
func (m Mode) String() string {
	switch m {
	case Native:
		return "native"
	case Poll:
		return "poll"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Defaults for the zero values of [Config].
const (
	DefaultPollInterval = time.Second
	DefaultCoalesce     = 50 * time.Millisecond
	DefaultCapacity     = 32
)

// maxEntries is how many changed entries one Change names before it asks for
// a Rescan instead: past this, reading the roots again is no dearer.
const maxEntries = 512

// Config configures a [Watcher]. Every zero value is a usable default.
type Config struct {
	// Mode is Native (the zero value) or Poll.
	Mode Mode
	// PollInterval is how often Poll mode stats the roots, and how often
	// Native mode re-checks missing roots, replaced roots, retargeted
	// symlinks and watches that could not be added. 0 means 1s.
	PollInterval time.Duration
	// WriteStability, when positive, holds back a changed entry until its
	// skill file (a bundle's SKILL.md and skill.md, or the flat .md) has kept
	// the same size and mtime for this long, so an editor mid-save is not
	// reported. Removals wait too: a save that removes and rewrites the file
	// must not look like a deletion. 0 reports at once.
	WriteStability time.Duration
	// Coalesce is the burst window. The first event after a quiet period of
	// Coalesce is delivered at once (the leading edge); events that follow
	// within it become one callback, sent Coalesce after the last of them
	// (at the latest 10×Coalesce after the first). 0 means 50ms.
	Coalesce time.Duration
	// FollowSymlinks makes a root child that is a symlink count as what it
	// points to: for a directory, the target's SKILL.md is watched; for a
	// flat .md file, the target file. When false (the zero value), a symlink
	// is watched as a root entry only: creating, removing or replacing the
	// link is reported, edits behind it are not.
	FollowSymlinks bool
	// Capacity is the most Subscriptions that are active at once (the
	// per-project watcher set). Watching or touching past it evicts the
	// least recently observed one. 0 means 32.
	Capacity int
	// Logger receives warnings (a watch that cannot be added, an overflow)
	// and debug traces. nil discards.
	Logger *slog.Logger
}

func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Mode != Native && c.Mode != Poll:
		return c, fmt.Errorf("unknown mode %d", int(c.Mode))
	case c.PollInterval < 0:
		return c, fmt.Errorf("negative poll interval %s", c.PollInterval)
	case c.WriteStability < 0:
		return c, fmt.Errorf("negative write stability %s", c.WriteStability)
	case c.Coalesce < 0:
		return c, fmt.Errorf("negative coalesce window %s", c.Coalesce)
	case c.Capacity < 0:
		return c, fmt.Errorf("negative capacity %d", c.Capacity)
	}
	if c.PollInterval == 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.Coalesce == 0 {
		c.Coalesce = DefaultCoalesce
	}
	if c.Capacity == 0 {
		c.Capacity = DefaultCapacity
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// Change is what a Subscription's callback receives.
type Change struct {
	// Entries are the names of root children (bundle directories or flat .md
	// files) that changed, sorted and without duplicates. A name applies to
	// every root of the Subscription: read it again in each. Empty when
	// Rescan is set.
	Entries []string
	// Rescan means the whole set of roots must be read again: a root
	// appeared, disappeared or was replaced, the watcher recovered from an
	// overflow or error or an eviction, or too many entries changed at once.
	Rescan bool
	// Incomplete means the watcher cannot currently observe these roots
	// reliably (an overflow just happened, a watch could not be added, the
	// Subscription was evicted). What the provider reads now must be marked
	// incomplete until a later Change with Incomplete unset arrives.
	Incomplete bool
}

// Watcher watches skill roots for any number of Subscriptions. It is safe for
// concurrent use. Create it with [New] and stop it with [Watcher.Close].
type Watcher struct {
	cfg Config
	log *slog.Logger

	fsw *fsnotify.Watcher // Native mode only
	// add and remove reach the fsnotify instance; tests replace them to
	// make a watch fail.
	add    func(path string) error
	remove func(path string) error

	q    queue // events from the fsnotify pump, for the loop
	done chan struct{}
	wg   sync.WaitGroup

	seq atomic.Uint64 // observation clock for the least-recently-observed order

	mu     sync.Mutex // guards everything below, and every rootState
	closed bool
	subs   map[*Subscription]struct{}
	paths  map[string]*watched // Native: canonical path → its interests
	ids    map[fileID]string   // Native: watched directory identity → its path
	lostQ  []*interest         // Native: interests to re-resolve (see settle)

	lastRearm time.Time // the last re-arm after a watcher error
	rearmDue  bool      // another error came sooner; the periodic check re-arms
}

// New starts a Watcher. In Native mode it creates the one fsnotify instance
// the Watcher will use.
func New(cfg Config) (*Watcher, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("new watcher: %w", err)
	}
	w := &Watcher{
		cfg:   cfg,
		log:   cfg.Logger,
		done:  make(chan struct{}),
		subs:  map[*Subscription]struct{}{},
		paths: map[string]*watched{},
		ids:   map[fileID]string{},
	}
	w.q.signal = make(chan struct{}, 1)
	if cfg.Mode == Native {
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			return nil, fmt.Errorf("new watcher: %w", err)
		}
		w.fsw = fsw
		w.add = fsw.Add
		w.remove = fsw.Remove
		w.wg.Add(1)
		go w.pump()
	} else {
		w.add = func(string) error { return errors.New("poll mode watches nothing") }
		w.remove = func(string) error { return nil }
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Close stops the Watcher and every Subscription. When it returns, its
// goroutines have exited and no callback is running or will run, even for
// events that were already queued. Close is idempotent.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	subs := make([]*Subscription, 0, len(w.subs))
	for s := range w.subs {
		subs = append(subs, s)
		s.status = statusClosed
		s.evicted.Store(false)
	}
	// No watch is removed one by one: closing the fsnotify instance below
	// drops them all at once (a root of 10,000 skills holds 10,000).
	clear(w.subs)
	clear(w.paths)
	clear(w.ids)
	w.mu.Unlock()

	close(w.done)
	var err error
	if w.fsw != nil {
		err = w.fsw.Close()
	}
	w.wg.Wait()
	for _, s := range subs {
		s.shutdown()
	}
	if err != nil {
		return fmt.Errorf("close watcher: %w", err)
	}
	return nil
}

// Watch starts watching roots — absolute directories, which need not exist
// yet — and calls onChange when they change (see [Change]). The roots are
// armed before Watch returns, so a provider that reads them after Watch
// misses nothing. There is no initial callback unless a watch could not be
// added, which is reported as Incomplete.
//
// The new Subscription counts as just observed; if it takes the Watcher past
// its Capacity, the least recently observed other Subscription is evicted.
func (w *Watcher) Watch(roots []string, onChange func(Change)) (*Subscription, error) {
	return w.WatchEach(roots, onChange, nil)
}

// WatchEach is [Watcher.Watch] that also calls armed, while the roots are
// armed, with each child of a root (root is its index in roots, mode the
// type the listing gave) once the watch that child needs is in place. A
// provider may read the child from then on and miss nothing, so its first
// read can run alongside the arming of the rest instead of after it.
// Children with ignored names are not passed, nor any of a root that is
// missing or cannot be listed, nor any in Poll mode: the provider reads
// those after WatchEach returns. armed runs with the Watcher locked, only
// before WatchEach returns; it must not call the Watcher.
func (w *Watcher) WatchEach(roots []string, onChange func(Change), armed func(root int, name string, mode fs.FileMode)) (*Subscription, error) {
	if onChange == nil {
		return nil, errors.New("watch: nil callback")
	}
	clean := make([]string, len(roots))
	for i, r := range roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("watch %q: root is not absolute", r)
		}
		clean[i] = filepath.Clean(r)
	}
	s := &Subscription{w: w, onChange: onChange}
	s.idle = sync.NewCond(&s.mu)
	s.timer = time.AfterFunc(time.Hour, s.fire)
	s.timer.Stop()
	s.healthy.Store(true)
	s.roots = make([]*rootState, len(clean))
	for i, r := range clean {
		s.roots[i] = &rootState{sub: s, path: r}
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, fmt.Errorf("watch: %w", ErrClosed)
	}
	s.seen.Store(w.seq.Add(1))
	w.makeRoom(s)
	s.status = statusActive
	s.accepting = true
	w.subs[s] = struct{}{}
	for i, r := range s.roots {
		if armed != nil {
			r.armed = func(name string, mode fs.FileMode) { armed(i, name, mode) }
		}
		w.arm(r)
		r.armed = nil
	}
	w.settle()
	w.updateHealth(s)
	return s, nil
}

// makeRoom evicts least-recently-observed active Subscriptions until s can
// become active within Capacity.
func (w *Watcher) makeRoom(s *Subscription) {
	for {
		active := 0
		var lru *Subscription
		for o := range w.subs {
			if o == s || o.status != statusActive {
				continue
			}
			active++
			if lru == nil || o.seen.Load() < lru.seen.Load() {
				lru = o
			}
		}
		if active < w.cfg.Capacity || lru == nil {
			return
		}
		w.evict(lru)
	}
}

// evict disarms s and tells it, once, to stop trusting what it read.
func (w *Watcher) evict(s *Subscription) {
	w.log.Debug("evict the least recently observed subscription", "roots", s.rootPaths())
	w.disarm(s)
	s.status = statusEvicted
	s.evicted.Store(true)
	s.healthy.Store(false)
	s.mu.Lock()
	s.accepting = false
	s.unstable = nil
	s.pend.entries = nil
	s.pend.add(time.Now(), true, true)
	s.rearmLocked()
	s.mu.Unlock()
}

// disarm drops every watch and observation of s.
func (w *Watcher) disarm(s *Subscription) {
	for _, r := range s.roots {
		w.disarmRoot(r)
		r.failed = false
		r.polled = false
	}
}

// arm starts observing one root from scratch, without reporting.
func (w *Watcher) arm(r *rootState) {
	if w.cfg.Mode == Poll {
		w.pollRoot(r)
		return
	}
	w.resolveRoot(r, false)
}

// rearmRoot observes r from scratch and reports Rescan: whenever a root is
// re-armed, something may have been missed. An unhealthy Subscription is
// not told: it is owed the recovery Rescan anyway, and retrying a failing
// watch every PollInterval must not make a callback every time.
func (w *Watcher) rearmRoot(r *rootState) {
	w.disarmRoot(r)
	r.failed = false
	r.polled = false
	w.arm(r)
	if r.sub.healthy.Load() {
		r.sub.noteRescan()
	}
}

// updateHealth recomputes s's health and reports a transition: losing it is
// Incomplete, regaining it is the recovery Rescan.
func (w *Watcher) updateHealth(s *Subscription) {
	healthy := s.status == statusActive && !s.recovering
	for _, r := range s.roots {
		if r.failed && !r.denied {
			healthy = false
		}
	}
	if healthy {
		for _, r := range s.roots {
			r.warned = false
		}
	}
	was := s.healthy.Swap(healthy)
	switch {
	case was && !healthy:
		s.noteIncomplete()
	case !was && healthy:
		s.noteRescan()
	}
}

// handleError reacts to an error from the fsnotify instance. Events may have
// been lost (certainly so for fsnotify.ErrEventOverflow) and the error does
// not say whose, so every active Subscription is told Incomplete+Rescan, is
// re-armed from scratch, and is told Rescan once healthy again.
func (w *Watcher) handleError(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.handleErrorLocked(err)
}

func (w *Watcher) handleErrorLocked(err error) {
	if w.closed {
		return
	}
	w.log.Warn("read file watcher events: error; re-arming every watch", "err", err, "overflow", errors.Is(err, fsnotify.ErrEventOverflow))
	for s := range w.subs {
		if s.status == statusActive {
			s.recovering = true
			w.updateHealth(s)
		}
	}
	// A watcher that keeps failing must not make us re-arm everything in a
	// loop: past the first, re-arm at most once per PollInterval (the
	// periodic check does it).
	if time.Since(w.lastRearm) < w.cfg.PollInterval {
		w.rearmDue = true
		return
	}
	w.recoverAll()
}

// recoverAll re-arms every recovering Subscription from scratch.
func (w *Watcher) recoverAll() {
	w.lastRearm, w.rearmDue = time.Now(), false
	for s := range w.subs {
		if !s.recovering {
			continue
		}
		if s.status == statusActive {
			for _, r := range s.roots {
				w.rearmRoot(r)
			}
			w.settle()
		}
		s.recovering = false
		w.updateHealth(s)
	}
}

// loop runs the Watcher's periodic check and, in Native mode, processes what
// the pump queued.
func (w *Watcher) loop() {
	defer w.wg.Done()
	tick := time.NewTicker(w.cfg.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-w.q.signal:
			w.drain()
		case <-tick.C:
			w.tick()
		}
	}
}

// tick is the periodic check: Poll mode's observation, or Native mode's
// safety net for what inotify cannot tell.
func (w *Watcher) tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.rearmDue {
		w.recoverAll()
	}
	for s := range w.subs {
		if s.status != statusActive {
			continue
		}
		for _, r := range s.roots {
			if w.cfg.Mode == Poll {
				w.pollRoot(r)
			} else {
				w.checkRoot(r)
			}
		}
		w.settle()
		w.updateHealth(s)
	}
}

// Subscription is one Watch call: a list of roots and its callback.
type Subscription struct {
	w        *Watcher
	onChange func(Change)
	roots    []*rootState

	seen    atomic.Uint64 // Watcher.seq when last observed
	evicted atomic.Bool   // mirrors status == statusEvicted, for Touch
	healthy atomic.Bool

	// Guarded by Watcher.mu.
	status     status
	recovering bool // re-arming after a watcher error

	// Delivery state, guarded by mu (taken after Watcher.mu, never before).
	mu        sync.Mutex
	idle      *sync.Cond // signalled when running turns false
	accepting bool       // active: changes are recorded
	closed    bool       // no callback may start
	pend      pending
	lastTake  time.Time            // when the last batch was taken: the burst's leading edge is past until Coalesce after it
	unstable  map[string]*unstable // WriteStability holds, by root+"\x00"+entry
	owes      bool                 // an Incomplete was delivered; the recovery Rescan is owed
	timer     *time.Timer
	armedAt   time.Time // when timer is set to fire; zero when not set
	running   bool      // fire is delivering
	again     bool      // timer fired while running: look again
}

type status uint8

const (
	statusNew status = iota
	statusActive
	statusEvicted
	statusClosed
)

// Touch records that the Subscription was just observed (a snapshot used
// it), moving it to the back of the eviction order. An evicted Subscription
// is re-armed by Touch, evicting another if needed, and then reports Rescan.
// Touch is cheap unless it re-arms.
func (s *Subscription) Touch() {
	s.seen.Store(s.w.seq.Add(1))
	if !s.evicted.Load() {
		return
	}
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || s.status != statusEvicted {
		return
	}
	w.makeRoom(s)
	s.status = statusActive
	s.evicted.Store(false)
	s.mu.Lock()
	s.accepting = true
	s.mu.Unlock()
	for _, r := range s.roots {
		w.arm(r)
	}
	w.settle()
	w.updateHealth(s) // unhealthy → healthy: the recovery Rescan
}

// Healthy reports whether the Subscription currently observes its roots
// reliably: false while evicted, while a watch could not be added, while
// recovering from a watcher error, and after Close.
func (s *Subscription) Healthy() bool { return s.healthy.Load() }

// Close stops the Subscription and drops its watches. When it returns, no
// callback of it is running or will run, so Close must not be called from
// the Subscription's own callback. Close is idempotent.
func (s *Subscription) Close() {
	w := s.w
	w.mu.Lock()
	closing := s.status != statusClosed
	if closing {
		s.status = statusClosed
		s.evicted.Store(false)
		delete(w.subs, s)
	}
	w.mu.Unlock()
	s.shutdown()
	if !closing {
		return
	}
	// The watches go closeBatch at a time, the lock let go in between: a
	// Watcher.Close that comes meanwhile (a kernel closing its
	// registrations, then its resources) must not wait for 10,000 removals
	// one by one when closing the instance drops them all at once. Until
	// then they are a closed Subscription's, which events ignore, and a
	// path another Subscription wants keeps its watch.
	w.mu.Lock()
	for !w.closed && w.disarmSome(s, closeBatch) {
		w.mu.Unlock()
		runtime.Gosched()
		w.mu.Lock()
	}
	w.mu.Unlock()
}

// closeBatch is how many watches Subscription.Close drops per hold of the
// Watcher's lock.
const closeBatch = 256

// disarmSome drops up to n of s's entry watches, or, with none left, the
// rest of s's watches, and reports whether any remain.
func (w *Watcher) disarmSome(s *Subscription, n int) bool {
	for _, r := range s.roots {
		for name, in := range r.entries {
			if n == 0 {
				return true
			}
			w.removeInterest(in)
			delete(r.entries, name)
			n--
		}
	}
	w.disarm(s)
	return false
}

func (s *Subscription) shutdown() {
	s.healthy.Store(false)
	s.mu.Lock()
	s.closed = true
	s.accepting = false
	s.timer.Stop()
	s.armedAt = time.Time{}
	for s.running {
		s.idle.Wait()
	}
	s.mu.Unlock()
}

func (s *Subscription) rootPaths() []string {
	out := make([]string, len(s.roots))
	for i, r := range s.roots {
		out[i] = r.path
	}
	return out
}
