// Package skillfs reads skills from files: the SKILL.md format (ParseSkill,
// ValidateName, Validate) and roots of skill folders read through an FS
// (DirSource, the Provider the user, project and extension sources use).
//
// A skill is a directory <root>/<name>/SKILL.md (skill.md is accepted when
// there is no SKILL.md), plus any scripts/ or references/ beside it, or a flat
// <root>/<name>.md. Only direct children of a root are read.
//
// Loading is lenient and validation is strict. A skill is skipped only when it
// cannot be used (no or broken frontmatter, no description, an unreadable or
// binary file); everything else loads with a warning, because a large share of
// published skills bend the spec (capitals in names, a name that differs from
// its folder, optional fields of odd types). Validate reports every spec
// violation as an error for authors who want their skill to load everywhere.
//
// Discovery reads only the head of each file (up to the end of its
// frontmatter), every read is bounded (Limits), and an error a retry can
// heal makes the answer incomplete rather than shorter.
package skillfs
