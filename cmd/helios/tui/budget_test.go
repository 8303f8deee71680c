package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// budgetKernel is the fake kernel with the catalog budget's view.
type budgetKernel struct {
	*fakeKernel
	budget skills.Budget
}

func (k budgetKernel) CatalogView(cat skills.Catalog) catalog.View {
	return catalog.ViewOf(cat, k.budget, skills.ModeCatalog)
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
	v := k.CatalogView(tuiCat(true, names...))
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
