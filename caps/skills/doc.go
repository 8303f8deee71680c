// Package skills is the project-level skills capability: it provides the
// skills under <workDir>/.helios/skills, <workDir>/.agents/skills, then
// <workDir>/.claude/skills, read
// through the guarded work-dir port so that a bundle symlinked to a folder
// outside the work dir is refused rather than followed.
//
// It is the kernel's synthesized skills capability: it has no EXTENSION.md and
// an empty description, so it never appears in the <extensions> manifest. It
// is a meeting point inside the kernel, not an installed package.
package skills
