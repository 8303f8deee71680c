package agentplugins

import (
	"context"
	"slices"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// SkillSource is the source label of an installed plugin's skills,
// "plugin:<name>".
func SkillSource(plugin string) string { return "plugin:" + plugin }

// Skills is the capability through which an installed plugin's skills merge
// into the catalog, as source "plugin:<name>", less its disabled skills.
// Its roots are watched like any skill root.
type Skills struct {
	plugin   string
	disabled []string
	src      *skillfs.DirSource
}

var (
	_ kernel.Capability  = (*Skills)(nil)
	_ skills.Provider    = (*Skills)(nil)
	_ skills.Watchable   = (*Skills)(nil)
	_ skills.PathWatcher = (*Skills)(nil)
)

// NewSkills is the skills capability of p, reading through fsys (nil: the
// OS; a project plugin's are read through the guarded work-dir port, as
// project skills are); nil when p is disabled or has no skill root.
func NewSkills(p Installed, fsys skillfs.FS) *Skills {
	if !p.Enabled || len(p.Parts.Skills) == 0 {
		return nil
	}
	if fsys == nil {
		fsys = skillfs.OSFS{}
	}
	return &Skills{
		plugin:   p.Name,
		disabled: slices.Clone(p.DisabledSkills),
		src:      &skillfs.DirSource{FS: fsys, Source: SkillSource(p.Name), Roots: slices.Clone(p.Parts.Skills)},
	}
}

// Name is "plugin:<name>": unique beside the configured capabilities.
func (s *Skills) Name() string { return SkillSource(s.plugin) }

// Roots are the plugin's skill roots.
func (s *Skills) Roots() []string { return s.src.Roots }

// SetRootWatcher makes the roots watched.
func (s *Skills) SetRootWatcher(w skillfs.RootWatcher) { s.src.Watcher = w }

// SetSkillLimits bounds the reads of the skill files.
func (s *Skills) SetSkillLimits(l skillfs.Limits) { s.src.Limits = l }

// Watch starts watching the roots; see skillfs.DirSource.Watch.
func (s *Skills) Watch(invalidate func(), done <-chan struct{}) error {
	return s.src.Watch(invalidate, done)
}

// PathChanged is the first-party write entry point; see skillfs.DirSource.
func (s *Skills) PathChanged(path string) bool { return s.src.PathChanged(path) }

// Skills reads the roots, leaving out the disabled skills.
func (s *Skills) Skills(ctx context.Context) (skills.Set, error) {
	set, err := s.src.Skills(ctx)
	if err != nil || len(s.disabled) == 0 {
		return set, err
	}
	kept := make([]skills.Skill, 0, len(set.Skills))
	for _, sk := range set.Skills {
		if !slices.Contains(s.disabled, sk.Name) {
			kept = append(kept, sk)
		}
	}
	set.Skills = kept
	return set, nil
}
