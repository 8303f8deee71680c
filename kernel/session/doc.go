// Package session is the agent session's append-only event log (contract C6).
//
// A session is a sequence of Events: user and assistant messages, tool_use and
// tool_result (paired by ToolUseID), injected messages with their provenance
// (the skills catalog, for example), and compaction markers whose summary
// replaces a span of earlier events in the model's view. Nothing is ever
// rewritten: changes reach the model as appended events, so earlier tokens
// stay cacheable and the log can be replayed, resumed and forked.
//
// Store is the port; every implementation must pass the conformance suite in
// package sessiontest. The default store (NewJSONLStore) keeps one JSONL file
// per session, fsyncs every append, and on open cuts off a torn last line with
// a warning, losing nothing before it. NewMemoryStore keeps sessions in memory
// with the same semantics, for tests.
//
// A store outside this package (store/postgres) keeps the same
// semantics with the kit in kit.go: NewLog is the in-memory Log every
// built-in store hands out, over a Commit of the store's own; InfoFacts,
// SortInfos, NewID and CheckID are the rules of Info, List and IDs. A store
// shared by several processes refuses a second writer with a *HeldError
// naming the holder, and a writer that lost its lock with ErrConflict.
//
// Append numbers events 1, 2, 3... and refuses, appending nothing of the
// batch, an event without a Type, Input that is not valid JSON, and a
// Compaction whose span is not 1 <= From <= To < its own Seq: a summary
// covers only what came before it. A fork keeps the Seqs of the events it
// copies, so its compaction spans keep their meaning.
//
// ModelView renders the log as the model sees it; Visible answers, without
// rendering it, whether one event is in that view (the catalog injector's
// "newest still-visible catalog").
package session
