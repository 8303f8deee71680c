// Package skills is the kernel's skill contract: what a skill is, how a root
// of skills is read, how the three sources are merged, and the one exit
// (ToSkillTools) that turns skills into what the model sees.
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
// A Skill carries a Load closure, not a path: the producer decides who can
// read what. User-level skills are read with the OS, project skills through the
// guarded work-dir port, capability skills however the capability likes.
//
// What the model sees of the catalog is held to a budget (Budget,
// BudgetCatalog, contract C13) by one deterministic rule: pinned skills,
// then project, user and capability skills, then by name; full lines when
// everything fits, else shortened descriptions when every name fits, else
// names until the budget is spent and a note saying how many more exist.
package skills
