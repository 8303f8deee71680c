package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/helios-agents/helios/kernel/utf8text"
)

// core is one session's events in memory, shared by every handle open on it
// in this process. Both stores build on it; the JSONL store adds a sink that
// makes each Append durable before the events become visible.
//
// Invariant: events[i].Seq == i+1. Append keeps it, Fork copies a prefix,
// and the JSONL decoder refuses a file that breaks it.
type core struct {
	id    string
	clock func() time.Time

	// wmu serializes Appends and the store's release of the sink; it is
	// held across the write and fsync, so readers never wait for the disk.
	wmu    sync.Mutex
	sink   sink // nil: memory only
	closed bool // the sink was released

	// mu guards events and comps; writers hold wmu too.
	mu     sync.RWMutex
	events []Event // elements are never modified once appended
	comps  []span  // the Compaction events, in log order (see Visible)
}

// sink persists events. commit returns once evs (numbered from the log's
// next Seq) are durable, with the events as stored; on failure nothing of
// evs may remain, or, for a store that cannot know, the store must resolve
// it on its next commit.
type sink interface {
	commit(ctx context.Context, evs []Event) ([]Event, error)
}

// span is one compaction marker: the event at seq hides [from, to].
type span struct {
	seq, from, to int64
}

func newCore(id string, clock func() time.Time, evs []Event, s sink) *core {
	c := &core{id: id, clock: clock, events: evs, sink: s}
	for _, e := range evs {
		if e.Type == Compaction {
			c.comps = append(c.comps, span{e.Seq, e.From, e.To})
		}
	}
	return c
}

func (c *core) append(ctx context.Context, h *handle, evs []Event) ([]Event, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if h.closed.Load() || c.closed {
		return nil, fmt.Errorf("append to session %q: %w", c.id, ErrClosed)
	}
	if len(evs) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("append to session %q: %w", c.id, err)
	}
	next := int64(len(c.events)) + 1 // events change only under wmu
	out, err := prepare(evs, next, c.clock().UTC())
	if err != nil {
		return nil, fmt.Errorf("append to session %q: %w", c.id, err)
	}
	if c.sink != nil {
		if out, err = c.sink.commit(ctx, out); err != nil {
			return nil, fmt.Errorf("append to session %q: %w", c.id, err)
		}
	}
	c.mu.Lock()
	c.events = append(c.events, out...)
	for _, e := range out {
		if e.Type == Compaction {
			c.comps = append(c.comps, span{e.Seq, e.From, e.To})
		}
	}
	c.mu.Unlock()
	return out, nil
}

// release marks the core closed once any Append in flight is done, so the
// store can close the sink's file.
func (c *core) release() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.closed = true
	c.sink = nil
}

// snapshot returns the events appended so far. The slice shares the log's
// backing array: Append only writes past its length, and appended events
// are never modified, so reading it needs no lock.
func (c *core) snapshot() []Event {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.events[:len(c.events):len(c.events)]
}

// info describes the session; see summary.info for created, forkOf and
// forkAt.
func (c *core) info(created time.Time, forkOf string, forkAt int64) Info {
	return summarize(c.snapshot()).info(c.id, created, forkOf, forkAt)
}

// summary is what Info needs from a session's events.
type summary struct {
	n           int
	first, last time.Time // of the first and last events
	title       string
	parent      string // the first user message's MetaParentSession
}

func summarize(evs []Event) summary {
	sm := summary{n: len(evs)}
	if len(evs) == 0 {
		return sm
	}
	sm.first, sm.last = evs[0].Time, evs[len(evs)-1].Time
	for _, e := range evs {
		if e.Type == User {
			sm.title, sm.parent = shortTitle(e.Text), e.Meta[MetaParentSession]
			break
		}
	}
	return sm
}

// info builds the session's Info. created is when the session was made;
// it is Created for an empty session and for a fork (whose first event is
// older than the fork); otherwise Created is the first event's time.
// Updated is the last event's time, or Created when that is later.
func (sm summary) info(id string, created time.Time, forkOf string, forkAt int64) Info {
	in := Info{ID: id, Events: sm.n, Created: created, Title: sm.title, ForkOf: forkOf, ForkAt: forkAt, Parent: sm.parent}
	if sm.n > 0 && (forkOf == "" || created.IsZero()) {
		in.Created = sm.first
	}
	in.Updated = in.Created
	if sm.n > 0 {
		in.Updated = later(in.Created, sm.last)
	}
	return in
}

// handle is the Log a store hands out. Several handles may share one core;
// closing one does not affect the others.
type handle struct {
	c       *core
	closed  atomic.Bool
	release func() error // called once, by the first Close; may be nil
	back    iter.Seq[Event]
}

func newHandle(c *core, release func() error) *handle {
	h := &handle{c: c, release: release}
	h.back = h.backward // made once, so Backward does not allocate
	return h
}

var _ Log = (*handle)(nil)

func (h *handle) ID() string { return h.c.id }

