// Package contract holds the few types that the kernel, its hook registry and
// its skills package all speak: a tool the model can call, the result of such
// a call, and a warning about input that was skipped or accepted with doubts.
//
// NewTool builds a tool from its argument struct: the schema the model sees
// is derived from the struct's type, and the call receives the decoded
// arguments. The builtin tools, the skill tools and plugins (through
// plugins/sdk) all build their tools with it.
//
// It is a leaf: it imports nothing from Helios, so kernel/hooks and
// kernel/skills can both depend on it without a cycle.
package contract
