package session

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemoryStore keeps sessions in memory, with the semantics of the JSONL
// store but nothing durable: for tests, and as the second implementation
// that keeps the conformance suite honest about what is store-specific.
// Sessions live as long as the store; closing a Log does not forget it.
type MemoryStore struct {
	clock func() time.Time

	mu       sync.Mutex
	sessions map[string]*memSession
}

type memSession struct {
	core    *core
	created time.Time
	forkOf  string
	forkAt  int64
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store that stamps events with time.Now.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{clock: time.Now, sessions: map[string]*memSession{}}
}

// Create starts a new, empty session.
func (s *MemoryStore) Create(ctx context.Context) (Log, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(nil, "", 0), nil
}

// Open returns a new Log on the session; it shares the events with every
// other Log open on it.
func (s *MemoryStore) Open(ctx context.Context, id string) (Log, error) {
	if err := precheck(ctx, "open", id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("open session %q: %w", id, ErrNotFound)
	}
	return newHandle(ms.core, nil), nil
}

// List returns every session, most recently updated first.
func (s *MemoryStore) List(ctx context.Context) ([]Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	s.mu.Lock()
	all := make([]*memSession, 0, len(s.sessions))
	for _, ms := range s.sessions {
		all = append(all, ms)
	}
	s.mu.Unlock()
	infos := make([]Info, 0, len(all))
	for _, ms := range all {
		infos = append(infos, ms.core.info(ms.created, ms.forkOf, ms.forkAt))
	}
	sortInfos(infos)
	return infos, nil
}

// Fork creates a session holding id's events with Seq <= at (at <= 0: all),
// Seqs and Times unchanged. Its Info has ForkOf id and ForkAt the Seq of
// the last event copied (less than at when at is past the end).
func (s *MemoryStore) Fork(ctx context.Context, id string, at int64) (Log, error) {
	if err := precheck(ctx, "fork", id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	src, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("fork session %q: %w", id, ErrNotFound)
	}
	evs := prefix(src.core.snapshot(), at)
	return s.add(slices.Clone(evs), id, forkPoint(evs)), nil
}

// add registers a new session; s.mu is held.
func (s *MemoryStore) add(evs []Event, forkOf string, forkAt int64) *handle {
	now := s.clock()
	id := newID(now)
	for s.sessions[id] != nil {
		id = newID(now)
	}
	c := newCore(id, s.clock, evs, nil)
	s.sessions[id] = &memSession{core: c, created: now.UTC(), forkOf: forkOf, forkAt: forkAt}
	return newHandle(c, nil)
}

// prefix returns the events with Seq <= at (at <= 0: all of them), relying
// on the core invariant Seq == index+1.
func prefix(evs []Event, at int64) []Event {
	if at > 0 && at < int64(len(evs)) {
		return evs[:at]
	}
	return evs
}

// forkPoint is the Seq a fork of evs was taken at: its last event's.
func forkPoint(evs []Event) int64 {
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}

// sortInfos orders by Updated, newest first; equal times by ID, newest
// (greatest) first.
func sortInfos(infos []Info) {
	slices.SortFunc(infos, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		switch {
		case a.ID > b.ID:
			return -1
		case a.ID < b.ID:
			return 1
		}
		return 0
	})
}
