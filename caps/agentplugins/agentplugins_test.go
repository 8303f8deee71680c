package agentplugins_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/agentplugins"
)

// write makes the files of a plugin (path → content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		f := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(f, []byte(content), mode))
	}
}

func warnings(ws []agentplugins.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}

const skillMD = "---\nname: %s\ndescription: does %s\n---\nbody\n"

func skill(name string) string { return strings.ReplaceAll(skillMD, "%s", name) }

// Protects: each real dialect reads as its authors meant it — Claude Code's
// default folders, Codex's "skills" path and "hooks": {}, the Agent Plugins
// manifest at the root with awesome-copilot's extension fields — and every
// part is described or warned about.
func TestReadPluginRealDialects(t *testing.T) {
	for _, tc := range []struct {
		dir                      string
		dialect                  agentplugins.Dialect
		name                     string
		skills, commands, agents int
		hooks                    bool
		servers                  []string
		warn                     []string
		runs                     int
	}{
		{dir: "superpowers", dialect: agentplugins.DialectClaude, name: "superpowers", skills: 1, hooks: true, runs: 1},
		{dir: "trailofbits-gh-cli", dialect: agentplugins.DialectClaude, name: "gh-cli", skills: 1, hooks: true, runs: 5},
		{dir: "wshobson-accessibility-compliance", dialect: agentplugins.DialectClaude, name: "accessibility-compliance", skills: 1, commands: 1, agents: 1},
		{dir: "awesome-copilot", dialect: agentplugins.DialectAgentPlugins, name: "awesome-copilot",
			servers: []string{"plugin_awesome-copilot_awesome-copilot"}, runs: 1,
			// The repository builds these folders at release; its source tree lacks them.
			warn: []string{"plugin awesome-copilot: skills ./skills/suggest-awesome-github-copilot-agents/: declared but missing",
				"plugin awesome-copilot: agents ./agents/meta-agentic-project-scaffold.md: declared but missing"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "real", tc.dir)
			m, ws, err := agentplugins.ReadPlugin(dir)
			require.NoError(t, err)
			assert.Equal(t, tc.dialect, m.Dialect)
			assert.Equal(t, tc.name, m.Name)
			p, dws := agentplugins.Describe(dir, m)
			all := warnings(append(ws, dws...))
			for _, w := range tc.warn {
				assert.Contains(t, all, w)
			}
			if len(tc.warn) == 0 {
				assert.Empty(t, all)
			}
			assert.Len(t, p.Skills, tc.skills, "skill roots")
			assert.Len(t, p.Commands, tc.commands)
			assert.Len(t, p.Agents, tc.agents)
			assert.Equal(t, tc.hooks, len(p.Hooks) > 0)
			var names []string
			for n := range p.MCPServers {
				names = append(names, n)
			}
			assert.ElementsMatch(t, tc.servers, names)
			digest, runs, err := agentplugins.RunDigest(dir, p)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(digest, "sha256:"))
			assert.Len(t, runs, tc.runs, "%q", runs)
		})
	}
}

// Protects: a Codex manifest is read as Codex writes it: "skills" is a
// path, "hooks": {} means none.
func TestReadPluginCodex(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "real", "superpowers", ".codex-plugin", "plugin.json")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	write(t, dir, map[string]string{".codex-plugin/plugin.json": string(data), "skills/brainstorming/SKILL.md": skill("brainstorming")})
	m, ws, err := agentplugins.ReadPlugin(dir)
	require.NoError(t, err)
	assert.Empty(t, ws)
	assert.Equal(t, agentplugins.DialectCodex, m.Dialect)
	assert.Equal(t, "superpowers", m.Name)
	assert.Equal(t, []string{"skills"}, m.Skills)
	assert.Empty(t, m.Hooks)
	assert.Empty(t, m.HooksInline)
}

