// Package instructions is the project-instructions capability: it reads the
// AGENTS.md and CLAUDE.md files the ecosystem writes and delivers them to the
// model as one message before the skills catalog.
//
// The files, farthest first: the user's own (~/.helios/AGENTS.md, else
// ~/.claude/CLAUDE.md); then, for each directory from the project root (the
// nearest ancestor of the work dir holding .git, else the work dir) down to
// the work dir, AGENTS.override.md, else AGENTS.md, else CLAUDE.md, each
// followed by a CLAUDE.local.md beside it. Project files are read through
// the guarded work-dir port (workfs) rooted at the project, home files
// through one rooted at home: a symlink leading out of either is refused.
//
// A line holding only @path imports that file in place (relative to the
// importing file, or ~/...), at most five levels deep; imports that leave the
// project and home, cycles, non-regular, binary and invalid UTF-8 files are
// refused with a warning naming file:line. Lines inside fenced code blocks
// are text.
//
// The whole is held to a byte budget (32 KiB by default): the farthest files
// are cut first, so the nearest arrive whole; the message tells the model
// what was cut. Within a session, the capability appends an update when a
// loaded file changes and appends a nested folder's file once a tool touched
// a file under it; it never rewrites what the model already saw.
package instructions
