package skillinstall_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/agentplugins"
	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/skillinstall"
)

// pluginWorld is one plugins root.
type pluginWorld struct {
	root string
	in   *skillinstall.Plugins
}

func newPluginWorld(t *testing.T) pluginWorld {
	t.Helper()
	root := filepath.Join(t.TempDir(), "plugins")
	in, err := skillinstall.NewPlugins(skillinstall.PluginConfig{Root: root})
	require.NoError(t, err)
	return pluginWorld{root, in}
}

func (w pluginWorld) state(t *testing.T) skillinstall.PluginState {
	t.Helper()
	s, err := skillinstall.ReadPluginState(filepath.Join(w.root, skillinstall.PluginStateFile))
	require.NoError(t, err)
	return s
}

// entries lists the root, without the state file.
func (w pluginWorld) entries(t *testing.T) []string {
	t.Helper()
	es, err := os.ReadDir(w.root)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		if e.Name() != skillinstall.PluginStateFile {
			out = append(out, e.Name())
		}
	}
	return out
}

func hooksJSON(cmd string) string {
	return `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + cmd + `"}]}]}}`
}

// alphaFiles is a Claude Code plugin with every part, at dir.
func alphaFiles(dir, version, hook string) map[string]gittest.File {
	return map[string]gittest.File{
		dir + "/.claude-plugin/plugin.json": gittest.Text(`{"name":"alpha","version":"` + version + `","description":"Alpha."}`),
		dir + "/skills/pdf/SKILL.md":        gittest.Text(md("pdf", "Work with PDF files.")),
		dir + "/skills/docx/SKILL.md":       gittest.Text(md("docx", "Work with Word files.")),
		dir + "/commands/hello.md":          gittest.Text("---\ndescription: Say hello.\n---\nSay hello.\n"),
		dir + "/agents/reviewer.md":         gittest.Text("---\nname: reviewer\ndescription: Reviews.\n---\nReview.\n"),
		dir + "/hooks/hooks.json":           gittest.Text(hooksJSON(hook)),
		dir + "/scripts/check.sh":           gittest.Script("#!/bin/sh\nexit 0\n"),
	}
}

// market is a marketplace repository of alpha (every part), beta (a bare
// folder of one skill) and the entries extra adds.
func market(alphaVersion, hook string, extra ...string) map[string]gittest.File {
	files := alphaFiles("plugins/alpha", alphaVersion, hook)
	files["plugins/beta/skills/notes/SKILL.md"] = gittest.Text(md("notes", "Take notes."))
	entries := append([]string{`{"name":"alpha","source":"./plugins/alpha"}`, `{"name":"beta","source":"./plugins/beta"}`}, extra...)
	files[".claude-plugin/marketplace.json"] = gittest.Text(`{"name":"acme","plugins":[` + strings.Join(entries, ",") + `]}`)
	return files
}

func TestPluginsInstallFromAMarketplaceLocksCommitFilesAndApproval(t *testing.T) {
	transports(t, func(t *testing.T, r *gittest.Repo, url string) {
		commit := r.Commit(market("1.0.0", "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"))
		w := newPluginWorld(t)
		var asked []string
		res, err := w.in.Install(context.Background(), url, skillinstall.PluginInstallOptions{Plugins: []string{"*"},
			Approve: func(name string, runs []string) bool {
				asked = append(asked, name+": "+strings.Join(runs, ";"))
				return true
			}})
		require.NoError(t, err)
		require.Len(t, res.Plugins, 2, "%+v", res)
		assert.Empty(t, res.Skipped)
		assert.Equal(t, []string{"alpha: hook: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"}, asked, "only what runs code is asked about")

		st := w.state(t)
		a := st.Plugins["alpha"]
		assert.Equal(t, commit, a.Commit)
		assert.Equal(t, "plugins/alpha", a.Path)
		assert.Equal(t, "acme", a.Marketplace)
		assert.True(t, a.Enabled)
		assert.Equal(t, sum("#!/bin/sh\nexit 0\n"), a.Files["scripts/check.sh"])
		require.NotNil(t, a.Approved)
		assert.Equal(t, res.Plugins[0].RunDigest, a.Approved.Digest)
		assert.Contains(t, st.Plugins, "beta")

		got, warns := agentplugins.LoadInstalled(w.root, "user")
		assert.Empty(t, warns)
		require.Len(t, got, 2)
		assert.True(t, got[0].Approved, "the recorded approval is the digest agentplugins computes")
		assert.Equal(t, []string{"pdf", "docx"}, []string{filepath.Base(res.Plugins[0].Parts.Skills[1]), filepath.Base(res.Plugins[0].Parts.Skills[0])})
		assert.ElementsMatch(t, []string{"alpha", "beta"}, w.entries(t), "no stage left behind")
	})
}

