package kernel

import (
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
)

// The standard points, typed. Each point's rule is written on its payload
// (package hookdata); Bind makes a handler of the point into a Mount.
var (
	// SessionStart runs once when a new session opens; the texts are joined
	// into one injected message at the start of the log.
	SessionStart = hooks.NewConcat[SessionStartIn, string](hooks.SessionStart)
	// PromptSubmit runs with each prompt before it enters the log: any
	// handler may block it; the contexts follow it.
	PromptSubmit = hooks.NewConcat[PromptSubmitIn, PromptDecision](hooks.PromptSubmit)
	// ContextPrepare runs before each model request; the texts are added to
	// that request's system prompt.
	ContextPrepare = hooks.NewConcat[PrepareIn, string](hooks.ContextPrepare)
	// CompactBefore tells every handler that the model view passed the
	// context budget, before ContextCompact runs.
	CompactBefore = hooks.NewNotify[CompactBeforeIn](hooks.CompactBefore)
	// ContextCompact runs when the model view passes the context budget;
	// the builtin compactor decides first whenever it can.
	ContextCompact = hooks.NewFirstWin[CompactIn, Compaction](hooks.ContextCompact)
	// ToolBefore runs before each tool call: deny it, rewrite its
	// arguments, have the person confirm it, or pass.
	ToolBefore = hooks.NewFirstWin[ToolBeforeIn, ToolDecision](hooks.ToolBefore)
	// ToolAfter runs after each tool call that ran; the contexts are
	// appended to the result the model reads.
	ToolAfter = hooks.NewConcat[ToolAfterIn, ToolFeedback](hooks.ToolAfter)
	// TurnEnd decides whether the turn ends after a step.
	TurnEnd = hooks.NewFirstWin[TurnEndIn, TurnDecision](hooks.TurnEnd)
	// SessionEnd tells every handler that the session was closed.
	SessionEnd = hooks.NewNotify[SessionEndIn](hooks.SessionEnd)
	// InstructionsLoaded tells every handler which instruction files the
	// model was just given. The kernel declares it in its run registry;
	// it is not on the plugin wire.
	InstructionsLoaded = hooks.NewNotify[InstructionsLoadedIn](hooks.Point{Name: "instructions:loaded", Kind: hooks.Concat, Scope: hooks.ScopeRun})
	// SubagentStart tells every handler that the Agent tool starts a
	// subagent in a child session. Declared by the kernel; not on the
	// plugin wire.
	SubagentStart = hooks.NewNotify[SubagentStartIn](hooks.Point{Name: "subagent:start", Kind: hooks.Concat, Scope: hooks.ScopeRun})
	// SubagentStop tells every handler that a subagent's turn ended; a
	// handler may keep the subagent going (TurnDecision.End false). Declared
	// by the kernel; not on the plugin wire.
	SubagentStop = hooks.NewConcat[SubagentStopIn, TurnDecision](hooks.Point{Name: "subagent:stop", Kind: hooks.Concat, Scope: hooks.ScopeRun})
)

// The payloads and results of the standard points: the types of package
// hookdata, which plugins/sdk aliases too, so a handler written for the
// kernel is a plugin's handler as it is.
type (
	// SessionStartIn is the session:start payload.
	SessionStartIn = hookdata.SessionStartIn
	// PromptSubmitIn is the prompt:submit payload.
	PromptSubmitIn = hookdata.PromptSubmitIn
	// PromptDecision is a prompt:submit result.
	PromptDecision = hookdata.PromptDecision
	// PrepareIn is the context:prepare payload.
	PrepareIn = hookdata.PrepareIn
	// CompactBeforeIn is the compact:before payload.
	CompactBeforeIn = hookdata.CompactBeforeIn
	// CompactIn is the context:compact payload.
	CompactIn = hookdata.CompactIn
	// Compaction is a context:compact result.
	Compaction = hookdata.Compaction
	// ToolBeforeIn is the tool:before payload.
	ToolBeforeIn = hookdata.ToolBeforeIn
	// ToolDecision is a tool:before result.
	ToolDecision = hookdata.ToolDecision
	// ToolAfterIn is the tool:after payload.
	ToolAfterIn = hookdata.ToolAfterIn
	// ToolFeedback is a tool:after result.
	ToolFeedback = hookdata.ToolFeedback
	// TurnEndIn is the turn:end payload.
	TurnEndIn = hookdata.TurnEndIn
	// TurnDecision is a turn:end result.
	TurnDecision = hookdata.TurnDecision
	// SessionEndIn is the session:end payload.
	SessionEndIn = hookdata.SessionEndIn
	// InstructionsLoadedIn is the instructions:loaded payload.
	InstructionsLoadedIn = hookdata.InstructionsLoadedIn
	// SubagentStartIn is the subagent:start payload.
	SubagentStartIn = hookdata.SubagentStartIn
	// SubagentStopIn is the subagent:stop payload.
	SubagentStopIn = hookdata.SubagentStopIn
	// InstructionFile is one file of an InstructionsLoadedIn.
	InstructionFile = hookdata.InstructionFile
)

// prepareIn is the context:prepare payload of a step: the entries of cat
// the model can see.
func prepareIn(sessionID string, step int, cat skills.Catalog) PrepareIn {
	in := PrepareIn{SessionID: sessionID, Step: step, Complete: cat.Complete, Skills: make([]hookdata.Skill, 0, len(cat.Skills))}
	for i := range cat.Skills {
		if s := &cat.Skills[i]; !s.DisableModelInvocation {
			in.Skills = append(in.Skills, hookdata.Skill{Name: s.Name, Description: s.Description, Source: s.Source})
		}
	}
	return in
}

// toolBeforeIn is the tool:before payload of call c.
func toolBeforeIn(sessionID string, c model.ToolCall) ToolBeforeIn {
	return ToolBeforeIn{SessionID: sessionID, Call: hookdata.ToolCall(c)}
}

// toolAfterIn is the tool:after payload of call c, which ran with args and
// gave res.
func toolAfterIn(sessionID string, c model.ToolCall, args []byte, res contract.ToolResult) ToolAfterIn {
	return ToolAfterIn{SessionID: sessionID, Call: hookdata.ToolCall{ID: c.ID, Name: c.Name, Arguments: args}, Content: res.Content, IsError: res.IsError}
}

// turnEndIn is the turn:end payload of a step the model answered with resp;
// continued says a turn:end handler kept the turn going before.
func turnEndIn(sessionID string, step int, resp model.Response, continued bool) TurnEndIn {
	in := TurnEndIn{SessionID: sessionID, Step: step, Text: resp.Text, Continued: continued, ToolCalls: make([]hookdata.ToolCall, len(resp.ToolCalls))}
	for i, c := range resp.ToolCalls {
		in.ToolCalls[i] = hookdata.ToolCall(c)
	}
	return in
}

// compactIn is the context:compact payload of log, whose model view of size
// bytes passed budget.
func compactIn(sessionID string, log session.Log, size, budget int) CompactIn {
	view := session.ModelView(log)
	in := CompactIn{SessionID: sessionID, ViewBytes: size, Budget: budget, Events: make([]hookdata.Event, len(view))}
	for i, ev := range view {
		in.Events[i] = hookdata.Event{Seq: ev.Seq, Type: string(ev.Type), Text: ev.Text, ToolName: ev.ToolName, Input: string(ev.Input), IsError: ev.IsError, From: ev.From, To: ev.To}
	}
	return in
}
