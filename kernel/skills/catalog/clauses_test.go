package catalog_test

// Contract C23, clause by clause: the catalog's order under the budget and
// descriptions shortened only when the whole lines do not fit.

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// Lines come pinned (in the order of skills.catalog.pinned, not by source
// or name), project,
// recently loaded here (most recent first; a project skill stays with the
// project ones), then the rest by source (user before capability) and
// name, whatever the order of the input; each listed skill says why.
func TestCatalogOrderPinnedProjectRecentName(t *testing.T) {
	all := []skills.Skill{
		budSkill("a-user", skills.SourceUser, "User skill a."),
		budSkill("b-user", skills.SourceUser, "User skill b."),
		budSkill("c-user", skills.SourceUser, "User skill c."),
		budSkill("d-cap", "mcp:docs", "Capability skill d."),
		budSkill("0-cap", "mcp:docs", "Capability skill 0."),
		budSkill("q-proj", skills.SourceProject, "Project skill q."),
		budSkill("p-proj", skills.SourceProject, "Project skill p."),
		budSkill("z-pin", skills.SourceUser, "Pinned z."),
		budSkill("m-pin", "mcp:docs", "Pinned m."),
	}
	b := skills.Budget{Chars: -1, Pinned: []string{"m-pin", "z-pin"}, Recent: []string{"c-user", "q-proj", "b-user"}}
	want := []catalog.Listed{
		{Name: "m-pin", Why: "pinned"}, {Name: "z-pin", Why: "pinned"},
		{Name: "p-proj", Why: "project"}, {Name: "q-proj", Why: "project"},
		{Name: "c-user", Why: "recent"}, {Name: "b-user", Why: "recent"},
		{Name: "a-user", Why: "name"}, {Name: "0-cap", Why: "name"}, {Name: "d-cap", Why: "name"},
	}
	r := rand.New(rand.NewPCG(23, 23))
	for range 20 {
		shuffled := slices.Clone(all)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		v := catalog.Render(shuffled, b, catalog.MessageFrame())
		assert.Equal(t, want, v.Summary.Listed)
		var names []string
		for _, l := range budLines(v) {
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "- "), ":")
			names = append(names, name)
		}
		require.Len(t, names, len(want), v.Text)
		for i, l := range want {
			assert.True(t, strings.HasPrefix(names[i], l.Name), "line %d is %s: %s", i, l.Name, names[i])
		}
	}
}

// Descriptions are shortened only when the whole lines do not fit: a
// budget of exactly the full message's size gives the full message, one
// character less shortens something, and no more than it needs.
func TestCatalogShortensOnlyWhenNeeded(t *testing.T) {
	all := []skills.Skill{
		budSkill("alpha", skills.SourceUser, strings.Repeat("Alpha does a careful thing. ", 6)),
		budSkill("beta", skills.SourceProject, strings.Repeat("Beta does another thing. ", 9)),
		budSkill("gamma", skills.SourceUser, "Gamma is short."),
	}
	full := catalog.Render(all, skills.Budget{Chars: -1}, catalog.MessageFrame())
	require.Zero(t, full.Summary.Shortened)
	size := runes(full.Message)

	exact := catalog.Render(all, skills.Budget{Chars: size}, catalog.MessageFrame())
	assert.Equal(t, full.Message, exact.Message, "a budget the full lines fit keeps them whole")
	assert.Zero(t, exact.Summary.Shortened)
	assert.Zero(t, exact.Summary.CharsCut)

	under := catalog.Render(all, skills.Budget{Chars: size - 1}, catalog.MessageFrame())
	assert.LessOrEqual(t, runes(under.Message), size-1)
	assert.Positive(t, under.Summary.Shortened+len(under.Summary.Omitted), "one character short, something is cut")
	assert.Contains(t, under.Message, "gamma: Gamma is short.", "the short description keeps its whole text; the long ones pay")
	assert.GreaterOrEqual(t, runes(under.Message), size-40, "only what the budget needs is cut (at word ends): the short one's share goes to the long ones")
}
