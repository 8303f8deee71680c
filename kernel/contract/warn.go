package contract

import "context"

type warnKey struct{}

// WithWarnings returns ctx carrying fn, which Warn calls with each warning
// reported under it (and then whatever function ctx already carried). A
// session sets it around what it dispatches, so that a failing hook
// handler, or a hook command that timed out, is shown to whoever watches
// the session (the terminal UI, `helios run --json`) as well as logged.
func WithWarnings(ctx context.Context, fn func(Warning)) context.Context {
	if outer, _ := ctx.Value(warnKey{}).(func(Warning)); outer != nil {
		inner := fn
		fn = func(w Warning) {
			inner(w)
			outer(w)
		}
	}
	return context.WithValue(ctx, warnKey{}, fn)
}

// Warn passes w to the functions WithWarnings set on ctx, if any.
func Warn(ctx context.Context, w Warning) {
	if fn, _ := ctx.Value(warnKey{}).(func(Warning)); fn != nil {
		fn(w)
	}
}
