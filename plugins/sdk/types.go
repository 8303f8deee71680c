package sdk

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
)

// The types a plugin author uses, so that plugins/sdk is the one Helios
// import a plugin needs. They are aliases: a value of one is a value of the
// other.

// Tools.
type (
	// Tool is a tool for the model: Name, Description and a JSON Schema of
	// its arguments, which the model sees, and Call, which runs in the
	// plugin.
	Tool = contract.Tool
	// ToolResult is what a tool returns to the model. Errors the model
	// should read are a ToolResult with IsError, not a Go error.
	ToolResult = contract.ToolResult
)

// NewTool builds a Tool whose arguments are the struct In: the schema the
// model sees is derived from In's fields (their json names, their
// `jsonschema` tags as descriptions, required unless omitempty), and call
// receives the decoded arguments. A missing required argument or a value of
// the wrong type is a ToolResult naming the argument, and call does not run;
// refine adds to the schema what a type cannot say (bounds, defaults). It is
// kernel/contract's NewTool, which the builtin tools use too; see there for
// the whole rule.
//
//	type notesArgs struct {
//		Version string `json:"version" jsonschema:"The version being released, e.g. v1.5.0."`
//	}
//	sdk.NewTool("release_notes", "Drafts release notes.", func(ctx context.Context, in notesArgs) (sdk.ToolResult, error) { ... })
func NewTool[In any](name, description string, call func(ctx context.Context, in In) (ToolResult, error),
	refine ...func(*Schema)) Tool {
	return contract.NewTool(name, description, call, refine...)
}

// Schema is a JSON schema, as NewTool's refine functions adjust it.
type Schema = jsonschema.Schema

// ErrorResult is a ToolResult with IsError set and the formatted message.
func ErrorResult(format string, args ...any) ToolResult {
	return contract.ErrorResult(format, args...)
}

// Hook payloads (In) and results, one pair per standard point: the types of
// kernel/hookdata, which the kernel's own handlers take too (kernel.PrepareIn
// is PrepareIn), so a handler moves between a plugin and the kernel as it
// is. Each point's rule is written on its payload.
type (
	// SessionStartIn is the session:start payload; the result is text.
	SessionStartIn = hookdata.SessionStartIn
	// PrepareIn is the context:prepare payload (the catalog the model sees
	// at this step); the result is text for the system prompt.
	PrepareIn = hookdata.PrepareIn
	// Skill is one entry of PrepareIn's catalog.
	Skill = hookdata.Skill
	// CompactIn is the context:compact payload: the model view's events.
	CompactIn = hookdata.CompactIn
	// Event is one event of CompactIn's model view.
	Event = hookdata.Event
	// Compaction is a context:compact result: the span to hide and its
	// summary.
	Compaction = hookdata.Compaction
	// ToolBeforeIn is the tool:before payload: the call about to run.
	ToolBeforeIn = hookdata.ToolBeforeIn
	// ToolCall is a call the model asked for.
	ToolCall = hookdata.ToolCall
	// ToolDecision is a tool:before result: deny with a reason, or run with
	// replaced arguments.
	ToolDecision = hookdata.ToolDecision
	// TurnEndIn is the turn:end payload.
	TurnEndIn = hookdata.TurnEndIn
	// TurnDecision is a turn:end result.
	TurnDecision = hookdata.TurnDecision
	// PromptSubmitIn is the prompt:submit payload: the person's prompt.
	PromptSubmitIn = hookdata.PromptSubmitIn
	// PromptDecision is a prompt:submit result: block the prompt, or add
	// context after it.
	PromptDecision = hookdata.PromptDecision
	// ToolAfterIn is the tool:after payload: a call that ran and its
	// result.
	ToolAfterIn = hookdata.ToolAfterIn
	// ToolFeedback is a tool:after result: text added to the call's result.
	ToolFeedback = hookdata.ToolFeedback
	// CompactBeforeIn is the compact:before payload.
	CompactBeforeIn = hookdata.CompactBeforeIn
	// SessionEndIn is the session:end payload.
	SessionEndIn = hookdata.SessionEndIn
)
