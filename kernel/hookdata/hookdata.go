package hookdata

import (
	"encoding/json"

	"github.com/helios-agents/helios/kernel/contract"
)

// SessionStartIn is the session:start payload (concat, session scope): once,
// when a new session opens. The result is text; the texts of every handler
// that returns one are joined, in dispatch order, into one message at the
// start of the session.
type SessionStartIn struct {
	// SessionID is the session that opens.
	SessionID string
	// WorkDir is the agent's absolute work dir.
	WorkDir string
}

// PrepareIn is the context:prepare payload (concat, run scope): before each
// model request. The result is text; the texts of every handler that
// returns one are joined, in dispatch order (builtins first), and added to
// that request's system prompt. They are not logged.
type PrepareIn struct {
	// SessionID is the session the request is for.
	SessionID string
	// Step counts the steps of the current turn from 1.
	Step int
	// Skills are the catalog entries the model can see at this step, in
	// catalog order (hidden skills are left out).
	Skills []Skill
	// Complete is false when some skill source could not be read fully, so
	// Skills may miss skills that exist.
	Complete bool
}

// Skill is one entry of PrepareIn's catalog.
type Skill struct {
	// Name is the skill's name, which the skill tool loads it by.
	Name string
	// Description says when to use the skill.
	Description string
	// Source is "user", "project" or "capability:<name>".
	Source string
}

// CompactIn is the context:compact payload (firstWin, session scope): when
// the model view passes the context budget. The first handler that decides
// returns a Compaction; the builtin compactor decides whenever it can, so a
// plugin gets the call only when the builtin passed.
type CompactIn struct {
	// SessionID is the session whose context is compacted.
	SessionID string
	// ViewBytes is the size of the model view.
	ViewBytes int
	// Budget is the configured limit it passed.
	Budget int
	// Events are the model view's events, oldest first.
	Events []Event
}

// Event is one event of CompactIn's model view.
type Event struct {
	// Seq is the event's position in the log, from 1.
	Seq int64
	// Type is "user", "assistant", "tool_use", "tool_result", "injected" or
	// "compaction".
	Type string
	// Text is a message's text, a tool result's content or a compaction's
	// summary.
	Text string
	// ToolName names the tool of a tool_use or tool_result.
	ToolName string
	// Input is a tool_use's arguments.
	Input string
	// IsError marks a failed tool result.
	IsError bool
	// From and To are the span an earlier compaction hid (inclusive Seqs);
	// zero for any other event. A compaction that starts at such an event
	// hides from its From.
	From, To int64
}

// Compaction is a context:compact result: the events with Seq in [From, To]
// are hidden from the model behind Summary (they stay in the log). From is at
// least 1 and To at least From.
type Compaction struct {
	// From and To are the first and last Seq hidden, inclusive.
	From, To int64
	// Summary stands in for the hidden events in the model view.
	Summary string
}

// ToolBeforeIn is the tool:before payload (firstWin, run scope): before each
// tool call. The first handler that decides returns a ToolDecision; handlers
// with nothing to say pass, and with every handler passing the call runs as
// the model wrote it.
type ToolBeforeIn struct {
	// SessionID is the session the call is in.
	SessionID string
	// Call is the call about to run.
	Call ToolCall
	// Annotations are what the called tool's provider says of it (an MCP
	// server's read-only and destructive hints); nil when it says nothing
	// or no tool has that name.
	Annotations *contract.ToolAnnotations
}

// ToolCall is a tool call the model asked for.
type ToolCall struct {
	// ID pairs the call with its result.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the JSON the model wrote (it may be invalid: models make
	// mistakes, and the tool reports them as results).
	Arguments json.RawMessage
}

