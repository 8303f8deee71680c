package skillinstall_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/skillinstall"
)

// Protects: update reads the marketplace again and follows a plugin whose
// entry moved within the marketplace's repository (the old path is gone),
// reporting the move and recording the new path; a marketplace that no
// longer lists it, or takes it from another repository, leaves it as it is
// with a warning naming it. Served over smart HTTP, as a real remote is.
func TestPluginsUpdateFollowsAPluginMovedInItsMarketplace(t *testing.T) {
	r := gittest.New(t, "market")
	r.Commit(market("1.0.0", "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"))
	url := gittest.ServeRepo(t, r)
	w := newPluginWorld(t)
	yes := func(string, []string) bool { return true }
	_, err := w.in.Install(context.Background(), url, skillinstall.PluginInstallOptions{Plugins: []string{"*"}, Approve: yes})
	require.NoError(t, err)
	require.Equal(t, "plugins/alpha", w.state(t).Plugins["alpha"].Path)
	require.Equal(t, ".", w.state(t).Plugins["alpha"].MarketplaceAt)

	// alpha moves to packages/alpha, with a new skill; beta moves unchanged.
	files := alphaFiles("packages/alpha", "1.0.0", "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh")
	files["packages/alpha/skills/xlsx/SKILL.md"] = gittest.Text(md("xlsx", "Spreadsheets."))
	files["packages/beta/skills/notes/SKILL.md"] = gittest.Text(md("notes", "Take notes."))
	files[".claude-plugin/marketplace.json"] = gittest.Text(`{"name":"acme","plugins":[{"name":"alpha","source":"./packages/alpha"},{"name":"beta","source":"./packages/beta"}]}`)
	commit := r.Commit(files)
	res, err := w.in.Update(context.Background(), nil, skillinstall.PluginUpdateOptions{})
	require.NoError(t, err)
	assert.Empty(t, res.Skipped)
	require.Len(t, res.Plugins, 2)
	a, b := res.Plugins[0], res.Plugins[1]
	assert.Equal(t, skillinstall.Updated, a.Action)
	assert.Equal(t, "moved: plugins/alpha → packages/alpha", a.Changes[0])
	assert.Contains(t, a.Changes, "skills added: skills/xlsx")
	assert.True(t, a.Approved, "the hook did not change: the approval holds")
	assert.Equal(t, skillinstall.Unchanged, b.Action)
	assert.Equal(t, []string{"moved: plugins/beta → packages/beta"}, b.Changes)
	st := w.state(t)
	assert.Equal(t, "packages/alpha", st.Plugins["alpha"].Path)
	assert.Equal(t, commit, st.Plugins["alpha"].Commit)
	assert.Equal(t, "packages/beta", st.Plugins["beta"].Path)
	_, err = os.Stat(filepath.Join(w.root, "alpha", "skills", "xlsx", "SKILL.md"))
	require.NoError(t, err)

	// Sync reproduces the locked commit at the new path.
	_, err = w.in.Sync(context.Background())
	require.NoError(t, err)
	rep, err := w.in.Verify(context.Background())
	require.NoError(t, err)
	for _, c := range rep.Plugins {
		assert.True(t, c.OK, "%+v", c)
	}

	// The marketplace drops beta and takes alpha from another repository:
	// neither is updated, each with a warning naming it.
	files[".claude-plugin/marketplace.json"] = gittest.Text(`{"name":"acme","plugins":[{"name":"alpha","source":{"source":"url","url":"https://example.invalid/alpha.git"}}]}`)
	files["packages/beta/skills/notes/SKILL.md"] = gittest.Text(md("notes", "Take notes, better."))
	r.Commit(files)
	res, err = w.in.Update(context.Background(), nil, skillinstall.PluginUpdateOptions{})
	require.NoError(t, err)
	warns := strings.Join(res.Warnings, "\n")
	assert.Contains(t, warns, "plugin alpha: marketplace acme now takes it from https://example.invalid/alpha.git, another repository")
	assert.Contains(t, warns, "plugin beta: marketplace acme no longer lists it; not updated")
	assert.Equal(t, commit, w.state(t).Plugins["beta"].Commit)
}
