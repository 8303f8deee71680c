package sdk

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/helios-agents/helios/kernel/hooks"
)

// Hook is a handler on a mount point. Prefer the typed constructors
// (ContextPrepare, ToolBefore, ...) or On, which hand the handler its
// payload as a typed value.
type Hook struct {
	// Point is the mount point, e.g. "context:prepare".
	Point string
	// Name tells two handlers of one plugin on the same point apart. The
	// kernel shows it as "<plugin>/<name>" in `helios hooks describe`; empty
	// shows the plugin's name alone.
	Name string
	// Handle gets the point's payload: a standard point's own type
	// (PrepareIn for context:prepare, ToolBeforeIn for tool:before, ...),
	// any other point's JSON (a json.RawMessage). It returns the point's
	// result (a string, a ToolDecision, ...; on a custom point anything that
	// marshals to JSON), or handled=false to pass.
	Handle func(ctx context.Context, in any) (result any, handled bool, err error)
}

// On builds a typed hook on any point: the handler gets the payload as an
// In and returns an Out with handled=true as the point's result. On a
// standard point In and Out are the point's types (the typed constructors
// below fix them); on a custom point the payload is decoded from its JSON
// into In, and Out is encoded as JSON.
func On[In, Out any](point, name string, h func(ctx context.Context, in In) (out Out, handled bool, err error)) Hook {
	return Hook{Point: point, Name: name, Handle: func(ctx context.Context, payload any) (any, bool, error) {
		in, err := payloadAs[In](point, payload)
		if err != nil {
			return nil, false, err
		}
		out, handled, err := h(ctx, in)
		if err != nil || !handled {
			return nil, false, err
		}
		return out, true, nil
	}}
}

// payloadAs returns payload as an In: as it is when it is one, else decoded
// from its JSON (a custom point's payload).
func payloadAs[In any](point string, payload any) (In, error) {
	var in In
	switch p := payload.(type) {
	case In:
		return p, nil
	case json.RawMessage:
		if err := json.Unmarshal(p, &in); err != nil {
			return in, fmt.Errorf("decode %s payload: %w", point, err)
		}
		return in, nil
	}
	return in, fmt.Errorf("decode %s payload: got %T, want %T", point, payload, in)
}

// SessionStart runs once when a session opens (concat): text returned with
// handled=true is joined, after the builtins', into a message at the start
// of the session.
func SessionStart(name string, h func(ctx context.Context, in SessionStartIn) (string, bool, error)) Hook {
	return On(hooks.SessionStart.Name, name, h)
}

// ContextPrepare runs before each model request (concat): text returned with
// handled=true is added to that request's system prompt, after the
// builtins'.
func ContextPrepare(name string, h func(ctx context.Context, in PrepareIn) (string, bool, error)) Hook {
	return On(hooks.ContextPrepare.Name, name, h)
}

// ContextCompact runs when the context passes its budget (firstWin). The
// builtin compactor decides whenever it can; a plugin only gets the call when
// it passed.
func ContextCompact(name string, h func(ctx context.Context, in CompactIn) (Compaction, bool, error)) Hook {
	return On(hooks.ContextCompact.Name, name, h)
}

// ToolBefore runs before each tool call (firstWin): deny it or rewrite its
// arguments with handled=true, or pass. A builtin that decided first means
// the plugin is not called at all.
func ToolBefore(name string, h func(ctx context.Context, in ToolBeforeIn) (ToolDecision, bool, error)) Hook {
	return On(hooks.ToolBefore.Name, name, h)
}

// TurnEnd decides whether the turn ends (firstWin).
func TurnEnd(name string, h func(ctx context.Context, in TurnEndIn) (TurnDecision, bool, error)) Hook {
	return On(hooks.TurnEnd.Name, name, h)
}

// PromptSubmit runs with each prompt before it enters the log (concat):
// block it with handled=true and Block, or add Context the model reads
// after it.
func PromptSubmit(name string, h func(ctx context.Context, in PromptSubmitIn) (PromptDecision, bool, error)) Hook {
	return On(hooks.PromptSubmit.Name, name, h)
}

// ToolAfter runs after each tool call that ran (concat): Context returned
// with handled=true is appended to the result the model reads, after the
// builtins'.
func ToolAfter(name string, h func(ctx context.Context, in ToolAfterIn) (ToolFeedback, bool, error)) Hook {
	return On(hooks.ToolAfter.Name, name, h)
}

// CompactBefore tells the plugin that the context passed its budget, before
// it is compacted (a notification: nothing the handler does changes what
// follows).
func CompactBefore(name string, h func(ctx context.Context, in CompactBeforeIn) error) Hook {
	return notify(hooks.CompactBefore.Name, name, h)
}

// SessionEnd tells the plugin that a session was closed (a notification).
func SessionEnd(name string, h func(ctx context.Context, in SessionEndIn) error) Hook {
	return notify(hooks.SessionEnd.Name, name, h)
}

// notify builds a hook on a notification point: the handler's error is
// reported, and it never has a result.
func notify[In any](point, name string, h func(ctx context.Context, in In) error) Hook {
	return On(point, name, func(ctx context.Context, in In) (struct{}, bool, error) {
		return struct{}{}, false, h(ctx, in)
	})
}