// ToolDecision is a tool:before result: deny the call with a Reason the
// model reads as the tool's error result, run it with Args replacing the
// model's arguments, or have the person confirm it first (Ask). Args must
// be JSON. Stop ends the turn once this step's calls have their results,
// whatever else the decision says; the calls after this one are not run.
type ToolDecision struct {
	// Deny refuses the call.
	Deny bool
	// Reason says why, to the model ("denied by policy" when empty); with
	// Ask it is the question's reason, shown to the person.
	Reason string
	// Args, when set and Deny is not, replace the model's arguments.
	Args json.RawMessage
	// Ask, when Deny is not set, runs the call only if the person allows
	// it. A session nobody can be asked in (a non-interactive run) denies
	// the call, saying so to the model.
	Ask bool
	// Stop ends the turn after this step (the call itself is not run);
	// StopReason tells the person why, never the model.
	Stop bool
	// StopReason says why the turn stopped, to the person.
	StopReason string
}

// TurnEndIn is the turn:end payload (firstWin, run scope): after each step,
// once its tool calls ran. The first handler that decides returns a
// TurnDecision. When every handler passes, the turn ends when the model
// asked for no tool calls; at the step limit it ends whatever the handlers
// decide.
type TurnEndIn struct {
	// SessionID is the session the turn is in.
	SessionID string
	// Step counts the steps of the current turn from 1.
	Step int
	// Text is what the model said at this step.
	Text string
	// ToolCalls are the calls it asked for (already run).
	ToolCalls []ToolCall
	// Continued says a turn:end handler already kept this turn going at an
	// earlier step (Claude Code's stop_hook_active): a handler that asks
	// for more work can check it and not loop.
	Continued bool
}

// TurnDecision is a turn:end result.
type TurnDecision struct {
	// End ends the turn; false asks for another step.
	End bool
	// Reason, when End is false, is added as a message the model reads at
	// the next step: what is left to do. Empty adds nothing.
	Reason string
}

// PromptSubmitIn is the prompt:submit payload (concat, run scope): once per
// turn, with the person's prompt, before it enters the log. Every handler
// runs, in dispatch order. If any result blocks, the prompt is dropped (it
// never reaches the log or the model) and the turn ends at once with the
// Reasons, for the person; otherwise the results' Contexts are joined, in
// dispatch order, into one message after the prompt.
type PromptSubmitIn struct {
	// SessionID is the session the prompt is for.
	SessionID string
	// Prompt is what the person wrote.
	Prompt string
}

// PromptDecision is a prompt:submit result.
type PromptDecision struct {
	// Block drops the prompt and ends the turn.
	Block bool
	// Reason says why, to the person (never to the model).
	Reason string
	// Context is text the model reads after the prompt.
	Context string
}

// ToolAfterIn is the tool:after payload (concat, run scope): after each
// call that ran (a call denied or of an unknown tool did not), with the
// result the model is about to read. Every handler runs, in dispatch order;
// the Contexts of the results are appended, in that order, to the call's
// result. A result with Stop ends the turn once this step's calls have
// their results; the calls after this one are not run.
type ToolAfterIn struct {
	// SessionID is the session the call is in.
	SessionID string
	// Call is the call as it ran (arguments rewritten by tool:before).
	Call ToolCall
	// Content is the call's result, as the model reads it.
	Content string
	// IsError marks a failed call.
	IsError bool
}

// ToolFeedback is a tool:after result.
type ToolFeedback struct {
	// Context is text the model reads after the call's result.
	Context string
	// Stop ends the turn after this step; StopReason tells the person why,
	// never the model.
	Stop bool
	// StopReason says why the turn stopped, to the person.
	StopReason string
}

// CompactBeforeIn is the compact:before payload (notification, session
// scope): once each time the model view passed the context budget, before
// context:compact decides how to compact it. Every handler runs, in
// dispatch order; none can change what follows.
type CompactBeforeIn struct {
	// SessionID is the session whose context is about to be compacted.
	SessionID string
	// ViewBytes is the size of the model view.
	ViewBytes int
	// Budget is the configured limit it passed.
	Budget int
}

// SessionEndIn is the session:end payload (notification, session scope):
// once, when the session is closed. Every handler runs, in dispatch order;
// none can keep the session open.
type SessionEndIn struct {
	// SessionID is the session that ends.
	SessionID string
	// WorkDir is the agent's absolute work dir.
	WorkDir string
}

