package unit_test

// Contract C13, the catalog budget, through the helios binary. The budget's
// own tests are in kernel/skills/catalog/budget_test.go, the kernel's in
// kernel/budget_test.go, the config keys' in assembly/budget_test.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
)

// C13: `helios skills catalog` prints exactly the message the model would
// receive, then the summary; --json gives the summary's keys.
func TestCatalogBudgetCLI(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, ".helios", "skills")
	for i := range 20 {
		catWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+" when the user asks for it.", "body")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helios.config.json"),
		[]byte(`{"skills":{"userRoots":[],"catalog":{"budget":300,"pinned":["skill-19","ghost"]}}}`), 0o644))
	k, err := assembly.Load(context.Background(), filepath.Join(dir, "helios.config.json"), assembly.Options{WorkDir: dir})
	require.NoError(t, err)
	want := k.CatalogView(k.Catalog(context.Background()), k.CatalogBudget())
	k.Close()
	require.NotEmpty(t, want.Summary.Omitted)

	cfg := filepath.Join(dir, "helios.config.json")
	out, code := budHelios(t, dir, "--config", cfg, "skills", "catalog")
	require.Equal(t, 0, code, out)
	assert.True(t, strings.HasPrefix(out, want.Message+"\n"), "the output starts with the exact message:\n%s", out)
	assert.Contains(t, out, fmt.Sprintf("budget 300 characters, used %d", want.Summary.Used))

	out, code = budHelios(t, dir, "--config", cfg, "--json", "skills", "catalog")
	require.Equal(t, 0, code, out)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	for _, key := range []string{"budget", "used", "total", "included", "shortened", "omitted", "message"} {
		assert.Contains(t, got, key)
	}
	assert.Equal(t, want.Message, got["message"])
	assert.EqualValues(t, 300, got["budget"])
	assert.EqualValues(t, 20, got["total"])
	assert.Len(t, got["omitted"], len(want.Summary.Omitted))

	out, code = budHelios(t, dir, "--config", cfg, "skills", "list")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "skills.catalog.budget")
	assert.Contains(t, out, `pinned skill "ghost" is not in the catalog`)
}

// budHelios runs the CLI binary the suite builds, in dir, with an empty
// HOME; it returns stdout (stderr when stdout is empty) and the exit code.
func budHelios(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	r := helios(t, t.TempDir(), dir, args...)
	if r.stdout == "" {
		return r.stderr, r.code
	}
	return r.stdout, r.code
}
