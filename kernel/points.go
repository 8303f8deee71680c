package kernel

import (
	"encoding/json"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
)

// The standard points, typed. Each point's rule is written on its payload.
var (
	// SessionStart runs once when a new session opens. Every handler may
	// return text; the texts are joined in dispatch order into one injected
	// message at the start of the log.
	SessionStart = hooks.NewConcat[SessionStartIn, string](hooks.SessionStart)
	// ContextPrepare runs before each model request. Every handler may
	// return text; the texts are joined in dispatch order (builtins first)
	// and added to that request's system prompt. They are not logged.
	ContextPrepare = hooks.NewConcat[PrepareIn, string](hooks.ContextPrepare)
	// ContextCompact runs when the model view passes the context budget. The
	// first handler that decides returns the span to hide and its summary;
	// the builtin compactor decides whenever it can, so a plugin only gets
	// the call when the builtin passes.
	ContextCompact = hooks.NewFirstWin[CompactIn, Compaction](hooks.ContextCompact)
	// ToolBefore runs before each tool call. The first handler that decides
	// either denies the call (the model gets the reason as an error result)
	// or rewrites its arguments. Handlers with nothing to say pass.
	ToolBefore = hooks.NewFirstWin[ToolBeforeIn, ToolDecision](hooks.ToolBefore)
	// TurnEnd decides whether the turn ends after a step. When every handler
	// passes, the turn ends when the model asked for no tool calls. At the
	// step limit (MaxSteps) the turn ends whatever the handlers decide.
	TurnEnd = hooks.NewFirstWin[TurnEndIn, TurnDecision](hooks.TurnEnd)
)

// SessionStartIn is the session:start payload.
type SessionStartIn struct {
	// SessionID is the session the call is about.
	SessionID string
	// WorkDir is the agent's absolute work dir.
	WorkDir string
}

// PrepareIn is the context:prepare payload.
type PrepareIn struct {
	// SessionID is the session the call is about.
	SessionID string
	// Step counts the steps of the current turn from 1.
	Step int
	// Catalog is the skills catalog of this step.
	Catalog skills.Catalog
}

// CompactIn is the context:compact payload.
type CompactIn struct {
	// SessionID is the session the call is about.
	SessionID string
	// Log is the session's event log.
	Log session.Log
	// ViewBytes is the size of the model view; Budget the configured limit.
	ViewBytes int
	// Budget is the configured limit.
	Budget int
	// Model is the session's model, for a handler that summarizes with it.
	Model model.Model
}

// Compaction hides the events with Seq in [From, To] behind Summary.
type Compaction struct {
	// From and To are the first and last Seq hidden, inclusive.
	From, To int64
	// Summary stands in for the hidden events in the model view.
	Summary string
}

// ToolBeforeIn is the tool:before payload.
type ToolBeforeIn struct {
	// SessionID is the session the call is about.
	SessionID string
	// Call is the call about to run.
	Call model.ToolCall
	// Annotations are what the called tool's provider says of it (an MCP
	// server's read-only and destructive hints); nil when it says nothing
	// or no tool has that name.
	Annotations *contract.ToolAnnotations
}

// ToolDecision is a tool:before decision: Deny with a Reason, or run with
// Args replacing the model's arguments.
type ToolDecision struct {
	// Deny refuses the call; the model reads Reason as the tool's error result.
	Deny bool
	// Reason says why, to the model ("denied by policy" when empty).
	Reason string
	// Args, when set and Deny is not, replace the model's arguments.
	Args json.RawMessage
}

// TurnEndIn is the turn:end payload.
type TurnEndIn struct {
	// SessionID is the session the call is about.
	SessionID string
	// Step counts the steps of the current turn from 1.
	Step int
	// Response is the model's answer at this step (its tool calls already ran).
	Response model.Response
}

// TurnDecision says whether the turn ends.
type TurnDecision struct {
	// End ends the turn; false asks for another step.
	End bool
}
