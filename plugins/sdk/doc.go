// Package sdk is what a Helios plugin imports, and all it imports of Helios.
// A plugin is a program that keeps an EXTENSION.md and a skills/ folder
// beside its executable and calls Serve from main with a value that
// implements what it offers: HookProvider for hook handlers, ToolProvider
// for tools, or neither for a plugin of skills alone.
//
//	type guard struct{}
//
//	func (guard) Hooks() []sdk.Hook {
//		return []sdk.Hook{sdk.ToolBefore("no-force-push", noForcePush)}
//	}
//
//	func main() { sdk.Serve(guard{}, sdk.Config{}) }
//
// `helios plugins init NAME` writes such a plugin, ready to build.
//
// Serve reads the EXTENSION.md frontmatter (name, and the description that
// becomes the plugin's line in the kernel's <extensions> manifest) with the
// kernel's own parser, serves the skills under skills/ with the kernel's own
// skill reader (so a plugin's SKILL.md follows exactly the rules of any
// other), watches that folder and tells the kernel when it changes, and
// answers the kernel's calls over go-plugin's gRPC transport.
//
// Hook payloads and results are this package's ToolBeforeIn, ToolDecision
// and siblings: aliases of the types of kernel/hookdata, which the kernel's
// own handlers take too, so a handler written for the kernel is a plugin's
// handler as it is, and the other way round. The kernel sends a standard
// point's payload in its protobuf message and the SDK hands it over as that
// type; a custom point's payload is JSON, which On decodes into the
// handler's type. A handler returns handled=false to pass: on a firstWin
// point the next handler gets the call, on a concat point the plugin adds
// nothing. Whatever a plugin does, its handlers run after every builtin
// handler of the same point: the kernel decides that, not the plugin.
//
// Serve exits when the kernel that started the plugin is gone, even if it
// was killed without a chance to stop its plugins (go-plugin itself has no
// such watch).
//
// The package depends on the kernel's leaf packages only (the frontmatter
// parser, the skill reader, the watcher, the hook payloads), never on the
// kernel itself, its sessions, model or tools: a plugin binary carries what
// it serves and nothing of the agent.
package sdk
