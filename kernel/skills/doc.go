// Package skills is the kernel's skill contract: what a skill is (Skill,
// Content), what a source of skills returns (Provider, Set), how the sources
// are merged into one catalog (Registry, Catalog), the catalog order and the
// budget the model's view is held to (Order, Budget), and the one exit
// (ToSkillTools) that turns skills into the tools the model calls.
//
// A Skill carries a Load closure, not a path: the producer decides who can
// read what. User-level skills are read with the OS, project skills through the
// guarded work-dir port, capability skills however the capability likes.
//
// Beside it: package skillfs reads skills from files (the SKILL.md format and
// roots of skill folders), and package catalog renders what the model sees of
// a catalog within its budget (contract C13). Neither is imported here.
package skills
