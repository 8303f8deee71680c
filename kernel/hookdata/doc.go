// Package hookdata is what the standard hook points carry: each point's
// payload (its In) and result, one set of types for every handler. The
// kernel dispatches them (kernel.ToolBeforeIn is an alias of ToolBeforeIn),
// plugins/sdk hands them to plugin handlers (sdk.ToolBeforeIn is the same
// alias), and the plugin wire carries them field by field, so a handler
// moves from in process to a plugin without a change to its signature.
//
// Every field of a payload reaches a plugin: nothing here is in-process
// only. That is why a context:prepare payload holds the catalog's summaries
// rather than the skills with their loaders, and a context:compact payload
// the model view's events rather than the session's log.
//
// The package is a leaf: of Helios it imports only kernel/contract (a
// tool's annotations), so the kernel, its capabilities and a plugin binary
// can all depend on it (a plugin carries nothing of the agent: no session,
// no model, no tools).
//
// # Adding a standard point
//
// A typed standard point is a payload and a result here, a point in
// kernel/hooks (its name, kind and scope, listed in StandardPoints), a typed
// view of it in package kernel (hooks.NewConcat or hooks.NewFirstWin of the
// two types, whose Bind makes in-process handlers), its messages in
// plugins/proto/helios.proto (a field of HandleRequest.input and, unless the
// result is text, of HandleResponse.output), their conversions in
// plugins/internal/wire (points.go: one case per direction), and an alias
// and a typed constructor in plugins/sdk; docs/plugins.md walks through it.
// The wire tests fill every field of every type and message, so a field
// left out of a conversion fails there.
package hookdata