func TestPluginsWithoutApprovalInstallWithCodeOff(t *testing.T) {
	r := gittest.New(t, "market")
	r.Commit(market("1.0.0", "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"))
	w := newPluginWorld(t)
	res, err := w.in.Install(context.Background(), r.URL(), skillinstall.PluginInstallOptions{Plugins: []string{"alpha"}})
	require.NoError(t, err)
	require.Len(t, res.Plugins, 1)
	assert.False(t, res.Plugins[0].Approved)
	assert.Nil(t, w.state(t).Plugins["alpha"].Approved, "no terminal, no --yes: hooks stay off")
	_, err = w.in.Approve(context.Background(), "alpha")
	require.NoError(t, err)
	got, _ := agentplugins.LoadInstalled(w.root, "user")
	require.Len(t, got, 1)
	assert.True(t, got[0].Approved)
}

func TestPluginsListShowsEveryPartAndInstallsNothing(t *testing.T) {
	r := gittest.New(t, "market")
	r.Commit(market("1.0.0", "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"))
	w := newPluginWorld(t)
	l, err := w.in.List(context.Background(), r.URL())
	require.NoError(t, err)
	assert.True(t, l.Marketplace)
	require.Len(t, l.Plugins, 2)
	a := l.Plugins[0]
	assert.Equal(t, []string{"skills/docx", "skills/pdf"}, a.Parts.Skills)
	assert.Equal(t, []string{"commands/hello.md"}, a.Parts.Commands)
	assert.Equal(t, []string{"agents/reviewer.md"}, a.Parts.Agents)
	assert.True(t, a.Parts.Hooks)
	assert.Equal(t, []string{"skills/notes"}, l.Plugins[1].Parts.Skills)
	assert.Equal(t, "folder", l.Plugins[1].Dialect)
	assert.NoDirExists(t, w.root)
}

