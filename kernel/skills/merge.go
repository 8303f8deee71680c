package skills

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/helios-agents/helios/kernel/contract"
)

// Catalog is the merged view of every source.
type Catalog struct {
	// Skills in merge order: sources in registration order (user, project,
	// capabilities), by name (code point) within a source.
	Skills []Skill
	// Warnings about everything skipped or doubted, in source order.
	Warnings []contract.Warning
	// Complete is false when some source could not be read fully; the list
	// may then miss skills that exist.
	Complete bool
	// ProvidersAsked is how many providers the snapshot that made this
	// catalog asked (0 when it was served from cache), for telemetry.
	ProvidersAsked int

	// memo keeps the search index of this merge. A catalog served from the
	// registry's cache shares it, so a step where nothing changed builds no
	// index.
	memo *memo
}

// memo is what a merged catalog keeps of what was derived from it.
type memo struct {
	// indexOnce builds the catalog's search index at its first search.
	indexOnce sync.Once
	index     *searchIndex
}

// Digest is a stable hash of the summaries in a catalog (name, description,
// source, base dir, visibility): it changes when membership or what a person
// or the model sees changes, never on a body-only edit.
func (c Catalog) Digest() string {
	h := sha256.New()
	for _, s := range c.Skills {
		for _, f := range []string{s.Name, s.Description, s.Source, s.BaseDir, strconv.FormatBool(s.DisableModelInvocation)} {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Lookup returns the skill with that name.
func (c Catalog) Lookup(name string) (Skill, bool) {
	for _, s := range c.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Visible returns the skills the model may see (not disable-model-invocation).
func (c Catalog) Visible() []Skill {
	out := make([]Skill, 0, len(c.Skills))
	for _, s := range c.Skills {
		if !s.DisableModelInvocation {
			out = append(out, s)
		}
	}
	return out
}

// sourcedSet is one provider's answer, in merge order.
type sourcedSet struct {
	source string
	set    Set
	err    error
}

func mergeSets(sets []sourcedSet) Catalog {
	if cat, ok := mergeOne(sets); ok {
		return cat
	}
	cat := Catalog{Complete: true, memo: &memo{}}
	total := 0
	for _, e := range sets {
		total += len(e.set.Skills)
	}
	cat.Skills = make([]Skill, 0, total)
	seen := make(map[string]int, total) // name -> index in cat.Skills
	for _, e := range sets {
		if e.err != nil {
			cat.Warnings = append(cat.Warnings, e.set.Warnings...)
			cat.Warnings = append(cat.Warnings, contract.Warning{Source: e.source, Message: fmt.Sprintf("skills provider failed; its skills are missing from this catalog: %v", e.err)})
			cat.Complete = false
			continue
		}
		if e.set.Incomplete {
			cat.Complete = false
		}
		start, warnAt := len(cat.Skills), len(cat.Warnings)
		cat.Warnings = append(cat.Warnings, e.set.Warnings...)
		var again map[string]bool // paths of skills this source reached again
		for _, s := range e.set.Skills {
			if s.Source == "" {
				s.Source = e.source
			}
			if first, dup := seen[s.Name]; dup {
				if SameFile(s, cat.Skills[first]) {
					// The same folder, reached from another source's root
					// too (a symlink): one skill, warned about once.
					if again == nil {
						again = map[string]bool{}
					}
					again[pathOf(s)] = true
					continue
				}
				cat.Warnings = append(cat.Warnings, contract.Warning{
					Source:  s.Source,
					Path:    pathOf(s),
					Message: fmt.Sprintf("skill %q is already provided by %s; keeping that one and skipping %s", s.Name, cat.Skills[first].Origin(), s.Origin()),
				})
				continue
			}
			seen[s.Name] = len(cat.Skills)
			cat.Skills = append(cat.Skills, s)
		}
		if again != nil {
			// Its warnings were given once already, by the path kept.
			own := cat.Warnings[warnAt : warnAt+len(e.set.Warnings)]
			kept := slices.DeleteFunc(slices.Clone(own), func(w contract.Warning) bool { return again[w.Path] })
			cat.Warnings = slices.Replace(cat.Warnings, warnAt, warnAt+len(own), kept...)
		}
		byName := func(a, b Skill) int { return cmp.Compare(a.Name, b.Name) }
		if part := cat.Skills[start:]; !slices.IsSortedFunc(part, byName) {
			slices.SortStableFunc(part, byName)
			for i := start; i < len(cat.Skills); i++ {
				seen[cat.Skills[i].Name] = i
			}
		}
	}
	return cat
}

// mergeOne is mergeSets when a single provider has skills, and they carry
// their source and are already sorted by name without a duplicate (one
// root, the common case): the catalog then shares that slice (the
// registry's own copy, made by guardLoads) instead of copying and indexing
// it, so a refresh costs one pass of comparisons.
func mergeOne(sets []sourcedSet) (Catalog, bool) {
	one := -1
	for i, e := range sets {
		switch {
		case e.err != nil:
			return Catalog{}, false
		case len(e.set.Skills) == 0:
		case one >= 0:
			return Catalog{}, false
		default:
			one = i
		}
	}
	if one < 0 {
		return Catalog{}, false
	}
	skills := sets[one].set.Skills
	for i, s := range skills {
		if s.Source == "" || i > 0 && skills[i-1].Name >= s.Name {
			return Catalog{}, false
		}
	}
	cat := Catalog{Complete: true, memo: &memo{}, Skills: slices.Clip(skills)}
	for _, e := range sets {
		cat.Warnings = append(cat.Warnings, e.set.Warnings...)
		if e.set.Incomplete {
			cat.Complete = false
		}
	}
	return cat, true
}

func pathOf(s Skill) string {
	if s.File != "" {
		return s.File
	}
	return s.BaseDir
}

// callProvider isolates a provider's panic as an error.
func callProvider(ctx context.Context, p Provider) (set Set, err error) {
	defer func() {
		if v := recover(); v != nil {
			set, err = Set{}, fmt.Errorf("panic: %v", v)
		}
	}()
	return p.Skills(ctx)
}
