package contract

import "context"

type sessionKey struct{}

// WithSessionID returns ctx carrying the ID of the session a tool call
// belongs to. The step loop sets it on every tool call, so that a tool
// keeping state per session (the Bash tool's temp dir) can find it.
func WithSessionID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, id)
}

// SessionID returns the session ID set by WithSessionID, or "" outside a
// session.
func SessionID(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}

// SessionEnder is implemented by a tool provider that keeps state per
// session; EndSession is called when the session is closed.
type SessionEnder interface {
	EndSession(id string)
}
