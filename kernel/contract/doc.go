// Package contract holds the few types that the kernel, its hook registry and
// its skills package all speak: a tool the model can call, the result of such
// a call, and a warning about input that was skipped or accepted with doubts.
//
// It is a leaf: it imports nothing from Helios, so kernel/hooks and
// kernel/skills can both depend on it without a cycle.
package contract
