// Package extdir is a capability declared by a folder: an EXTENSION.md whose
// frontmatter gives the capability's name and its one-line description for
// the <extensions> manifest, and an optional skills/ root whose skills are
// merged as "capability:<name>".
//
// The folder is named in the config, so it is read with the OS directly, like
// the config itself; it may lie outside the work dir.
package extdir

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// DocName is the file describing the capability.
const DocName = "EXTENSION.md"

// Capability is an extension folder.
type Capability struct {
	name string
	doc  frontmatter.ExtensionDoc
	src  *skillfs.DirSource
}

var (
	_ kernel.Capability = (*Capability)(nil)
	_ kernel.Describer  = (*Capability)(nil)
	_ skills.Provider   = (*Capability)(nil)
)

// Open reads dir/EXTENSION.md with the default limits; see OpenLimited.
func Open(dir string) (*Capability, error) { return OpenLimited(dir, skillfs.Limits{}) }

// OpenLimited reads dir/EXTENSION.md, only up to the end of its frontmatter
// and at most limits.MaxFrontmatter bytes. The name comes from its
// frontmatter, or the folder's name when it has none. The limits also bound
// the reads of the folder's skills.
func OpenLimited(dir string, limits skillfs.Limits) (*Capability, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("extension %s: %w", dir, err)
	}
	file := filepath.Join(abs, DocName)
	data, err := skillfs.ReadHead(skillfs.OSFS{}, file, limits.MaxFrontmatter)
	if err != nil {
		return nil, fmt.Errorf("extension %s: %w", abs, err)
	}
	doc, err := frontmatter.ParseExtensionDoc(file, data)
	if err != nil {
		return nil, fmt.Errorf("extension %s: %w", abs, err)
	}
	name := doc.Name
	if name == "" {
		name = filepath.Base(abs)
	}
	return &Capability{
		name: name,
		doc:  doc,
		src:  &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.CapabilitySource(name), Roots: []string{filepath.Join(abs, "skills")}, Limits: limits},
	}, nil
}

// Name returns the capability's name.
func (c *Capability) Name() string { return c.name }

// Description returns the EXTENSION.md frontmatter description.
func (c *Capability) Description() string { return c.doc.Description }

// Roots returns the folder's skills/ root.
func (c *Capability) Roots() []string { return c.src.Roots }

// SetSkillLimits bounds the reads of the folder's skill files.
func (c *Capability) SetSkillLimits(l skillfs.Limits) { c.src.Limits = l }

// SetRootWatcher makes the skills/ root watched.
func (c *Capability) SetRootWatcher(w skillfs.RootWatcher) { c.src.Watcher = w }

// Watch starts watching the skills/ root; see skillfs.DirSource.Watch.
func (c *Capability) Watch(invalidate func(), done <-chan struct{}) error {
	return c.src.Watch(invalidate, done)
}

// PathChanged is the first-party write entry point; see skillfs.DirSource.
func (c *Capability) PathChanged(path string) bool { return c.src.PathChanged(path) }

// Skills reads the folder's skills/ root.
func (c *Capability) Skills(ctx context.Context) (skills.Set, error) { return c.src.Skills(ctx) }