// Protects: a folder without a manifest is a plugin named after the folder
// when it holds a part; one holding none is not a plugin.
func TestReadPluginBareFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes")
	write(t, dir, map[string]string{"skills/a/SKILL.md": skill("a"), "mcp.json": `{"srv": {"command": "x"}}`})
	m, _, err := agentplugins.ReadPlugin(dir)
	require.NoError(t, err)
	assert.Equal(t, agentplugins.DialectFolder, m.Dialect)
	assert.Equal(t, "notes", m.Name)
	assert.Contains(t, m.MCPServers, "srv", "the bare mcp.json shape is the servers object")

	empty := t.TempDir()
	_, _, err = agentplugins.ReadPlugin(empty)
	require.ErrorIs(t, err, agentplugins.ErrNotPlugin)
}

// Protects: bad input is an error or a warning naming the plugin and the
// path: a manifest that is not JSON, a path leaving the folder, a symlink
// out, a hook command naming a file the plugin does not ship.
func TestBadInputNamesPluginAndPath(t *testing.T) {
	t.Run("not JSON", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "broken")
		write(t, dir, map[string]string{".claude-plugin/plugin.json": `{"name": "broken",`})
		_, _, err := agentplugins.ReadPlugin(dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "plugin broken: manifest "+filepath.Join(dir, ".claude-plugin/plugin.json")+": not JSON")
	})
	t.Run("path leaves the folder", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "escape")
		write(t, dir, map[string]string{".claude-plugin/plugin.json": `{"name": "escape", "commands": ["./commands", "../../etc"]}`})
		_, _, err := agentplugins.ReadPlugin(dir)
		require.ErrorIs(t, err, agentplugins.ErrOutside)
		assert.Contains(t, err.Error(), `plugin escape: commands path "../../etc"`)
	})
	t.Run("symlink out", func(t *testing.T) {
		outside := t.TempDir()
		write(t, outside, map[string]string{"a/SKILL.md": skill("a")})
		dir := filepath.Join(t.TempDir(), "linky")
		write(t, dir, map[string]string{"plugin.json": `{"name": "linky"}`})
		require.NoError(t, os.Symlink(outside, filepath.Join(dir, "skills")))
		_, _, err := agentplugins.ReadPlugin(dir)
		require.ErrorIs(t, err, agentplugins.ErrOutside)
		assert.Contains(t, err.Error(), `plugin linky: skills path "skills": symlink to `+outside)
	})
	t.Run("hook names a missing file", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "hooky")
		write(t, dir, map[string]string{"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "\"${PLUGIN_ROOT}/bin/gone.sh\" --now"}]}]}}`, "skills/a/SKILL.md": skill("a")})
		m, _, err := agentplugins.ReadPlugin(dir)
		require.NoError(t, err)
		p, ws := agentplugins.Describe(dir, m)
		assert.Contains(t, warnings(ws), "plugin hooky: hooks hooks/hooks.json: a command names ${CLAUDE_PLUGIN_ROOT}/bin/gone.sh, which the plugin does not ship")
		assert.Empty(t, p.Hooks, "hooks that cannot run are off")
		assert.Len(t, p.Skills, 1, "the other parts still load")
	})
	t.Run("hooks file not JSON", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "h2")
		write(t, dir, map[string]string{"hooks/hooks.json": `{`})
		m, _, err := agentplugins.ReadPlugin(dir)
		require.NoError(t, err)
		_, ws := agentplugins.Describe(dir, m)
		assert.Contains(t, warnings(ws), "plugin h2: hooks hooks/hooks.json: not JSON")
	})
}

// Protects: every part that cannot load says so — an empty skills folder, a
// commands folder without commands, an agent without a description — never
// a silent zero.
func TestEveryPartWarnsWhenEmpty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hollow")
	write(t, dir, map[string]string{
		".claude-plugin/plugin.json": `{"name": "hollow"}`,
		"skills/README.txt":          "nothing",
		"commands/notes.txt":         "nothing",
		"agents/bad.md":              "---\nname: bad\n---\nno description\n",
	})
	m, _, err := agentplugins.ReadPlugin(dir)
	require.NoError(t, err)
	_, ws := agentplugins.Describe(dir, m)
	all := warnings(ws)
	assert.Contains(t, all, "plugin hollow: skills skills: holds no <skill>/SKILL.md")
	assert.Contains(t, all, "plugin hollow: commands commands: holds no .md command")
	assert.Contains(t, all, `plugin hollow: agents agents/bad.md: no "description" in the frontmatter`)
}

// Protects: agents are parsed (name, description, tools, model) and kept.
func TestAgentsParsed(t *testing.T) {
	dir := filepath.Join("testdata", "real", "wshobson-accessibility-compliance")
	m, _, err := agentplugins.ReadPlugin(dir)
	require.NoError(t, err)
	p, _ := agentplugins.Describe(dir, m)
	require.Len(t, p.AgentDefs, 1)
	a := p.AgentDefs[0]
	assert.Equal(t, "ui-visual-validator", a.Name)
	assert.NotEmpty(t, a.Description)
	assert.Equal(t, "sonnet", a.Model)

	tmp := t.TempDir()
	write(t, tmp, map[string]string{"agents/r.md": "---\nname: reviewer\ndescription: reviews\ntools: Read, Grep\nmodel: sonnet\n---\nYou review.\n"})
	m, _, err = agentplugins.ReadPlugin(tmp)
	require.NoError(t, err)
	p, ws := agentplugins.Describe(tmp, m)
	assert.Empty(t, ws)
	require.Len(t, p.AgentDefs, 1)
	assert.Equal(t, agentplugins.Agent{Name: "reviewer", Description: "reviews", Tools: []string{"Read", "Grep"}, Model: "sonnet", File: filepath.Join(tmp, "agents", "r.md"), Prompt: "You review.\n"}, p.AgentDefs[0])
}

// Protects: the three root variables — ${CLAUDE_PLUGIN_ROOT},
// ${PLUGIN_ROOT}, ${CODEX_PLUGIN_ROOT}, with or without a :- default — all
// name the installed folder in an MCP server, and the server is named
// plugin_<plugin>_<server>.
func TestMCPServersRootVariablesAndNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tri")
	write(t, dir, map[string]string{
		"bin/a.sh": "exit 0", "bin/b.sh": "exit 0", "bin/c.sh": "exit 0",
		".mcp.json": `{"mcpServers": {
			"claude": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/a.sh"},
			"neutral": {"command": "sh", "args": ["${PLUGIN_ROOT}/bin/b.sh"]},
			"codex": {"command": "${CODEX_PLUGIN_ROOT:-.}/bin/c.sh", "env": {"DATA": "${CODEX_PLUGIN_ROOT}/data"}}}}`,
	})
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	m, _, err := agentplugins.ReadPlugin(dir)
	require.NoError(t, err)
	p, ws := agentplugins.Describe(dir, m)
	require.Empty(t, ws)
	type server struct {
		Command string
		Args    []string
		Env     map[string]string
	}
	got := map[string]server{}
	for n, raw := range p.MCPServers {
		var s server
		require.NoError(t, json.Unmarshal(raw, &s))
		got[n] = s
	}
	assert.Equal(t, map[string]server{
		"plugin_tri_claude":  {Command: abs + "/bin/a.sh"},
		"plugin_tri_neutral": {Command: "sh", Args: []string{abs + "/bin/b.sh"}},
		"plugin_tri_codex":   {Command: abs + "/bin/c.sh", Env: map[string]string{"DATA": abs + "/data"}},
	}, got)
}

// Protects: the run digest covers exactly what runs: a hook script's content
// changes it, a skill's does not.
func TestRunDigestCoversWhatRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dg")
	write(t, dir, map[string]string{
		"hooks/hooks.json":  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh"}]}]}}`,
		"hooks/stop.sh":     "echo one",
		"skills/a/SKILL.md": skill("a"),
	})
	digest := func() (string, []string) {
		m, _, err := agentplugins.ReadPlugin(dir)
		require.NoError(t, err)
		p, ws := agentplugins.Describe(dir, m)
		require.Empty(t, ws)
		d, runs, err := agentplugins.RunDigest(dir, p)
		require.NoError(t, err)
		return d, runs
	}
	before, runs := digest()
	assert.Equal(t, []string{"hook: ${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh"}, runs)
	write(t, dir, map[string]string{"skills/a/SKILL.md": skill("a") + "more\n"})
	same, _ := digest()
	assert.Equal(t, before, same, "a skill is not code that runs")
	write(t, dir, map[string]string{"hooks/stop.sh": "echo two"})
	after, _ := digest()
	assert.NotEqual(t, before, after, "the hook script changed")
}

