package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gittest"
)

func pluginSkill(name string) gittest.File {
	return gittest.Text("---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nUse it.\n")
}

// pluginMarket is a marketplace of alpha (skills, a command, an agent, a
// hook running a script it ships) and beta (a bare folder of one skill).
func pluginMarket(hook string) map[string]gittest.File {
	return map[string]gittest.File{
		".claude-plugin/marketplace.json":          gittest.Text(`{"name":"acme","plugins":[{"name":"alpha","source":"./plugins/alpha"},{"name":"beta","source":"./plugins/beta"}]}`),
		"plugins/alpha/.claude-plugin/plugin.json": gittest.Text(`{"name":"alpha","version":"1.0.0","description":"Alpha."}`),
		"plugins/alpha/skills/pdf/SKILL.md":        pluginSkill("pdf"),
		"plugins/alpha/skills/docx/SKILL.md":       pluginSkill("docx"),
		"plugins/alpha/commands/hello.md":          gittest.Text("---\ndescription: Say hello.\n---\nSay hello.\n"),
		"plugins/alpha/agents/reviewer.md":         gittest.Text("---\nname: reviewer\ndescription: Reviews.\n---\nReview.\n"),
		"plugins/alpha/hooks/hooks.json": gittest.Text(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` +
			hook + `"}]}]}}`),
		"plugins/alpha/scripts/check.sh":     gittest.Script("#!/bin/sh\nexit 0\n"),
		"plugins/beta/skills/notes/SKILL.md": pluginSkill("notes"),
	}
}

type pluginsState struct {
	Plugins map[string]struct {
		Commit         string            `json:"commit"`
		Enabled        bool              `json:"enabled"`
		DisabledSkills []string          `json:"disabledSkills"`
		Files          map[string]string `json:"files"`
		Approved       *struct {
			Digest string `json:"digest"`
		} `json:"approved"`
	} `json:"plugins"`
}

func (w installWorld) pluginsState(t *testing.T) pluginsState {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(w.home, ".helios", "plugins", "helios-plugins.json"))
	require.NoError(t, err)
	var s pluginsState
	require.NoError(t, json.Unmarshal(data, &s))
	return s
}

