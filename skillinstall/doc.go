// Package skillinstall installs skills from git repositories and pins them
// in a lockfile: what `helios skills add / update / sync / verify / remove`
// do (contract C22).
//
// A source is a git URL (https, ssh, git@host:path, file://), the path of a
// local repository, owner/repo on GitHub (when no such local path exists) or
// a GitHub tree URL, .../owner/repo/tree/REF/PATH (the skills under PATH);
// Config.GitHub moves "GitHub" elsewhere. A ref is a branch, a tag or a
// commit (default: the source's default branch). Every folder holding a SKILL.md, at any depth of
// the commit's tree, is a skill, known by its frontmatter name. Git is spoken
// by go-git: no git binary is needed and no hook ever runs; a local
// repository is read in place, a remote one fetched into memory. Credentials
// come from the SSH agent, the URL, or GIT_ASKPASS, and are never written to
// the lockfile.
//
// The lockfile (helios-lock.json beside the root) records, per skill, its
// source, ref, commit, path in the repository and the sha256: digest of every
// file. List shows what a source offers without installing. Add skips a
// skill that conflicts with what is installed, with a warning, and installs
// the others. Update moves a skill to the newest commit of its ref, refusing
// one changed locally whether or not the ref moved; Sync installs
// exactly the locked commits and refuses a file whose digest differs; Verify
// names every changed, missing or extra file.
//
// Installs are atomic: a skill is written to a stage folder beside the root
// and renamed in (on Linux an existing one is exchanged in a single rename),
// so a reader of the root — the kernel's live catalog — sees the old skill or
// the new one, never half of one. A skill is refused, naming the file, when a
// symlink points outside its folder, a path escapes it, it holds a submodule,
// or it is over the limits of skills.MaxFiles files and skills.MaxBytes bytes.
// Run bits are kept.
package skillinstall