// Protects: the marketplace files of each agent read the same way: Claude
// Code's string and object sources, Codex's {"source": "local"}, obra's
// {"source": "url", "url": "./"}, awesome-copilot's .github/plugin file.
func TestReadMarketplaceReal(t *testing.T) {
	for _, tc := range []struct {
		file, at, name string
		first          agentplugins.MarketplaceEntry
		n              int
	}{
		{"superpowers-marketplace.claude.json", ".claude-plugin/marketplace.json", "superpowers-dev", agentplugins.MarketplaceEntry{Name: "superpowers", Source: agentplugins.Source{Path: "."}}, 1},
		{"superpowers-marketplace.agents.json", ".agents/plugins/marketplace.json", "superpowers-dev", agentplugins.MarketplaceEntry{Name: "superpowers", Source: agentplugins.Source{Path: "."}}, 1},
		{"trailofbits-marketplace.claude.json", ".claude-plugin/marketplace.json", "trailofbits", agentplugins.MarketplaceEntry{Name: "audit-context-building", Source: agentplugins.Source{Path: "plugins/audit-context-building"}}, 3},
		{"wshobson-marketplace.agents.json", ".agents/plugins/marketplace.json", "claude-code-workflows", agentplugins.MarketplaceEntry{Name: "accessibility-compliance", Source: agentplugins.Source{Path: "plugins/accessibility-compliance"}}, 2},
		{"awesome-copilot-marketplace.github.json", ".github/plugin/marketplace.json", "awesome-copilot", agentplugins.MarketplaceEntry{Name: "accessibility-kanban", Source: agentplugins.Source{Path: "plugins/accessibility-kanban"}}, 3},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "real", tc.file))
			require.NoError(t, err)
			dir := t.TempDir()
			write(t, dir, map[string]string{tc.at: string(data)})
			name, entries, ws, err := agentplugins.ReadMarketplace(dir)
			require.NoError(t, err)
			assert.Empty(t, ws)
			assert.Equal(t, tc.name, name)
			require.Len(t, entries, tc.n)
			tc.first.Description = entries[0].Description
			assert.Equal(t, tc.first, entries[0])
		})
	}
}

// Protects: a marketplace entry it cannot use is a warning naming the entry
// and its JSON path; the others are listed.
func TestReadMarketplaceBadEntries(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{".claude-plugin/marketplace.json": `{"name": "m", "plugins": [
		{"name": "ok", "source": {"source": "github", "repo": "o/r", "ref": "v1", "path": "p"}},
		{"name": "out", "source": "../elsewhere"},
		{"name": "ok", "source": "./x"},
		{"name": "odd", "source": {"source": "npm", "package": "x"}}]}`})
	_, entries, ws, err := agentplugins.ReadMarketplace(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, agentplugins.Source{URL: "https://github.com/o/r.git", Ref: "v1", SubPath: "p"}, entries[0].Source)
	all := warnings(ws)
	assert.Contains(t, all, `plugin out: marketplace .claude-plugin/marketplace.json plugins[1].source: "../elsewhere": leaves the plugin's folder`)
	assert.Contains(t, all, "plugin ok: marketplace .claude-plugin/marketplace.json plugins[2]: listed twice")
	assert.Contains(t, all, `plugin odd: marketplace .claude-plugin/marketplace.json plugins[3].source: source kind "npm" is not supported`)
}
