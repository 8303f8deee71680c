// Package sdk is what a Helios plugin imports. A plugin is a program that
// implements Plugin (its hook handlers and tools), keeps an EXTENSION.md and
// a skills/ folder beside its executable, and calls Serve from main:
//
//	func main() {
//		sdk.Serve(releaseNotes{}, sdk.Config{})
//	}
//
// Serve reads the EXTENSION.md frontmatter (name, and the description that
// becomes the plugin's line in the kernel's <extensions> manifest) with the
// kernel's own parser, serves the skills under skills/ with the kernel's own
// skill reader (so a plugin's SKILL.md follows exactly the rules of any
// other), watches that folder and tells the kernel when it changes, and
// answers the kernel's calls over go-plugin's gRPC transport.
//
// Hook payloads and results are the JSON types of package kernel/hookwire;
// the typed constructors (ContextPrepare, ToolBefore, ...) decode and encode
// them. A handler returns handled=false to pass: on a firstWin point the
// next handler gets the call, on a concat point the plugin adds nothing.
// Whatever a plugin does, its handlers run after every builtin handler of the
// same point: the kernel decides that, not the plugin.
//
// Serve exits when the kernel that started the plugin is gone, even if it
// was killed without a chance to stop its plugins (go-plugin itself has no
// such watch).
package sdk
