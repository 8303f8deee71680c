package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/kernel/skills"
)

// budgetKernel is the fake kernel with the catalog budget's view.
type budgetKernel struct {
	*fakeKernel
	budget skills.Budget
}

func (k budgetKernel) CatalogView(cat skills.Catalog) skills.CatalogView {
	return cat.View(k.budget, skills.ModeCatalog)
}

// C13: the status line says what the catalog budget left out, and says
// nothing once everything fits.
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

	k.set(tuiCat(true, "alpha", "beta"))
	m.Update(m.fetchCatalog()())
	assert.False(t, strings.Contains(tuiScreen(m), "budget:"), "the status line still shows a cut:\n%s", tuiScreen(m))
}
