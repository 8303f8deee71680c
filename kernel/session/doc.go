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
// a warning, losing nothing before it.
package session
