// Package kernel assembles what an agent session runs on: the capabilities
// (in-process builtins, then out-of-process plugins), their hook mounts in the
// ordered registry, the skill catalog merged from user, project and capability
// sources, and the text the model gets about them (the <extensions> manifest
// and the skills section of the base prompt).
//
// Applications do not usually call New themselves: package assembly builds a
// Kernel from helios.config.json.
package kernel