func TestPluginsUpdateFollowsTheCommitNotTheVersionAndDropsAChangedHooksApproval(t *testing.T) {
	r := gittest.New(t, "market")
	r.Commit(market("1.0.0", "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"))
	w := newPluginWorld(t)
	yes := func(string, []string) bool { return true }
	_, err := w.in.Install(context.Background(), r.URL(), skillinstall.PluginInstallOptions{Plugins: []string{"*"}, Approve: yes})
	require.NoError(t, err)

	// Same version string, a new commit: the hook now runs something else
	// and a skill is added.
	files := market("1.0.0", "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh --all")
	files["plugins/alpha/skills/xlsx/SKILL.md"] = gittest.Text(md("xlsx", "Spreadsheets."))
	moved := r.Commit(files)
	res, err := w.in.Update(context.Background(), []string{"alpha"}, skillinstall.PluginUpdateOptions{})
	require.NoError(t, err)
	require.Len(t, res.Plugins, 1)
	c := res.Plugins[0]
	assert.Equal(t, skillinstall.Updated, c.Action, "the version string did not move, the commit did")
	assert.Equal(t, moved, w.state(t).Plugins["alpha"].Commit)
	assert.True(t, c.ApprovalDropped)
	assert.False(t, c.Approved)
	assert.Nil(t, w.state(t).Plugins["alpha"].Approved, "a changed hook runs only once approved again")
	assert.Contains(t, c.Changes, "skills added: skills/xlsx")
	assert.Contains(t, strings.Join(c.Changes, "\n"), "hooks/MCP servers/executable changed")
	data, err := os.ReadFile(filepath.Join(w.root, "alpha", "hooks", "hooks.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "--all")

	// A skill-only change keeps the approval.
	_, err = w.in.Approve(context.Background(), "alpha")
	require.NoError(t, err)
	files["plugins/alpha/skills/pdf/SKILL.md"] = gittest.Text(md("pdf", "PDF, better."))
	r.Commit(files)
	res, err = w.in.Update(context.Background(), nil, skillinstall.PluginUpdateOptions{})
	require.NoError(t, err)
	require.Len(t, res.Plugins, 2)
	assert.Equal(t, skillinstall.Updated, res.Plugins[0].Action)
	assert.True(t, res.Plugins[0].Approved)
	assert.Equal(t, []string{"skills changed: skills/pdf"}, res.Plugins[0].Changes)
	assert.Equal(t, skillinstall.Unchanged, res.Plugins[1].Action, "beta's files did not change")
}

func TestPluginsSyncVerifyDisableAndUninstall(t *testing.T) {
	r := gittest.New(t, "market")
	first := r.Commit(market("1.0.0", "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"))
	w := newPluginWorld(t)
	_, err := w.in.Install(context.Background(), r.URL(), skillinstall.PluginInstallOptions{Plugins: []string{"*"}})
	require.NoError(t, err)
	r.Commit(market("2.0.0", "x"))

	edited := filepath.Join(w.root, "alpha", "commands", "hello.md")
	require.NoError(t, os.WriteFile(edited, []byte("mine\n"), 0o644))
	rep, err := w.in.Verify(context.Background())
	require.NoError(t, err)
	assert.False(t, rep.OK)
	assert.Equal(t, []string{"commands/hello.md"}, rep.Plugins[0].Changed)

	res, err := w.in.Sync(context.Background())
	require.NoError(t, err)
	assert.Equal(t, skillinstall.Restored, res.Plugins[0].Action)
	assert.Equal(t, first, w.state(t).Plugins["alpha"].Commit, "sync reproduces the locked commit, not the newest")
	rep, err = w.in.Verify(context.Background())
	require.NoError(t, err)
	assert.True(t, rep.OK)

	_, err = w.in.SetEnabled(context.Background(), "beta", false)
	require.NoError(t, err)
	_, err = w.in.SetSkill(context.Background(), "alpha", "pdf", false)
	require.NoError(t, err)
	_, err = w.in.SetSkill(context.Background(), "alpha", "nope", false)
	require.ErrorContains(t, err, `plugin alpha has no skill "nope" (its skills: docx; pdf)`)
	got, _ := agentplugins.LoadInstalled(w.root, "user")
	require.Len(t, got, 2)
	assert.Equal(t, []string{"pdf"}, got[0].DisabledSkills)
	assert.True(t, got[0].Enabled)
	assert.False(t, got[1].Enabled, "disabled in the state")

	_, err = w.in.Uninstall(context.Background(), []string{"alpha", "beta"})
	require.NoError(t, err)
	assert.Empty(t, w.entries(t), "uninstall leaves nothing")
	assert.Empty(t, w.state(t).Plugins)
}

func TestPluginsBadInputIsNamedAndNothingHalfInstalled(t *testing.T) {
	other := gittest.New(t, "other")
	other.Commit(map[string]gittest.File{"skills/gamma/SKILL.md": gittest.Text(md("gamma", "G."))})
	big := strings.Repeat("x", 6<<20)
	files := market("1.0.0", "x",
		`{"name":"gamma","source":{"source":"url","url":"`+other.URL()+`"}}`,
		`{"name":"ghost","source":{"source":"url","url":"file:///nonexistent/repo.git"}}`,
		`{"name":"huge","source":"./plugins/huge"}`, `{"name":"stub","source":"./plugins/stub"}`)
	for _, f := range []string{"a", "b", "c"} {
		files["plugins/huge/skills/h/"+f+".bin"] = gittest.Text(big)
	}
	files["plugins/huge/skills/h/SKILL.md"] = gittest.Text(md("h", "H."))
	files["plugins/stub/plugin.json"] = gittest.Text(`{"name":"stub","extensions":{"x":{"skills":["../../skills/s"]}}}`)
	files["plugins/stub/README.md"] = gittest.Text("a stub\n")
	r := gittest.New(t, "market")
	r.Commit(files)
	w := newPluginWorld(t)
	res, err := w.in.Install(context.Background(), r.URL(), skillinstall.PluginInstallOptions{Plugins: []string{"*"}})
	require.NoError(t, err)
	warns := strings.Join(res.Warnings, "\n")
	assert.Contains(t, warns, "plugin ghost (marketplace acme): source file:///nonexistent/repo.git is unreachable")
	assert.Contains(t, warns, "plugin huge: plugins/huge/skills/h/c.bin")
	assert.Contains(t, warns, "plugin stub: loads nothing: no skills, commands, agents, hooks, MCP servers or executable in its folder",
		"a plugin that loads no part is never a silent zero")
	assert.Equal(t, []string{"huge"}, []string{res.Skipped[0].Name})
	assert.ElementsMatch(t, []string{"alpha", "beta", "gamma", "stub"}, w.entries(t), "huge is not half-installed, no stage is left")
	assert.Len(t, w.state(t).Plugins, 4)

	// The same name from a second marketplace is refused naming both.
	r2 := gittest.New(t, "market2")
	f2 := market("1.0.0", "x")
	f2[".claude-plugin/marketplace.json"] = gittest.Text(`{"name":"rival","plugins":[{"name":"alpha","source":"./plugins/alpha"}]}`)
	r2.Commit(f2)
	res, err = w.in.Install(context.Background(), r2.URL(), skillinstall.PluginInstallOptions{Plugins: []string{"alpha"}})
	require.NoError(t, err)
	require.Len(t, res.Skipped, 1)
	assert.Contains(t, res.Skipped[0].Reason, `plugin alpha is already installed from `+r.URL())
	assert.Contains(t, res.Skipped[0].Reason, `(marketplace "acme"`)
	assert.Contains(t, res.Skipped[0].Reason, `(marketplace "rival"`)

	// A marketplace without --plugin names its plugins.
	_, err = w.in.Install(context.Background(), r2.URL(), skillinstall.PluginInstallOptions{})
	require.ErrorContains(t, err, "--plugin")
}

func TestPluginsCopilotMarketplaceFileIsRead(t *testing.T) {
	r := gittest.New(t, "market")
	files := market("1.0.0", "x")
	files[".github/plugin/marketplace.json"] = files[".claude-plugin/marketplace.json"]
	delete(files, ".claude-plugin/marketplace.json")
	r.Commit(files)
	w := newPluginWorld(t)
	l, err := w.in.List(context.Background(), r.URL())
	require.NoError(t, err)
	assert.True(t, l.Marketplace, "GitHub Copilot's .github/plugin/marketplace.json is a marketplace")
	require.Len(t, l.Plugins, 2)
	assert.Equal(t, "alpha", l.Plugins[0].Name)
}
