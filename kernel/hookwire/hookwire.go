// Package hookwire is the JSON form of the standard hook points' payloads and
// results, as they cross a process boundary to a plugin. The plugin host
// (plugins/host) converts the kernel's in-process payloads to these types and
// back; plugins/sdk hands them to plugin authors.
//
// Only what a plugin can use travels: a context:prepare handler sees the
// catalog's summaries, not the skills' loaders; a context:compact handler
// sees the model view's events, not the log itself.
package hookwire

import "encoding/json"

// SessionStart is the session:start payload. Result: a string (text for the
// start of the session), or pass.
type SessionStart struct {
	SessionID string `json:"sessionId"`
	WorkDir   string `json:"workDir"`
}

// Prepare is the context:prepare payload. Result: a string added to this
// request's system prompt, or pass.
type Prepare struct {
	SessionID string  `json:"sessionId"`
	Step      int     `json:"step"`
	Skills    []Skill `json:"skills"`
	Complete  bool    `json:"complete"`
}

// Skill is a catalog summary.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
}

// ToolCall is one tool call the model asked for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolBefore is the tool:before payload. Result: a ToolDecision, or pass.
type ToolBefore struct {
	SessionID string   `json:"sessionId"`
	Call      ToolCall `json:"call"`
}

// ToolDecision denies a call (with a reason the model reads) or replaces
// its arguments.
type ToolDecision struct {
	Deny   bool            `json:"deny,omitempty"`
	Reason string          `json:"reason,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
}

// TurnEnd is the turn:end payload. Result: a TurnDecision, or pass.
type TurnEnd struct {
	SessionID string     `json:"sessionId"`
	Step      int        `json:"step"`
	Text      string     `json:"text"`
	ToolCalls []ToolCall `json:"toolCalls"`
}

// TurnDecision says whether the turn ends.
type TurnDecision struct {
	End bool `json:"end"`
}

// Compact is the context:compact payload. Result: a Compaction, or pass.
type Compact struct {
	SessionID string  `json:"sessionId"`
	ViewBytes int     `json:"viewBytes"`
	Budget    int     `json:"budget"`
	Events    []Event `json:"events"`
}

// Event is one event of the model view.
type Event struct {
	Seq      int64  `json:"seq"`
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ToolName string `json:"toolName,omitempty"`
	Input    string `json:"input,omitempty"`
	IsError  bool   `json:"isError,omitempty"`
}

// Compaction hides the events with Seq in [From, To] behind Summary.
type Compaction struct {
	From    int64  `json:"from"`
	To      int64  `json:"to"`
	Summary string `json:"summary"`
}
