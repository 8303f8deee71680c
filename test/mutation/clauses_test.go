package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClauseTableNamesLiveMutations: every mutation docs/clauses.md names
// as the proof that a clause's test can fail is an entry of the catalogue,
// so the table cannot keep citing a mutation that was dropped or renamed.
func TestClauseTableNamesLiveMutations(t *testing.T) {
	root, err := moduleRoot("")
	require.NoError(t, err)
	cat, err := loadCatalogue(filepath.Join(root, defaultCatalogue))
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, e := range cat.entries() {
		ids[e.ID] = true
	}
	table, err := os.ReadFile(filepath.Join(root, "docs", "clauses.md"))
	require.NoError(t, err)
	cited := regexp.MustCompile(`\bM[0-9]{1,4}\b`).FindAllString(string(table), -1)
	require.NotEmpty(t, cited, "docs/clauses.md cites no mutation")
	for _, id := range cited {
		assert.True(t, ids[id], "docs/clauses.md cites %s, which the catalogue does not hold", id)
	}
}
