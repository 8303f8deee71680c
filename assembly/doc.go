// Package assembly turns helios.config.json into a running *kernel.Kernel.
//
// Decoding is strict: an unknown key is an error naming its JSON path
// (skills.watch.mode), and so is a value of the wrong type. Durations are
// strings such as "500ms". Every key is optional: an empty file, or no file at
// all, gives a working kernel with the defaults. If assembly fails half-way,
// whatever was already started is closed and the errors are joined.
//
// [Config.Validate] is the one place a config's values are checked; each key
// with a fixed set of values has a type of its own ([SkillsMode],
// [SandboxMode]…) with a constant per value. A program that assembles a
// kernel calls sandbox.Main() first thing in main: without it Load and
// Build refuse to confine the model's commands, saying what to add.
package assembly
