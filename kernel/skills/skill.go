package skills

import (
	"context"
	"fmt"

	"github.com/helios-agents/helios/kernel/contract"
)

// Source labels.
const (
	SourceUser    = "user"
	SourceProject = "project"
)

// CapabilitySource is the source label of a capability's skills.
func CapabilitySource(name string) string { return "capability:" + name }

// Skill is one entry of the catalog.
type Skill struct {
	// Name is the NFKC-normalized frontmatter name (the folder's when the
	// frontmatter has none).
	Name string
	// Description is the author's own sentence from the frontmatter. It is the
	// only thing the model has to pick the skill by.
	Description string
	// Source is "user", "project" or "capability:<name>".
	Source string
	// BaseDir is the absolute directory relative paths in the body resolve
	// against.
	BaseDir string
	// File is the SKILL.md (or flat .md) the skill was read from, when there
	// is one; it is used in warnings.
	File string
	// DisableModelInvocation hides the skill from the model; a person can
	// still load it by name.
	DisableModelInvocation bool
	// AllowedTools are the frontmatter's allowed-tools, one permission rule
	// each (Claude Code's syntax, e.g. "Bash(git add:*)"): while the skill
	// is loaded in the current turn they pre-approve the calls they match
	// (C31). Nil when the frontmatter has none.
	AllowedTools []string
	// FileID is the identity of File on its device, when the producer knows
	// it: the same folder reached by two paths (a root symlinked to another
	// root, a skill folder symlinked into another root) is one skill, kept
	// once and without a warning.
	FileID FileID
	// Load reads the skill's current content. Every call reads again: bodies
	// are never cached.
	Load func(ctx context.Context) (Content, error)
}

// FileID identifies a file by its device and inode, which every path
// reaching it shares (a real path, without its spelling). The zero value
// is unknown: it equals no other file.
type FileID struct{ Dev, Ino uint64 }

// Known reports whether the identity was taken.
func (f FileID) Known() bool { return f != (FileID{}) }

// SameFile reports whether a and b were read from the same file (through
// symlinks or not), as far as their producers know.
func SameFile(a, b Skill) bool { return a.FileID.Known() && a.FileID == b.FileID }

// Content is what a load returns.
type Content struct {
	// Name is the frontmatter name at load time (after normalization); a
	// mismatch with Skill.Name means the file changed under the catalog.
	Name string
	// Body is the text after the frontmatter.
	Body string
}

// Origin names where a skill came from, for warnings.
func (s Skill) Origin() string {
	switch {
	case s.File != "":
		return fmt.Sprintf("%s (%s)", s.Source, s.File)
	case s.BaseDir != "":
		return fmt.Sprintf("%s (%s)", s.Source, s.BaseDir)
	}
	return s.Source
}

// Set is what a provider returns: its skills, the warnings about what it
// skipped or doubted, and whether the observation is incomplete (a transient
// failure means the list may be missing skills that exist).
type Set struct {
	// Skills are the usable skills, by name within each root.
	Skills []Skill
	// Warnings name each file skipped or doubted, and why.
	Warnings []contract.Warning
	// Incomplete says a transient failure may have hidden skills.
	Incomplete bool
}

// Provider produces skills. Capabilities implement it to contribute skills.
type Provider interface {
	Skills(ctx context.Context) (Set, error)
}
