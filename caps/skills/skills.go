package skills

import (
	"context"
	"path/filepath"

	kskills "github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/workfs"
)

// DefaultRoots are the project roots, relative to the work dir, in merge
// order: Helios's own, then Claude Code's .claude/skills.
var DefaultRoots = []string{".helios/skills", ".agents/skills", ".claude/skills"}

// Capability provides project skills.
type Capability struct {
	port *rootFS
	src  *skillfs.DirSource
}

var (
	_ kskills.Provider    = (*Capability)(nil)
	_ kskills.Watchable   = (*Capability)(nil)
	_ kskills.PathWatcher = (*Capability)(nil)
)

// New returns the capability reading roots (relative to the work dir; nil
// means DefaultRoots) through port. The capability owns port: Close closes it.
func New(port *workfs.FS, roots []string) *Capability {
	if roots == nil {
		roots = DefaultRoots
	}
	abs := make([]string, len(roots))
	for i, r := range roots {
		if filepath.IsAbs(r) {
			abs[i] = r
		} else {
			abs[i] = filepath.Join(port.Dir(), r)
		}
	}
	fsys := newRootFS(port)
	fsys.watch(abs)
	return &Capability{port: fsys, src: &skillfs.DirSource{FS: fsys, Source: kskills.SourceProject, Roots: abs}}
}

// Name is "skills".
func (c *Capability) Name() string { return "skills" }

// Description is empty: this capability is not listed in <extensions>.
func (c *Capability) Description() string { return "" }

// Roots returns the absolute roots read, in merge order.
func (c *Capability) Roots() []string { return c.src.Roots }

// SetSkillLimits bounds the reads of skill files (the kernel calls it
// before registering the capability).
func (c *Capability) SetSkillLimits(l skillfs.Limits) { c.src.Limits = l }

// SetRootWatcher makes the roots watched (the kernel calls it before
// registering the capability, when watching is on).
func (c *Capability) SetRootWatcher(w skillfs.RootWatcher) { c.src.Watcher = w }

// Watch starts watching the roots; see skillfs.DirSource.Watch.
func (c *Capability) Watch(invalidate func(), done <-chan struct{}) error {
	return c.src.Watch(invalidate, done)
}

// PathChanged is the first-party write entry point; see skillfs.DirSource.
func (c *Capability) PathChanged(path string) bool { return c.src.PathChanged(path) }

// Skills reads the project roots.
func (c *Capability) Skills(ctx context.Context) (kskills.Set, error) {
	return c.src.Skills(ctx)
}

// Close closes the work-dir port the capability was given; New takes
// ownership of it.
func (c *Capability) Close() error { return c.port.Close() }
