// Package hookwire is the JSON form of the standard hook points' payloads and
// results, as they cross a process boundary to a plugin. The plugin host
// (plugins/host) converts the kernel's in-process payloads to these types and
// back; plugins/sdk hands them to plugin authors. The native protobuf
// messages of plugins/proto carry the same values field by field, and the
// SDK hands them over as these types too.
//
// Only what a plugin can use travels: a context:prepare handler sees the
// catalog's summaries, not the skills' loaders; a context:compact handler
// sees the model view's events, not the log itself.
package hookwire

import "encoding/json"

// SessionStart is the session:start payload. Result: a string (text for the
// start of the session), or pass.
type SessionStart struct {
	// SessionID is the session the call is about.
	SessionID string `json:"sessionId"`
	// WorkDir is the agent's absolute work dir.
	WorkDir string `json:"workDir"`
}

// Prepare is the context:prepare payload. Result: a string added to this
// request's system prompt, or pass.
type Prepare struct {
	// SessionID is the session the call is about.
	SessionID string `json:"sessionId"`
	// Step counts the steps of the current turn from 1.
	Step int `json:"step"`
	// Skills are the catalog entries the model can see at this step.
	Skills []Skill `json:"skills"`
	// Complete is false when some skill source could not be read fully.
	Complete bool `json:"complete"`
}

// Skill is a catalog summary.
type Skill struct {
	// Name is the skill's name, which the skill tool loads it by.
	Name string `json:"name"`
	// Description says when to use the skill.
	Description string `json:"description"`
	// Source is "user", "project" or "capability:<name>".
	Source string `json:"source"`
}

// ToolCall is one tool call the model asked for.
type ToolCall struct {
	// ID pairs the call with its result.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the JSON the model wrote (it may be invalid).
	Arguments json.RawMessage `json:"arguments"`
}

// ToolBefore is the tool:before payload. Result: a ToolDecision, or pass.
type ToolBefore struct {
	// SessionID is the session the call is about.
	SessionID string `json:"sessionId"`
	// Call is the call about to run.
	Call ToolCall `json:"call"`
}

// ToolDecision denies a call (with a reason the model reads) or replaces
// its arguments.
type ToolDecision struct {
	// Deny refuses the call; the model reads Reason as the tool's error result.
	Deny bool `json:"deny,omitempty"`
	// Reason says why, to the model.
	Reason string `json:"reason,omitempty"`
	// Args, when set and Deny is not, replace the model's arguments.
	Args json.RawMessage `json:"args,omitempty"`
}

// TurnEnd is the turn:end payload. Result: a TurnDecision, or pass.
type TurnEnd struct {
	// SessionID is the session the call is about.
	SessionID string `json:"sessionId"`
	// Step counts the steps of the current turn from 1.
	Step int `json:"step"`
	// Text is what the model said at this step.
	Text string `json:"text"`
	// ToolCalls are the calls it asked for (already run).
	ToolCalls []ToolCall `json:"toolCalls"`
}

// TurnDecision says whether the turn ends.
type TurnDecision struct {
	// End ends the turn; false asks for another step.
	End bool `json:"end"`
}

// Compact is the context:compact payload. Result: a Compaction, or pass.
type Compact struct {
	// SessionID is the session the call is about.
	SessionID string `json:"sessionId"`
	// ViewBytes is the size of the model view.
	ViewBytes int `json:"viewBytes"`
	// Budget is the configured limit it passed.
	Budget int `json:"budget"`
	// Events are the model view's events, oldest first.
	Events []Event `json:"events"`
}

// Event is one event of the model view.
type Event struct {
	// Seq is the event's position in the log, from 1.
	Seq int64 `json:"seq"`
	// Type is the event type: "user", "assistant", "tool_use", "tool_result", "injected", ...
	Type string `json:"type"`
	// Text is a message's text or a tool result's content.
	Text string `json:"text,omitempty"`
	// ToolName names the tool of a tool_use or tool_result.
	ToolName string `json:"toolName,omitempty"`
	// Input is a tool_use's arguments.
	Input string `json:"input,omitempty"`
	// IsError marks a failed tool result.
	IsError bool `json:"isError,omitempty"`
}

// Compaction hides the events with Seq in [From, To] behind Summary.
type Compaction struct {
	// From and To are the first and last Seq hidden, inclusive.
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// Summary stands in for the hidden events in the model view.
	Summary string `json:"summary"`
}
