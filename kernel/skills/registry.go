package skills

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Watchable is a provider that reports its own changes. Register hands it
// the registration's own invalidate function and done signal, so only that
// registration can be invalidated by it and a stale provider structurally
// cannot touch a newer one. When Watch returns nil the registry trusts the
// provider's last complete answer until invalidate is called; otherwise the
// provider is asked again at every snapshot.
type Watchable interface {
	Watch(invalidate func(), done <-chan struct{}) error
}

// PathWatcher is a provider that reads folders. PathChanged tells it a path
// was written or removed by a first-party tool and reports whether that can
// change its catalog.
type PathWatcher interface {
	PathChanged(path string) bool
}

// ErrNotWatched is what Watch returns when a provider has no way to watch.
var ErrNotWatched = errors.New("not watched")

// ErrStaleSkill is returned by a load whose file no longer carries the name
// the catalog listed it under (it was renamed or replaced since the snapshot).
var ErrStaleSkill = errors.New("stale skill")

// Registry holds the registered skill sources in merge order and serves
// merged catalogs. It is safe for concurrent use.
//
// Each registration keeps the last complete Set its provider returned; a
// catalog is merged from those, and a provider is asked again only after its
// own registration was invalidated. A clean catalog is served from cache with
// no I/O. An incomplete observation is never cached.
type Registry struct {
	logger *slog.Logger

	mu      sync.Mutex
	regs    []*Registration
	gen     uint64 // moves on every register, close and invalidate
	cache   *Catalog
	nextID  int
	watches map[int]func()
}

// RegistryConfig configures a Registry. The zero value works.
type RegistryConfig struct {
	// Logger receives listener failures. Nil discards.
	Logger *slog.Logger
}

// NewRegistry returns an empty registry.
func NewRegistry(cfg RegistryConfig) *Registry {
	l := cfg.Logger
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return &Registry{logger: l, watches: map[int]func(){}}
}

// Registration is one provider's place in the registry. Only it can
// invalidate that place, and once closed it cannot touch the registry at all,
// so a stale callback from a replaced provider structurally does nothing.
type Registration struct {
	r      *Registry
	source string
	p      Provider

	// trusted: the provider watches itself, so its last answer holds until
	// it invalidates. Set once by Register.
	trusted bool

	// guarded by r.mu
	closed bool
	dirty  bool
	gen    uint64
	last   *Set // last complete observation
	done   chan struct{}
}

// Register appends a provider to the merge order. A Watchable provider is
// started with the registration's invalidate function; if it cannot watch,
// the registration still works, asking the provider at every snapshot, and
// the error is logged.
func (r *Registry) Register(source string, p Provider) *Registration {
	g := &Registration{r: r, source: source, p: p, dirty: true, done: make(chan struct{})}
	if w, ok := p.(Watchable); ok {
		err := w.Watch(g.Invalidate, g.done)
		switch {
		case err == nil:
			g.trusted = true
		case !errors.Is(err, ErrNotWatched):
			r.logger.Warn("skills source cannot be watched; it is read at every snapshot", slog.String("source", source), slog.Any("error", err))
		}
	}
	r.mu.Lock()
	r.regs = append(r.regs, g)
	r.gen++
	r.cache = nil
	r.mu.Unlock()
	r.notify()
	return g
}

// Source returns the registration's source label.
func (g *Registration) Source() string { return g.source }

// Done is closed when the registration is closed.
func (g *Registration) Done() <-chan struct{} { return g.done }

// Invalidate marks this registration's provider dirty and drops the cached
// catalog. After Close it does nothing.
func (g *Registration) Invalidate() {
	r := g.r
	r.mu.Lock()
	if g.closed {
		r.mu.Unlock()
		return
	}
	g.dirty = true
	g.gen++
	r.gen++
	r.cache = nil
	r.mu.Unlock()
	r.notify()
}

// Close removes the provider from the registry. Later Invalidate calls are
// ignored.
func (g *Registration) Close() {
	r := g.r
	r.mu.Lock()
	if g.closed {
		r.mu.Unlock()
		return
	}
	g.closed = true
	close(g.done)
	for i, x := range r.regs {
		if x == g {
			r.regs = append(r.regs[:i:i], r.regs[i+1:]...)
			break
		}
	}
	r.gen++
	r.cache = nil
	r.mu.Unlock()
	r.notify()
}

// job is one provider's part of a snapshot.
type job struct {
	g   *Registration
	gen uint64
	set *Set // the cached answer, when it can be trusted
}

// maxRetries bounds how often Snapshot rediscovers when generations move
// under it.
const maxRetries = 3

