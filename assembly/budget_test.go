package assembly_test

// Contract C13: the catalog budget's config keys.

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel/skills"
)

// C13 bad input: each a config error naming its JSON path, all at once.
func TestCatalogBudgetConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   []string
	}{
		{`{"skills":{"catalog":{"budget":"lots"}}}`, []string{"skills.catalog.budget", `"lots"`}},
		{`{"skills":{"catalog":{"budget":true}}}`, []string{"skills.catalog.budget", "a boolean"}},
		{`{"skills":{"catalog":{"budget":"0%"}}}`, []string{"skills.catalog.budget", "outside (0, 100]"}},
		{`{"skills":{"catalog":{"budget":"100.5%"}}}`, []string{"skills.catalog.budget", "outside (0, 100]"}},
		{`{"skills":{"catalog":{"budget":-5}}}`, []string{"skills.catalog.budget", "positive whole number"}},
		{`{"model":{"contextWindow":0}}`, []string{"model.contextWindow", "must be positive"}},
		{`{"skills":{"tools":{"max":-1}}}`, []string{"skills.tools.max", "must be positive"}},
		{`{"model":{"contextWindow":-3},"skills":{"catalog":{"budget":"x%"}}}`, []string{"model.contextWindow", "skills.catalog.budget"}},
	} {
		t.Run(tc.config, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "helios.config.json")
			require.NoError(t, os.WriteFile(p, []byte(tc.config), 0o644))
			k, err := assembly.Load(context.Background(), p, assembly.Options{WorkDir: dir})
			if k != nil {
				k.Close()
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, assembly.ErrConfig)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// C13: the keys reach the kernel: a percentage of the context window, the
// pinned names, the tools bound; the defaults are 2% of 128000 tokens and
// 128 tools.
func TestCatalogBudgetConfigKeys(t *testing.T) {
	load := func(config string) skills.Budget {
		dir := t.TempDir()
		p := filepath.Join(dir, "helios.config.json")
		require.NoError(t, os.WriteFile(p, []byte(config), 0o644))
		k, err := assembly.Load(context.Background(), p, assembly.Options{WorkDir: dir})
		require.NoError(t, err)
		defer k.Close()
		return k.CatalogBudget()
	}
	assert.Equal(t, skills.Budget{Chars: 10240, ContextWindow: 128000, ToolsMax: 128}, load(`{}`))
	assert.Equal(t, skills.Budget{Chars: 400, ContextWindow: 10000, ToolsMax: 7, Pinned: []string{"a", "b"}},
		load(`{"model":{"contextWindow":10000},"skills":{"catalog":{"budget":"1%","pinned":["a","b"]},"tools":{"max":7}}}`))
	assert.Equal(t, 5000, load(`{"skills":{"catalog":{"budget":5000}}}`).Chars)
	assert.Equal(t, 5000, load(`{"skills":{"catalog":{"budget":"5000"}}}`).Chars)
}