func (h *handle) Append(ctx context.Context, evs ...Event) ([]Event, error) {
	return h.c.append(ctx, h, evs)
}

func (h *handle) Len() int {
	h.c.mu.RLock()
	defer h.c.mu.RUnlock()
	return len(h.c.events)
}

// At returns the i-th event and panics when i is out of range, as indexing
// a slice does. Meta and Input are shared with the log: read them only.
func (h *handle) At(i int) Event {
	h.c.mu.RLock()
	defer h.c.mu.RUnlock()
	return h.c.events[i]
}

// Backward iterates over the events present when iteration starts, newest
// first. It holds no lock while yielding (it reads a snapshot of the slice
// header, not a copy of the events), so the loop body may call Append, At
// or Len on the same log.
func (h *handle) Backward() iter.Seq[Event] { return h.back }

func (h *handle) backward(yield func(Event) bool) {
	evs := h.c.snapshot()
	for i := len(evs) - 1; i >= 0; i-- {
		if !yield(evs[i]) {
			return
		}
	}
}

// Close is idempotent. Reads keep working after Close; Appends fail.
func (h *handle) Close() error {
	if !h.closed.CompareAndSwap(false, true) {
		return nil
	}
	if h.release == nil {
		return nil
	}
	return h.release()
}

// viewIndex lets Visible answer from the compaction index instead of
// scanning the log: the compaction markers so far, and n such that the log
// holds exactly the Seqs 1..n.
func (h *handle) viewIndex() ([]span, int64) {
	h.c.mu.RLock()
	defer h.c.mu.RUnlock()
	return h.c.comps[:len(h.c.comps):len(h.c.comps)], int64(len(h.c.events))
}

// prepare copies the events Append was given, numbers and stamps them, and
// normalizes them to exactly what decoding their JSON yields, so a log
// reads the same before and after a reopen: invalid UTF-8 becomes U+FFFD
// byte by byte (as encoding/json does), empty Meta and Input become nil.
// Meta and Input are copied, so the caller may reuse its own.
func prepare(evs []Event, next int64, now time.Time) ([]Event, error) {
	out := make([]Event, len(evs))
	for i, e := range evs {
		e.Seq = next + int64(i)
		e.Time = now
		e.Type = Type(utf8text.Valid(string(e.Type)))
		e.Text = utf8text.Valid(e.Text)
		e.ToolUseID = utf8text.Valid(e.ToolUseID)
		e.ToolName = utf8text.Valid(e.ToolName)
		e.Provenance = utf8text.Valid(e.Provenance)
		if e.Type == "" {
			return nil, fmt.Errorf("event %d: no type", i)
		}
		if e.Type == Compaction && (e.From < 1 || e.From > e.To || e.To >= e.Seq) {
			return nil, fmt.Errorf("event %d: compaction span [%d, %d] must be 1 <= from <= to < its own seq %d", i, e.From, e.To, e.Seq)
		}
		if len(e.Input) == 0 {
			e.Input = nil
		} else {
			if !json.Valid(e.Input) {
				return nil, fmt.Errorf("event %d: input is not valid JSON", i)
			}
			// Invalid UTF-8 can only sit inside a JSON string, where a
			// decoder reads it as U+FFFD anyway; replacing it keeps the
			// log valid UTF-8 text, and the JSONL encoding exact.
			e.Input = json.RawMessage(utf8text.Valid(string(e.Input)))
		}
		if len(e.Meta) == 0 {
			e.Meta = nil
		} else {
			m := make(map[string]string, len(e.Meta))
			for k, v := range e.Meta {
				m[utf8text.Valid(k)] = utf8text.Valid(v)
			}
			e.Meta = m
		}
		out[i] = e
	}
	return out, nil
}

// titleRunes is the longest Title, ellipsis included.
const titleRunes = 80

// shortTitle collapses whitespace, so a title is one line, and cuts the text
// to titleRunes runes with an ellipsis.
func shortTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= titleRunes {
		return s
	}
	r := []rune(s)
	return string(r[:titleRunes-1]) + "…"
}

// idTimeLayout is the sortable prefix of a session ID: UTC, to the second.
const idTimeLayout = "20060102T150405"

// newID returns "<UTC time to the second>-<6 random hex digits>", e.g.
// 20261130T072143-3f9a2c: IDs sort by creation time (to the second) and
// the store makes sure they are unique.
func newID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return now.UTC().Format(idTimeLayout) + "-" + hex.EncodeToString(b[:])
}

// maxIDLen bounds an ID so a file name built from it stays short.
const maxIDLen = 128

// checkID refuses an ID that could not have come from newID's alphabet or
// that could name something outside the store's directory: only ASCII
// letters, digits, '-', '_' and '.', starting with a letter or digit, and
// no "..".
func checkID(id string) error {
	if id == "" || len(id) > maxIDLen || strings.Contains(id, "..") {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case (c == '-' || c == '_' || c == '.') && i > 0:
		default:
			return fmt.Errorf("%w: %q", ErrInvalidID, id)
		}
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