// Snapshot returns the merged catalog. A clean catalog comes from cache. If a
// generation moves while providers are being asked, discovery is retried (a
// bounded number of times) so the result is not already stale when returned.
func (r *Registry) Snapshot(ctx context.Context) Catalog {
	for attempt := 0; ; attempt++ {
		r.mu.Lock()
		if r.cache != nil {
			c := *r.cache
			r.mu.Unlock()
			c.ProvidersAsked = 0
			return c
		}
		startGen := r.gen
		jobs := make([]job, len(r.regs))
		for i, g := range r.regs {
			jobs[i] = job{g: g, gen: g.gen}
			if g.trusted && !g.dirty && g.last != nil {
				jobs[i].set = g.last
			}
		}
		r.mu.Unlock()

		sets := make([]sourcedSet, len(jobs))
		for i, j := range jobs {
			if j.set != nil {
				sets[i] = sourcedSet{source: j.g.source, set: *j.set}
				continue
			}
			set, err := callProvider(ctx, j.g.p)
			if err == nil {
				set = sanitizeSet(j.g.guardLoads(set), j.g.source)
			}
			sets[i] = sourcedSet{source: j.g.source, set: set, err: err}
		}
		var cat Catalog

		r.mu.Lock()
		for i, j := range jobs {
			// Keep a provider's complete observation unless it was
			// invalidated (or closed) while we asked it.
			s := sets[i]
			if j.set == nil && s.err == nil && !s.set.Incomplete && !j.g.closed && j.g.gen == j.gen {
				set := s.set // guarded above
				j.g.last = &set
				j.g.dirty = false
			}
		}
		moved := r.gen != startGen
		cat = mergeSets(sets)
		for _, j := range jobs {
			if j.set == nil {
				cat.ProvidersAsked++
			}
		}
		if !moved && cat.Complete && r.allTrusted(jobs) {
			r.cache = &cat
		}
		r.mu.Unlock()
		if !moved || attempt >= maxRetries || ctx.Err() != nil {
			return cat
		}
	}
}

// allTrusted reports whether every provider of a merge watches itself, so
// the merged catalog can be served from cache until one invalidates.
func (r *Registry) allTrusted(jobs []job) bool {
	for _, j := range jobs {
		if !j.g.trusted {
			return false
		}
	}
	return true
}

// guardLoads wraps each skill's Load so that a load whose file now carries
// another name is refused as stale and invalidates this registration: the
// next snapshot then publishes the new name.
func (g *Registration) guardLoads(set Set) Set {
	skills := make([]Skill, len(set.Skills))
	for i, s := range set.Skills {
		load := s.Load
		if load != nil {
			name := s.Name
			s.Load = func(ctx context.Context) (Content, error) {
				c, err := load(ctx)
				return CheckFresh(c, err, name, g.Invalidate)
			}
		}
		skills[i] = s
	}
	set.Skills = skills
	return set
}

// CheckFresh refuses a load whose frontmatter name is no longer the name
// the catalog listed (ErrStaleSkill), calling invalidate so the next
// snapshot publishes the new name. A provider may check its own loads this
// way (skillfs.DirSource does, to mark the entry to re-read).
func CheckFresh(c Content, err error, name string, invalidate func()) (Content, error) {
	if err != nil {
		return c, err
	}
	if c.Name != name {
		invalidate()
		return Content{}, fmt.Errorf("%w: %q is now named %q on disk; the catalog will be refreshed", ErrStaleSkill, name, c.Name)
	}
	return c, nil
}

// InvalidatePath is the synchronous entry point for first-party file tools
// (Write, Edit): it tells every folder-reading provider that path changed and
// invalidates exactly the registrations whose catalog it can affect, so the
// next snapshot sees the change without waiting for the OS event. It reports
// whether any registration was invalidated.
func (r *Registry) InvalidatePath(path string) bool {
	r.mu.Lock()
	regs := append([]*Registration(nil), r.regs...)
	r.mu.Unlock()
	hit := false
	for _, g := range regs {
		if pw, ok := g.p.(PathWatcher); ok && pw.PathChanged(path) {
			g.Invalidate()
			hit = true
		}
	}
	return hit
}

// OnChange registers a listener for the bare "skills changed" signal. It is
// called after every invalidation, without a diff; a listener that panics is
// logged and does not affect the others. The returned function unregisters.
func (r *Registry) OnChange(fn func()) (cancel func()) {
	r.mu.Lock()
	id := r.nextID
	r.nextID++
	r.watches[id] = fn
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.watches, id)
		r.mu.Unlock()
	}
}

func (r *Registry) notify() {
	r.mu.Lock()
	fns := make([]func(), 0, len(r.watches))
	for _, fn := range r.watches {
		fns = append(fns, fn)
	}
	r.mu.Unlock()
	for _, fn := range fns {
		r.callListener(fn)
	}
}

func (r *Registry) callListener(fn func()) {
	defer func() {
		if v := recover(); v != nil {
			r.logger.Warn("skills change listener panicked", slog.Any("panic", v))
		}
	}()
	fn()
}

// Retry bounds for a reader that got an incomplete catalog (skills watch,
// the MCP server): an incomplete read is usually transient (a folder
// vanishing while it was read) and may be followed by no change signal at
// all, so such a reader reads again, waiting RetryIncompleteMin at first and
// twice as long each time after, up to RetryIncompleteMax.
const (
	RetryIncompleteMin = 50 * time.Millisecond
	RetryIncompleteMax = 5 * time.Second
)
