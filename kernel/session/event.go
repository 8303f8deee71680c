package session

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"time"
)

// Type is the kind of an event.
type Type string

const (
	// User is a message from the person.
	User Type = "user"
	// Assistant is text from the model. Tool calls it made in the same reply
	// follow as ToolUse events.
	Assistant Type = "assistant"
	// ToolUse is one tool call by the model.
	ToolUse Type = "tool_use"
	// ToolResult is the result of the ToolUse with the same ToolUseID.
	ToolResult Type = "tool_result"
	// Injected is a message the kernel added on the user's side (the skills
	// catalog, for example); Provenance says who added it.
	Injected Type = "injected"
	// Compaction replaces the events with Seq in [From, To] by Text in the
	// model's view. The events themselves stay in the log.
	Compaction Type = "compaction"
)

// Event is one entry of the log. Seq and Time are set by Append.
type Event struct {
	// Seq is the event's position in the log, from 1.
	Seq int64 `json:"seq"`
	// Time is when it was appended.
	Time time.Time `json:"time"`
	// Type says what kind of event it is, and which fields are set.
	Type Type `json:"type"`
	// Text is the message text, the tool result content or the compaction
	// summary.
	Text string `json:"text,omitempty"`
	// ToolUseID pairs a ToolUse with its ToolResult.
	ToolUseID string `json:"toolUseId,omitempty"`
	// ToolName and Input describe a ToolUse.
	ToolName string          `json:"toolName,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	// IsError marks a ToolResult the model should read as a failure.
	IsError bool `json:"isError,omitempty"`
	// Provenance names who injected an Injected event ("skills-catalog").
	Provenance string `json:"provenance,omitempty"`
	// Meta carries small facts about the event (an injected catalog's
	// digest, a model's finish reason).
	Meta map[string]string `json:"meta,omitempty"`
	// From and To bound the span a Compaction replaces (inclusive Seqs).
	From int64 `json:"from,omitempty"`
	To   int64 `json:"to,omitempty"`
	// Usage counts the tokens of the model request that produced an
	// Assistant event, when the provider reported them.
	Usage Usage `json:"usage,omitzero"`
}

// Usage counts the tokens of one model request.
type Usage struct {
	// Input is the whole prompt, the tokens read from and written to the
	// provider's prompt cache included.
	Input int `json:"input"`
	// Output is the answer.
	Output int `json:"output"`
	// CacheRead are the prompt tokens served from the prompt cache.
	CacheRead int `json:"cacheRead,omitempty"`
	// CacheWrite are the prompt tokens written to the prompt cache.
	CacheWrite int `json:"cacheWrite,omitempty"`
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{Input: u.Input + o.Input, Output: u.Output + o.Output, CacheRead: u.CacheRead + o.CacheRead, CacheWrite: u.CacheWrite + o.CacheWrite}
}

// Info describes a session for listings.
type Info struct {
	// ID names the session.
	ID string `json:"id"`
	// Created and Updated are the times of its first and last events.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Events counts its events.
	Events int `json:"events"`
	// Title is the first user message, shortened.
	Title string `json:"title"`
	// ForkOf and ForkAt name the session and Seq this one was forked from.
	ForkOf string `json:"forkOf,omitempty"`
	ForkAt int64  `json:"forkAt,omitempty"`
	// Parent is the session whose subagent call started this one: the
	// MetaParentSession of its first user message; "" for a top session.
	Parent string `json:"parent,omitempty"`
}

// MetaParentSession is the Meta key of a child session's first user
// message naming the session that started it (Info.Parent).
const MetaParentSession = "parent_session"

// Errors callers test for.
var (
	ErrNotFound = errors.New("session not found")
	ErrClosed   = errors.New("session log is closed")
	// ErrInvalidID is returned for a session ID a store could never have
	// made: empty, or with a path separator, "..", or a leading dot. An ID
	// from a user never reaches the file system unchecked.
	ErrInvalidID = errors.New("invalid session id")
	// ErrLineTooLong is wrapped by the error of a JSONL session line over
	// the store's line limit (JSONLConfig.MaxLine): refused on Append,
	// and reported with the file and line on reading.
	ErrLineTooLong = errors.New("session line too long")
)

// Store creates, opens, lists and forks session logs.
type Store interface {
	// Create starts a new, empty session.
	Create(ctx context.Context) (Log, error)
	// Open reopens a session to resume it. ErrNotFound when it does not exist.
	Open(ctx context.Context, id string) (Log, error)
	// List returns every session, most recently updated first.
	List(ctx context.Context) ([]Info, error)
	// Fork creates a new session holding a copy of id's events with Seq <=
	// at (at <= 0: all of them).
	Fork(ctx context.Context, id string, at int64) (Log, error)
}

// Reader is a Store that can read a session's events without opening it
// for appending (so without waiting for, or blocking, the process that runs
// it). Found by type assertion; the CLI's `sessions show` uses it.
type Reader interface {
	Read(ctx context.Context, id string) ([]Event, error)
}

// Log is one session's event log. It is safe for concurrent use.
type Log interface {
	ID() string
	// Append adds events in order, setting Seq (one more than the last) and
	// Time. When it returns nil the events are durable.
	Append(ctx context.Context, evs ...Event) ([]Event, error)
	// Len is the number of events.
	Len() int
	// At returns the i-th event (0-based). It does not copy the log.
	At(i int) Event
	// Backward yields events from the newest to the oldest, without copying
	// the log; stop early by returning false.
	Backward() iter.Seq[Event]
	// Close releases the log; later Appends fail with ErrClosed.
	Close() error
}
