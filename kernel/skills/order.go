package skills

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/helios-agents/helios/kernel/contract"
)

// Defaults of the catalog budget's configuration keys.
const (
	// DefaultContextWindow is model.contextWindow's default, in tokens.
	DefaultContextWindow = 128000
	// CharsPerToken converts a context window in tokens to characters.
	CharsPerToken = 4
	// DefaultBudgetPercent is skills.catalog.budget's default: "2%" of the
	// context window.
	DefaultBudgetPercent = 2.0
	// DefaultToolsMax is skills.tools.max's default.
	DefaultToolsMax = 128
)

// PercentBudget converts a percentage of a context window (in tokens) to a
// budget in characters.
func PercentBudget(percent float64, contextWindow int) int {
	return int(math.Floor(percent / 100 * float64(contextWindow) * CharsPerToken))
}

// Budget bounds what the model sees of the skills (contract C13): the
// catalog message (package catalog renders it within Chars) and the tools
// of ModeTools (ToSkillTools offers at most ToolsMax). Both take the
// skills in the one catalog order (Order). The zero value bounds nothing.
type Budget struct {
	// Chars is the most characters (Unicode code points) the catalog message
	// may have: its sentence, the tags, the lines and the trailing note. Zero
	// or less: no limit. The frame itself is never cut, so a budget smaller
	// than the frame and its note sends the frame and the note alone.
	Chars int
	// ContextWindow is the model's context window in tokens. It only
	// expresses Chars as a percentage in warnings; zero shows none.
	ContextWindow int
	// Pinned names skills that come first, in this order, and keep their full
	// descriptions whenever their lines alone fit.
	Pinned []string
	// ToolsMax bounds the tools of ModeTools. Zero or less: no bound.
	ToolsMax int
	// Recent names the skills loaded recently in this work dir, most
	// recent first (the kernel reads them from its session store). They
	// come after pinned and project skills and before the rest.
	Recent []string
}

// Why a skill has its place in the catalog order (Placed.Why).
const (
	whyPinned  = "pinned"
	whyProject = "project"
	whyRecent  = "recent"
	whyName    = "name"
)

// Ranks after pinning: project skills, then recently loaded ones, then
// user and capability skills.
const (
	rankProject = iota
	rankRecent
	rankUser
	rankCapability
)

func sourceRank(src string) int {
	switch src {
	case SourceProject:
		return rankProject
	case SourceUser:
		return rankUser
	}
	return rankCapability
}

// Placed is a skill in catalog order (Order).
type Placed struct {
	Skill *Skill

	pin, rank, recent int32 // the sort key: index in Budget.Pinned (or its length), rank, index in Budget.Recent
	pinned            bool
}

// Pinned reports whether the skill is named in Budget.Pinned.
func (p Placed) Pinned() bool { return p.pinned }

// Why names the reason the skill has its place: "pinned", "project",
// "recent" (loaded recently in this work dir) or "name" (the rest, by
// source then name).
func (p Placed) Why() string {
	switch {
	case p.pinned:
		return whyPinned
	case p.rank == rankProject:
		return whyProject
	case p.rank == rankRecent:
		return whyRecent
	}
	return whyName
}

// Order returns the skills the model may see in catalog order: pinned (in
// the order of b.Pinned), then project skills, then those loaded recently
// (in the order of b.Recent, most recent first), then user and capability
// skills, then by name (code point); the remaining ties are broken by every
// other field, so any permutation of the input gives the same order. It
// also returns the warnings about pinned names.
func Order(all []Skill, b Budget) ([]Placed, []contract.Warning) {
	pinned, recent := b.Pinned, b.Recent
	recentAt := make(map[string]int, len(recent))
	for i, n := range recent {
		if _, dup := recentAt[n]; !dup {
			recentAt[n] = i
		}
	}
	pinAt := make(map[string]int, len(pinned))
	for i, p := range pinned {
		if _, dup := pinAt[p]; !dup {
			pinAt[p] = i
		}
	}
	keys := make([]Placed, 0, len(all))
	found := make(map[string]bool, len(pinAt))
	var warns []contract.Warning
	for i := range all {
		s := &all[i]
		pin, pinnedHere := pinAt[s.Name]
		if pinnedHere {
			if s.DisableModelInvocation {
				warns = append(warns, contract.Warning{Source: "config", Path: "skills.catalog.pinned",
					Message: fmt.Sprintf("pinned skill %q is hidden from the model (disable-model-invocation); pinning it has no effect", s.Name)})
			}
			found[s.Name] = true
		} else {
			pin = len(pinned)
		}
		if s.DisableModelInvocation {
			continue
		}
		rank, at := sourceRank(s.Source), 0
		if i, ok := recentAt[s.Name]; ok && rank != rankProject {
			rank, at = rankRecent, i
		}
		keys = append(keys, Placed{Skill: s, pin: int32(pin), rank: int32(rank), recent: int32(at), pinned: pin < len(pinned)})
	}
	for _, p := range pinned {
		if !found[p] {
			found[p] = true
			warns = append(warns, contract.Warning{Source: "config", Path: "skills.catalog.pinned",
				Message: fmt.Sprintf("pinned skill %q is not in the catalog", p)})
		}
	}
	slices.SortFunc(keys, func(a, b Placed) int {
		if a.pin != b.pin || a.rank != b.rank || a.recent != b.recent {
			return cmp.Or(
				cmp.Compare(a.pin, b.pin),
				cmp.Compare(a.rank, b.rank),
				cmp.Compare(a.recent, b.recent))
		}
		if c := strings.Compare(a.Skill.Name, b.Skill.Name); c != 0 {
			return c
		}
		return cmp.Or(
			strings.Compare(a.Skill.Source, b.Skill.Source),
			strings.Compare(a.Skill.Description, b.Skill.Description),
			strings.Compare(a.Skill.BaseDir, b.Skill.BaseDir),
			strings.Compare(a.Skill.File, b.Skill.File))
	})
	slices.SortStableFunc(warns, func(a, b contract.Warning) int { return strings.Compare(a.Message, b.Message) })
	return keys, warns
}

// ToolSkills orders the skills of tools mode like the catalog (Order) and
// keeps the first b.ToolsMax whose names are valid tool names: those are
// offered, the rest omitted. It returns the warnings about pinned names
// (not the invalid names: ToSkillTools reports those).
func ToolSkills(all []Skill, b Budget) (offered, omitted []Placed, warns []contract.Warning) {
	es, warns := Order(all, b)
	for _, e := range es {
		switch {
		case !ValidToolName(e.Skill.Name):
		case b.ToolsMax <= 0 || len(offered) < b.ToolsMax:
			offered = append(offered, e)
		default:
			omitted = append(omitted, e)
		}
	}
	return offered, omitted, warns
}
