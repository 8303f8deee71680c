package session

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// This file is the kit for stores outside this package (a database, say):
// the in-memory Log every built-in store hands out, and the rules an Info
// and an ID follow, so that every store keeps the same semantics.

// Errors a store shared by several processes returns.
var (
	// ErrConflict means the session changed under a writer: it lost its
	// lock and another writer appended before it got the lock back. The
	// Log refuses to interleave; reopen the session to continue it.
	ErrConflict = errors.New("session was written by another writer")
	// ErrHeld is matched (errors.Is) by every *HeldError.
	ErrHeld = errors.New("session is open for writing elsewhere")
)

// HeldError refuses opening a session that another writer holds: another
// process, perhaps on another host, or another Log in this one. Its text
// leaves the session's ID to the error wrapping it.
type HeldError struct {
	// ID is the session's.
	ID string
	// Host, PID and Since name the holder and when it took the session;
	// Host is empty when the holder could not be identified.
	Host  string
	PID   int
	Since time.Time
}

func (e *HeldError) Error() string {
	if e.Host == "" {
		return "the session is open for writing by another writer"
	}
	return fmt.Sprintf("the session is open for writing by pid %d on host %s since %s",
		e.PID, e.Host, e.Since.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrHeld) true.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// LogConfig configures NewLog.
type LogConfig struct {
	// Clock stamps appended events. Nil means time.Now. A store that keeps
	// less precision than a time.Time truncates here, so an event reads
	// back as Append returned it.
	Clock func() time.Time
	// Commit makes a batch durable. evs are numbered from the log's next
	// Seq, stamped, validated and normalized; Commit returns them as
	// stored (the same Seqs in the same order; a store may return the
	// Times of a retried batch that was stored earlier). On error nothing
	// of the batch becomes visible in the Log. Calls never overlap.
	// Required.
	Commit func(ctx context.Context, evs []Event) ([]Event, error)
	// Close is called once, by the Log's first Close, after any Append in
	// flight returned. Nil does nothing.
	Close func() error
}

// NewLog returns a Log over a session's stored events, for a store outside
// this package: At, Len and Backward read memory; Append numbers, stamps,
// validates and normalizes the batch as every built-in store does, then
// calls cfg.Commit. evs must have Seqs 1..len(evs) in order.
func NewLog(id string, evs []Event, cfg LogConfig) (Log, error) {
	if cfg.Commit == nil {
		return nil, fmt.Errorf("new log %q: no Commit", id)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			return nil, fmt.Errorf("new log %q: event %d has seq %d, want %d", id, i, e.Seq, i+1)
		}
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	c := newCore(id, cfg.Clock, evs, commitSink(cfg.Commit))
	return newHandle(c, func() error {
		c.release()
		if cfg.Close == nil {
			return nil
		}
		return cfg.Close()
	}), nil
}

// commitSink adapts LogConfig.Commit, holding the store to its promise.
type commitSink func(ctx context.Context, evs []Event) ([]Event, error)

func (f commitSink) commit(ctx context.Context, evs []Event) ([]Event, error) {
	out, err := f(ctx, evs)
	if err != nil {
		return nil, err
	}
	if len(out) != len(evs) {
		return nil, fmt.Errorf("store returned %d events for a batch of %d", len(out), len(evs))
	}
	for i := range out {
		if out[i].Seq != evs[i].Seq {
			return nil, fmt.Errorf("store returned seq %d for seq %d", out[i].Seq, evs[i].Seq)
		}
	}
	return out, nil
}

// InfoFacts are what a session's Info is made of, as a store reads them
// without decoding every event.
type InfoFacts struct {
	ID string
	// Created is when the session (or fork) was made.
	Created time.Time
	ForkOf  string
	ForkAt  int64
	// Events counts the events; First and Last are the first and last
	// events' Times.
	Events      int
	First, Last time.Time
	// FirstUserText is the Text of the first User event, if any.
	FirstUserText string
	// Parent is the first User event's Meta[MetaParentSession], if any.
	Parent string
}

// Info builds the Info every built-in store reports: Title is the first
// user message shortened to one line of at most 80 runes; Created is the
// first event's time unless the session is empty or a fork; Updated is the
// last event's time, or Created when that is later.
func (f InfoFacts) Info() Info {
	sm := summary{n: f.Events, first: f.First, last: f.Last, title: shortTitle(f.FirstUserText), parent: f.Parent}
	return sm.info(f.ID, f.Created, f.ForkOf, f.ForkAt)
}

// SortInfos orders infos as List returns them: Updated newest first, then
// ID, greatest first.
func SortInfos(infos []Info) { sortInfos(infos) }

// NewID returns a fresh session ID for a session created at now (sortable
// by time, with random digits); the store makes sure it is unused.
func NewID(now time.Time) string { return newID(now) }

// CheckID returns an error wrapping ErrInvalidID for an ID no store could
// have made; a store calls it before an ID reaches its storage.
func CheckID(id string) error { return checkID(id) }