func TestPluginsCLIInstallListDisableUpdateVerifyUninstall(t *testing.T) {
	w := newInstallWorld(t)
	repo := gittest.New(t, "market")
	repo.Commit(pluginMarket("${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"))
	url := gittest.ServeRepo(t, repo)

	code, stdout, stderr := w.helios(t, "plugins", "install", url, "--list")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "alpha (claude): skills docx, pdf; commands hello; agents reviewer; hooks")
	assert.Contains(t, stdout, "runs hook: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh")
	assert.Contains(t, stdout, "beta (folder): skills notes")
	assert.NoDirExists(t, filepath.Join(w.home, ".helios", "plugins"), "--list installs nothing")

	// No terminal, no --yes: installed with the hook off, and told how.
	code, stdout, stderr = w.helios(t, "plugins", "install", url, "--plugin", "*")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "installed alpha")
	assert.Contains(t, stdout, "approve with: helios plugins approve alpha")
	st := w.pluginsState(t)
	assert.Nil(t, st.Plugins["alpha"].Approved)

	code, stdout, stderr = w.helios(t, "plugins", "approve", "alpha")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "runs (approved): hook: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh")

	writeFile(t, filepath.Join(w.work, "helios.config.json"), `{"plugins":[{"name":"exe","command":"/bin/true"}]}`)
	code, stdout, stderr = w.helios(t, "--config", filepath.Join(w.work, "helios.config.json"), "plugins", "list")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "exe (config, on): executable /bin/true", "a plugins[] executable is a plugin whose part is an executable")
	assert.Contains(t, stdout, "alpha (user, on): skills docx, pdf; commands hello; agents reviewer; hooks; runs code: approved")

	code, _, stderr = w.helios(t, "plugins", "disable", "alpha", "--skill", "pdf")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = w.helios(t, "plugins", "disable", "beta")
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr = w.helios(t, "plugins", "list")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "alpha (user, on): skills docx, pdf (off: pdf); commands hello; agents reviewer; hooks; runs code: approved")
	assert.Contains(t, stdout, "beta (user, off): skills notes; runs nothing")
	st = w.pluginsState(t)
	assert.False(t, st.Plugins["beta"].Enabled)
	assert.Equal(t, []string{"pdf"}, st.Plugins["alpha"].DisabledSkills)

	// The hook changes upstream (the version string does not): the update
	// reports it and turns it off until approved again.
	moved := repo.Commit(pluginMarket("${CLAUDE_PLUGIN_ROOT}/scripts/check.sh --strict"))
	code, stdout, stderr = w.helios(t, "plugins", "update", "alpha")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "updated alpha: ")
	assert.Contains(t, stdout, "hooks/MCP servers/executable changed: hook: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh --strict")
	assert.Contains(t, stdout, "OFF until approved: helios plugins approve alpha")
	st = w.pluginsState(t)
	assert.Equal(t, moved, st.Plugins["alpha"].Commit)
	assert.Nil(t, st.Plugins["alpha"].Approved)
	assert.Equal(t, []string{"pdf"}, st.Plugins["alpha"].DisabledSkills, "an update keeps what was turned off")

	// plugins check reads every installed plugin; one whose skills folder
	// vanished does not load and fails the check.
	code, stdout, stderr = w.helios(t, "plugins", "check")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "ok    beta (user, installed): skills notes")
	require.NoError(t, os.RemoveAll(filepath.Join(w.home, ".helios", "plugins", "beta", "skills")))
	code, stdout, _ = w.helios(t, "plugins", "check")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "FAIL  beta (user, installed): did not load")
	assert.Contains(t, stdout, "not a plugin (no manifest, skills/")

	require.NoError(t, os.WriteFile(filepath.Join(w.home, ".helios", "plugins", "alpha", "agents", "reviewer.md"), []byte("x"), 0o644))
	code, stdout, _ = w.helios(t, "plugins", "verify")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "alpha: changed: agents/reviewer.md")

	code, stdout, stderr = w.helios(t, "plugins", "uninstall", "alpha", "beta")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "uninstalled alpha")
	es, err := os.ReadDir(filepath.Join(w.home, ".helios", "plugins"))
	require.NoError(t, err)
	var left []string
	for _, e := range es {
		left = append(left, e.Name())
	}
	assert.Equal(t, []string{"helios-plugins.json"}, left, "uninstall leaves nothing but the state")
	assert.Empty(t, w.pluginsState(t).Plugins)
}

func TestPluginsCLIYesApprovesAndAMarketplaceNeedsNames(t *testing.T) {
	w := newInstallWorld(t)
	repo := gittest.New(t, "market")
	repo.Commit(pluginMarket("${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"))

	code, _, stderr := w.helios(t, "plugins", "install", repo.URL())
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is a marketplace of 2 plugin(s) (alpha, beta): name the ones to install with --plugin NAME")

	code, stdout, stderr := w.helios(t, "plugins", "install", repo.URL(), "--plugin", "alpha", "--yes", "--project")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "runs (approved)")
	assert.FileExists(t, filepath.Join(w.work, ".helios", "plugins", "alpha", "hooks", "hooks.json"))
	code, stdout, stderr = w.helios(t, "--json", "plugins", "list")
	require.Equal(t, 0, code, stderr)
	var l struct {
		Plugins []struct {
			Name, Scope string
			Approved    bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &l))
	require.Len(t, l.Plugins, 1)
	assert.Equal(t, "project", l.Plugins[0].Scope)
	assert.True(t, l.Plugins[0].Approved)
	assert.False(t, strings.Contains(stdout, "beta"))
}
