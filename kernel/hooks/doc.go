// Package hooks is the kernel's ordered hook registry.
//
// A mount point has a name, a kind and a scope:
//
//   - Concat points run every handler, in order, and join their results in
//     that order (session:start, prompt:submit, context:prepare,
//     tool:after). A notification point is a concat point whose handlers
//     return nothing (compact:before, session:end).
//   - FirstWin points run handlers in order until one says it handled the
//     call; later handlers are never called (context:compact, tool:before,
//     turn:end). A handler that has nothing to decide passes explicitly.
//
// Order is structural, not numeric: every builtin mount of a point runs before
// every command mount (the person's own hook commands), and those before
// every plugin mount, whatever order the Mount calls came in; inside a band,
// registration order. There are no priorities and no way for a plugin to jump
// ahead: a plugin ahead of the builtin compactor on a firstWin point would stop
// compaction and let the context grow until the model refuses it.
//
// A handler error or panic is isolated: it is reported as a warning (to the
// injected logger and warning sink, naming point, handler and origin) and
// dispatch goes on with the next handler. Callers and tests can therefore tell
// "the builtin decided" from "the builtin failed and a plugin decided".
//
// Each registry belongs to one scope: one run registry per kernel, one session
// registry per session. Mounting a point of the other scope is an error.
//
// Dispatch is on the hot path (every step, every tool call), so its cost is
// measured against calling the handlers directly (BenchmarkDispatch). Every
// dispatch runs in one loop: a handler Bind made for the dispatch's In and
// Out is called as it is, boxing nothing; any other (a plugin's, one built
// by hand) through its Handler. A panic is recovered once per dispatch, and
// the loop resumes after the handler that panicked.
package hooks
