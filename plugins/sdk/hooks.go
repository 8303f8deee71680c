package sdk

import (
	"context"
	"encoding/json"
	"fmt"
)

// On builds a typed hook: the payload is decoded into In, and the Out a
// handler returns with handled=true is the point's result. When point is a
// standard point and In its payload type (PrepareIn for context:prepare,
// ...), the hook also takes the payload in the native form the kernel sends
// (Hook.Typed).
func On[In, Out any](point, name string, h func(ctx context.Context, in In) (out Out, handled bool, err error)) Hook {
	hook := Hook{Point: point, Name: name, Handle: func(ctx context.Context, payload json.RawMessage) (any, bool, error) {
		var in In
		if err := json.Unmarshal(payload, &in); err != nil {
			return nil, false, fmt.Errorf("%s: decode payload: %w", point, err)
		}
		out, handled, err := h(ctx, in)
		if err != nil || !handled {
			return nil, false, err
		}
		return out, true, nil
	}}
	var zero In
	if nativePayload(point, zero) {
		hook.Typed = func(ctx context.Context, v any) (any, bool, error) {
			in, ok := v.(In)
			if !ok {
				return nil, false, fmt.Errorf("%s: decode payload: got %T, want %T", point, v, zero)
			}
			out, handled, err := h(ctx, in)
			if err != nil || !handled {
				return nil, false, err
			}
			return out, true, nil
		}
	}
	return hook
}

// nativePayload says whether in has the type of point's native payload.
func nativePayload(point string, in any) bool {
	switch in.(type) {
	case SessionStartIn:
		return point == "session:start"
	case PrepareIn:
		return point == "context:prepare"
	case ToolBeforeIn:
		return point == "tool:before"
	case TurnEndIn:
		return point == "turn:end"
	case CompactIn:
		return point == "context:compact"
	}
	return false
}

// SessionStart runs once when a session opens (concat): text returned with
// handled=true is joined, after the builtins', into a message at the start
// of the session.
func SessionStart(name string, h func(ctx context.Context, in SessionStartIn) (string, bool, error)) Hook {
	return On("session:start", name, h)
}

// ContextPrepare runs before each model request (concat): text returned with
// handled=true is added to that request's system prompt, after the
// builtins'.
func ContextPrepare(name string, h func(ctx context.Context, in PrepareIn) (string, bool, error)) Hook {
	return On("context:prepare", name, h)
}

// ContextCompact runs when the context passes its budget (firstWin). The
// builtin compactor decides whenever it can; a plugin only gets the call when
// it passed.
func ContextCompact(name string, h func(ctx context.Context, in CompactIn) (Compaction, bool, error)) Hook {
	return On("context:compact", name, h)
}

// ToolBefore runs before each tool call (firstWin): deny it or rewrite its
// arguments with handled=true, or pass. A builtin that decided first means
// the plugin is not called at all.
func ToolBefore(name string, h func(ctx context.Context, in ToolBeforeIn) (ToolDecision, bool, error)) Hook {
	return On("tool:before", name, h)
}

// TurnEnd decides whether the turn ends (firstWin).
func TurnEnd(name string, h func(ctx context.Context, in TurnEndIn) (TurnDecision, bool, error)) Hook {
	return On("turn:end", name, h)
}
