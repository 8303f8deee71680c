package session

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

// interruptedText is the result the model reads for a call that never got
// one.
//
//go:embed interrupted.md
var interruptedText string

// InterruptedKey is the Meta key marking a result written for a tool call
// that was interrupted (its value is "true").
const InterruptedKey = "interrupted"

// Interrupted returns the result of a tool call that was interrupted before
// it returned one: an error the model reads as "the outcome is unknown".
// RepairInterrupted writes it to the log; a model view that still lacks a
// call's result (an embedder stepping a log it never repaired) shows the
// same text.
func Interrupted(call Event) Event {
	return Event{
		Type:      ToolResult,
		ToolUseID: call.ToolUseID,
		ToolName:  call.ToolName,
		Text:      strings.TrimSpace(interruptedText),
		IsError:   true,
		Meta:      map[string]string{InterruptedKey: "true"},
	}
}

// Unanswered returns the ToolUse events of l that no ToolResult with the
// same ToolUseID answers, in log order.
func Unanswered(l Log) []Event {
	answered := map[string]bool{}
	var calls []Event
	for ev := range l.Backward() {
		switch ev.Type {
		case ToolResult:
			answered[ev.ToolUseID] = true
		case ToolUse:
			if !answered[ev.ToolUseID] {
				calls = append(calls, ev)
				answered[ev.ToolUseID] = true // one result for a repeated ID
			}
		}
	}
	for i, j := 0, len(calls)-1; i < j; i, j = i+1, j-1 {
		calls[i], calls[j] = calls[j], calls[i]
	}
	return calls
}

// RepairInterrupted appends, in one batch, an Interrupted result for every
// tool call of l without a result: the process running the call was killed,
// or its store failed before the result was stored. Without it the next
// model request would carry a tool call with no answer, which
// OpenAI-compatible APIs refuse. A log whose calls are all answered is left
// alone, so repairing at every resume writes each result once. It returns
// the events appended.
func RepairInterrupted(ctx context.Context, l Log) ([]Event, error) {
	calls := Unanswered(l)
	if len(calls) == 0 {
		return nil, nil
	}
	evs := make([]Event, len(calls))
	for i, c := range calls {
		evs[i] = Interrupted(c)
	}
	out, err := l.Append(ctx, evs...)
	if err != nil {
		return nil, fmt.Errorf("answer %d interrupted tool call(s): %w", len(evs), err)
	}
	return out, nil
}