// InstructionsLoadedIn is the instructions:loaded payload (notification,
// run scope): instruction files (AGENTS.md, CLAUDE.md) the model was just
// given, at the start of a session or when a tool worked in a folder with
// a file of its own. Every handler runs, in dispatch order; none can
// change what the model gets.
type InstructionsLoadedIn struct {
	// SessionID is the session the files were given to.
	SessionID string
	// Files are the files, farthest first.
	Files []InstructionFile
}

// InstructionFile is one instruction file given to the model.
type InstructionFile struct {
	// Path is the file's absolute path.
	Path string
	// MemoryType is Claude Code's name for where it comes from: "User"
	// (~/.helios/AGENTS.md, ~/.claude/CLAUDE.md), "Local" (CLAUDE.local.md)
	// or "Project".
	MemoryType string
	// LoadReason is why it was loaded: "session_start",
	// "nested_traversal" for a folder below the work dir, or "compact"
	// when compaction hid what the model had read and it is sent again.
	LoadReason string
}

// SubagentStartIn is the subagent:start payload (notification, run scope):
// the Agent tool is about to run a subagent in a child session. Every
// handler runs, in dispatch order; none can change what the subagent gets.
type SubagentStartIn struct {
	// SessionID is the parent session, whose model called the Agent tool.
	SessionID string
	// AgentID is the child session's ID.
	AgentID string
	// AgentType is the subagent's name (the call's subagent_type).
	AgentType string
	// ToolUseID is the ID of the parent's Agent call.
	ToolUseID string
}

// SubagentStopIn is the subagent:stop payload (concat, run scope): a
// subagent's turn ended, answered or failed. Every handler runs, in dispatch
// order, and returns a TurnDecision or passes. When the subagent answered
// and a decision has End false, the subagent goes on with that decision's
// Reason (the first non-empty one) as its next prompt, while it has made
// fewer model requests than its maxTurns; then subagent:stop runs again.
// A failed subagent is never kept going.
type SubagentStopIn struct {
	// SessionID is the parent session.
	SessionID string
	// AgentID is the child session's ID.
	AgentID string
	// AgentType is the subagent's name.
	AgentType string
	// ToolUseID is the ID of the parent's Agent call.
	ToolUseID string
	// LastAssistantMessage is the subagent's final text ("" when it failed).
	LastAssistantMessage string
	// Continued says a subagent:stop handler kept this subagent going
	// before (Claude Code's stop_hook_active).
	Continued bool
	// Error says why the subagent failed; "" when it answered.
	Error string
}

// PermissionRequestIn is the permission:request payload (firstWin, run
// scope): a call the person would be asked to confirm (a permission rule's
// ask, or a tool:before handler's), before anyone is asked, in every run,
// also one where no one can be asked. The first handler that decides
// returns a PermissionAnswer, which answers in the person's stead; with
// every handler passing, the person is asked (or, with no one to ask, the
// call is denied). A call a deny rule matched never gets here.
type PermissionRequestIn struct {
	// SessionID is the session the call is in.
	SessionID string
	// Call is the call as it would run (arguments rewritten by tool:before).
	Call ToolCall
	// Annotations are what the called tool's provider says of it; nil when
	// it says nothing or no tool has that name.
	Annotations *contract.ToolAnnotations
	// Rule is the permission rule that asks; "" when only a tool:before
	// handler asks.
	Rule string
	// Reason is why the call is put to the person: the handler's and the
	// rule's reasons, as the person would read them.
	Reason string
}

// PermissionAnswer is a permission:request result: allow the call (with
// Args, when set, replacing its arguments) or deny it (Deny) with a
// Message the model reads as the call's error result. Args must be JSON;
// the call they make is decided by the deny rules again. Interrupt, with
// Deny, ends the turn once this step's calls have their results.
type PermissionAnswer struct {
	// Deny refuses the call; false allows it.
	Deny bool
	// Message says why it is denied, to the model ("denied by a
	// permission:request handler" when empty).
	Message string
	// Args, when set and Deny is not, replace the call's arguments.
	Args json.RawMessage
	// Interrupt, with Deny, stops the turn after this step.
	Interrupt bool
}
