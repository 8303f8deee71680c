package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// budgetKernel is the fake kernel with the catalog budget's view.
type budgetKernel struct {
	*fakeKernel
	budget skills.Budget
}

func (k budgetKernel) CatalogBudget() skills.Budget { return k.budget }

func (k budgetKernel) CatalogView(cat skills.Catalog, b skills.Budget) catalog.View {
	return catalog.ViewOf(cat, b, skills.ModeCatalog)
}

// C13: the status line says what the catalog budget left out, the
// conversation tells it once per change, and nothing is said once
// everything fits.
func TestStatusLineShowsBudgetCut(t *testing.T) {
	k := budgetKernel{newFakeKernel(), skills.Budget{Chars: 300}}
	m := newTestModel(t, Config{Kernel: k})
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("skill-%02d", i))
	}
	k.set(tuiCat(true, names...))
	m.Update(m.fetchCatalog()())
	v := k.CatalogView(tuiCat(true, names...), k.budget)
	assert.Contains(t, tuiScreen(m), fmt.Sprintf("budget: %d of 40 skills shown, %d omitted", v.Summary.Included, len(v.Summary.Omitted)))
	notes := func() int {
		n := 0
		for _, e := range m.entries {
			if e.kind == noteEntry && strings.Contains(e.text, "cut to fit its budget") {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 1, notes(), "the conversation tells the cut once")
	m.Update(m.fetchCatalog()())
	assert.Equal(t, 1, notes(), "the same outcome is not told again")

	k.set(tuiCat(true, "alpha", "beta"))
	m.Update(m.fetchCatalog()())
	assert.False(t, strings.Contains(tuiScreen(m), "budget:"), "the status line still shows a cut:\n%s", tuiScreen(m))
}

// Issue 36: the budget's warning is told once per change of what is cut:
// a catalog change that leaves out the same skills (an edited description,
// which changes the counts in the warning's text) says nothing again; one
// that leaves out other skills, or that stops cutting and cuts again, is
// told.
func TestBudgetWarningOncePerChangeOfWhatIsCut(t *testing.T) {
	k := budgetKernel{newFakeKernel(), skills.Budget{Chars: 300}}
	m := newTestModel(t, Config{Kernel: k})
	notes := func() []string {
		var out []string
		for _, e := range m.entries {
			if e.kind == noteEntry && strings.Contains(e.text, "cut to fit its budget") {
				out = append(out, e.text)
			}
		}
		return out
	}
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("skill-%02d", i))
	}
	apply := func(c skills.Catalog) catalog.View {
		k.set(c)
		m.Update(m.fetchCatalog()())
		return k.CatalogView(c, k.budget)
	}
	first := apply(tuiCat(true, names...))
	require.NotEmpty(t, first.Summary.Omitted, "the budget omits nothing; the test needs a cut")
	require.Len(t, notes(), 1, "the first cut is told")

	edited := tuiCat(true, names...)
	edited.Skills[0].Description = "A much longer description of the first skill, edited while the UI is open."
	v := apply(edited)
	require.Equal(t, first.Summary.Omitted, v.Summary.Omitted, "the edit changed what is omitted; the test needs the same cut")
	require.NotEqual(t, first.Warnings[0].Message, v.Warnings[0].Message, "the warning's text did not change; the test needs it to")
	assert.Len(t, notes(), 1, "the same skills left out were told again: %q", notes())

	v = apply(tuiCat(true, names[:30]...))
	require.NotEqual(t, first.Summary.Omitted, v.Summary.Omitted)
	assert.Len(t, notes(), 2, "other skills left out were not told")

	apply(tuiCat(true, "alpha"))
	apply(tuiCat(true, names[:30]...))
	assert.Len(t, notes(), 3, "a cut after none was not told")
}
