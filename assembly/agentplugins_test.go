package assembly_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/agentplugins"
	"github.com/helios-agents/helios/caps/mcpclient"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/provider/modeltest"
)

// kitPlugin is an installed plugin with every part: two skills, a command,
// an agent, a SessionStart hook that writes the three root variables to
// $CLAUDE_PROJECT_DIR/roots.txt through a script, and a real MCP server (this
// test binary) started through a script, all spelled with root variables.
func kitPlugin(t *testing.T) map[string]string {
	exe, err := os.Executable()
	require.NoError(t, err)
	return map[string]string{
		".claude-plugin/plugin.json": `{"name": "kit", "version": "1.0.0"}`,
		"skills/alpha/SKILL.md":      "---\nname: alpha\ndescription: does alpha\n---\nalpha\n",
		"skills/beta/SKILL.md":       "---\nname: beta\ndescription: does beta\n---\nbeta\n",
		"commands/greet.md":          "---\ndescription: greets\n---\nHello $ARGUMENTS\n",
		"agents/helper.md":           "---\nname: helper\ndescription: helps\n---\nYou help.\n",
		"hooks/hooks.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command",
			"command": "sh \"${CLAUDE_PLUGIN_ROOT}/hooks/roots.sh\""}]}]}}`,
		"hooks/roots.sh": "cat >/dev/null\nprintf '%s\\n%s\\n%s\\n' \"$CLAUDE_PLUGIN_ROOT\" \"$PLUGIN_ROOT\" \"$CODEX_PLUGIN_ROOT\" > \"$CLAUDE_PROJECT_DIR/roots.txt\"\n",
		".mcp.json":      `{"mcpServers": {"srv": {"command": "${PLUGIN_ROOT}/bin/serve", "env": {"PLUGIN_TEST_MCP_STDIO": "1"}}}}`,
		"bin/serve":      "#!/bin/sh\nexec '" + exe + "'\n",
	}
}

// installPlugin writes <root>/<name>/ and the state file; approve records
// the digest of what runs as it is now.
func installPlugin(t *testing.T, root, name string, files map[string]string, st agentplugins.PluginState, approve bool) string {
	t.Helper()
	dir := filepath.Join(root, name)
	for p, content := range files {
		f := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
		require.NoError(t, os.WriteFile(f, []byte(content), 0o755))
	}
	if approve {
		m, _, err := agentplugins.ReadPlugin(dir)
		require.NoError(t, err)
		parts, ws := agentplugins.Describe(dir, m)
		require.Empty(t, ws)
		d, runs, err := agentplugins.RunDigest(dir, parts)
		require.NoError(t, err)
		st.Approved = &agentplugins.Approval{Digest: d, Commands: runs}
	}
	state, err := agentplugins.ReadState(root)
	require.NoError(t, err)
	if state.Plugins == nil {
		state.Plugins = map[string]agentplugins.PluginState{}
	}
	state.Plugins[name] = st
	data, err := json.Marshal(state)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, agentplugins.StateFile), data, 0o600))
	return dir
}

type pluginKernel struct {
	k     *kernel.Kernel
	work  string
	mu    sync.Mutex
	warns []string
}

func (p *pluginKernel) warnings() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.warns, "\n")
}

// buildWithPlugins assembles a kernel whose only plugin root is root.
func buildWithPlugins(t *testing.T, root string, noMCP bool) *pluginKernel {
	t.Helper()
	return buildWith(t, root, "", assembly.Options{NoMCP: noMCP})
}

// buildWith is buildWithPlugins with a user skill root ("" for none) and
// opts (NoMCP, Watch) of its own.
func buildWith(t *testing.T, root, userRoot string, opts assembly.Options) *pluginKernel {
	t.Helper()
	userRoots := "[]"
	if userRoot != "" {
		userRoots = `["` + userRoot + `"]`
	}
	dir := t.TempDir()
	pk := &pluginKernel{work: t.TempDir()}
	srv := modeltest.NewServer(t)
	cfg, err := assembly.ParseConfig(filepath.Join(dir, "helios.config.json"), []byte(`{
  "skills": {"userRoots": `+userRoots+`, "projectRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(dir, "sessions")+`"},
  "tools": {"sandbox": {"mode": "off"}}
}`))
	require.NoError(t, err)
	opts.BaseDir, opts.WorkDir = dir, pk.work
	opts.PluginRoots = []agentplugins.Root{{Dir: root, Scope: agentplugins.ScopeUser}}
	opts.OnWarning = func(w contract.Warning) {
		pk.mu.Lock()
		defer pk.mu.Unlock()
		pk.warns = append(pk.warns, w.Path+": "+w.Message)
	}
	k, err := assembly.Build(t.Context(), cfg, opts)
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	pk.k = k
	return pk
}

func skillSources(t *testing.T, k *kernel.Kernel) map[string]string {
	out := map[string]string{}
	for _, s := range k.Catalog(t.Context()).Skills {
		out[s.Name] = s.Source
	}
	return out
}

// rootsWritten opens and closes a session (SessionStart runs) and returns
// what the plugin's hook wrote, or "" when it did not run.
func rootsWritten(t *testing.T, pk *pluginKernel) string {
	s, err := pk.k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	data, err := os.ReadFile(filepath.Join(pk.work, "roots.txt"))
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(data)
}

// Protects: an approved plugin's every part works from one install: skills
// as source plugin:<name> (a disabled one left out), its hook after the
// person's with all three root variables naming the folder, its MCP server
// running as plugin_<plugin>_<server>, its commands namespaced
// /<plugin>:<command>.
func TestAgentPluginPartsLoad(t *testing.T) {
	root := t.TempDir()
	dir := installPlugin(t, root, "kit", kitPlugin(t), agentplugins.PluginState{Enabled: true, DisabledSkills: []string{"beta"}}, true)
	pk := buildWithPlugins(t, root, false)
	assert.Empty(t, pk.warnings())

	assert.Equal(t, map[string]string{"alpha": "plugin:kit"}, skillSources(t, pk.k), "beta is disabled")
	assert.Equal(t, dir+"\n"+dir+"\n"+dir+"\n", rootsWritten(t, pk))

	servers := mcpServers(t, pk.k)
	require.Contains(t, servers, "plugin_kit_srv")
	srv := servers["plugin_kit_srv"]
	assert.Equal(t, mcpclient.StateReady, srv.Status().State, "%v", srv.Status().Err)
	tools, err := srv.Tools(t.Context())
	require.NoError(t, err)
	assert.NotEmpty(t, tools)
	assert.True(t, slices.ContainsFunc(tools, func(tl contract.Tool) bool { return strings.HasPrefix(tl.Name, "mcp__plugin_kit_srv__") }))

	installed, ws := assembly.InstalledPlugins(pk.work, assembly.Options{PluginRoots: []agentplugins.Root{{Dir: root, Scope: agentplugins.ScopeUser}}})
	assert.Empty(t, ws)
	cmds := assembly.PluginCommands(installed)
	require.Len(t, cmds, 1)
	assert.Equal(t, "kit", cmds[0].Plugin)
	require.Len(t, installed, 1)
	// A run reads no agent (see DescribeForRun).
	assert.Empty(t, installed[0].Parts.Agents)
	assert.Empty(t, installed[0].Parts.AgentDefs)
}

// Protects: an unapproved plugin's hooks and MCP servers stay off, with a
// warning saying how to approve; its skills still load.
func TestAgentPluginUnapprovedRunsNothing(t *testing.T) {
	root := t.TempDir()
	installPlugin(t, root, "kit", kitPlugin(t), agentplugins.PluginState{Enabled: true}, false)
	pk := buildWithPlugins(t, root, false)
	assert.Contains(t, pk.warnings(), "plugin kit: its hooks, MCP servers and executables are off (never approved); run `helios plugins approve kit` to approve")
	assert.Equal(t, map[string]string{"alpha": "plugin:kit", "beta": "plugin:kit"}, skillSources(t, pk.k))
	assert.Empty(t, rootsWritten(t, pk), "the hook did not run")
	assert.NotContains(t, mcpServers(t, pk.k), "plugin_kit_srv")
}

// Protects: a hook script changed after approval turns the plugin's code
// off until approved again.
func TestAgentPluginChangedHookOff(t *testing.T) {
	root := t.TempDir()
	dir := installPlugin(t, root, "kit", kitPlugin(t), agentplugins.PluginState{Enabled: true}, true)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hooks", "roots.sh"), []byte("cat >/dev/null; echo changed > \"$CLAUDE_PROJECT_DIR/roots.txt\"\n"), 0o755))
	pk := buildWithPlugins(t, root, true)
	assert.Contains(t, pk.warnings(), "plugin kit: its hooks, MCP servers and executables are off (changed since they were approved); run `helios plugins approve kit`")
	assert.Empty(t, rootsWritten(t, pk), "the changed hook did not run")
}

// Protects: a disabled plugin contributes nothing; a broken one costs only
// itself, with a warning naming it and its path; hooks Helios cannot run
// are named, never dropped silently.
func TestAgentPluginDisabledAndBroken(t *testing.T) {
	root := t.TempDir()
	installPlugin(t, root, "kit", kitPlugin(t), agentplugins.PluginState{Enabled: false}, true)
	installPlugin(t, root, "bad", map[string]string{".claude-plugin/plugin.json": `{"name": `}, agentplugins.PluginState{Enabled: true}, false)
	installPlugin(t, root, "ok", map[string]string{"skills/gamma/SKILL.md": "---\nname: gamma\ndescription: does gamma\n---\n"}, agentplugins.PluginState{Enabled: true}, false)
	installPlugin(t, root, "noisy", map[string]string{"hooks/hooks.json": `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "true", "future": 1}]}]}}`}, agentplugins.PluginState{Enabled: true}, true)
	pk := buildWithPlugins(t, root, true)
	assert.Contains(t, pk.warnings(), "plugin noisy: hooks: Helios does not run the event(s) Notification")
	assert.Contains(t, pk.warnings(), "plugin noisy: hooks: none of its events is one Helios runs")
	assert.Contains(t, pk.warnings(), "plugin noisy: hooks: hooks.Notification[0].hooks[0].future: unknown field")
	assert.Contains(t, pk.warnings(), "plugin bad: manifest "+filepath.Join(root, "bad", ".claude-plugin", "plugin.json")+": not JSON")
	assert.Equal(t, map[string]string{"gamma": "plugin:ok"}, skillSources(t, pk.k))
	assert.Empty(t, rootsWritten(t, pk))
	installed, _ := assembly.InstalledPlugins(pk.work, assembly.Options{PluginRoots: []agentplugins.Root{{Dir: root, Scope: agentplugins.ScopeUser}}})
	for _, c := range assembly.PluginCommands(installed) {
		assert.NotEqual(t, "kit", c.Plugin, "a disabled plugin has no commands")
	}
}

// Protects: the work dir's installed plugins load only when the caller says
// its config is trusted (ProjectPlugins); the user's root is the default.
func TestPluginRootsProjectOnlyWhenTrusted(t *testing.T) {
	work := t.TempDir()
	assert.Empty(t, assembly.PluginRoots(work, assembly.Options{PluginRoots: []agentplugins.Root{}}))
	assert.Equal(t, []agentplugins.Root{{Dir: filepath.Join(work, ".helios", "plugins"), Scope: agentplugins.ScopeProject}},
		assembly.PluginRoots(work, assembly.Options{PluginRoots: []agentplugins.Root{}, ProjectPlugins: true}))
	home := t.TempDir()
	t.Setenv("HOME", home)
	assert.Equal(t, []agentplugins.Root{{Dir: filepath.Join(home, ".helios", "plugins"), Scope: agentplugins.ScopeUser}},
		assembly.PluginRoots(work, assembly.Options{}))
}

// Protects: a plugin's skills go through the one merge: a user skill of the
// same name wins and the warning names both; a skill added to the plugin's
// folder appears without a restart (its root is watched).
func TestAgentPluginSkillsMergeAndRefresh(t *testing.T) {
	root, user := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(user, "alpha"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(user, "alpha", "SKILL.md"), []byte("---\nname: alpha\ndescription: mine\n---\n"), 0o644))
	dir := installPlugin(t, root, "kit", kitPlugin(t), agentplugins.PluginState{Enabled: true}, false)
	pk := buildWith(t, root, user, assembly.Options{NoMCP: true, Watch: true})

	cat := pk.k.Catalog(t.Context())
	assert.Equal(t, map[string]string{"alpha": "user", "beta": "plugin:kit"}, skillSources(t, pk.k))
	var shadow []string
	for _, w := range cat.Warnings {
		if strings.Contains(w.String(), "alpha") {
			shadow = append(shadow, w.String())
		}
	}
	require.NotEmpty(t, shadow)
	assert.Contains(t, shadow[0], "plugin:kit")
	assert.Contains(t, shadow[0], filepath.Join(user, "alpha"))

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "skills", "gamma"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "skills", "gamma", "SKILL.md"), []byte("---\nname: gamma\ndescription: new\n---\n"), 0o644))
	testkit.ForCatalog(t, t.Context(), pk.k, 10*time.Second, func(c skills.Catalog) bool {
		return slices.ContainsFunc(c.Skills, func(s skills.Skill) bool { return s.Name == "gamma" && s.Source == "plugin:kit" })
	})
}

// Protects: the work dir's installed plugins load when the caller says its
// config is trusted, their skills read through the guarded port; a project
// plugins root that is a symlink out of the work dir is refused, named.
func TestAgentPluginProjectRoot(t *testing.T) {
	build := func(work string) (*kernel.Kernel, string) {
		var mu sync.Mutex
		var warns []string
		k, err := assembly.Build(t.Context(), assembly.Config{}, assembly.Options{BaseDir: t.TempDir(), WorkDir: work, NoMCP: true,
			PluginRoots: []agentplugins.Root{}, ProjectPlugins: true,
			OnWarning: func(w contract.Warning) {
				mu.Lock()
				defer mu.Unlock()
				warns = append(warns, w.Path+": "+w.Message)
			}})
		require.NoError(t, err)
		t.Cleanup(func() { k.Close() })
		mu.Lock()
		defer mu.Unlock()
		return k, strings.Join(warns, "\n")
	}
	t.Setenv("HOME", t.TempDir())
	work := t.TempDir()
	installPlugin(t, agentplugins.ProjectRoot(work), "proj", map[string]string{"skills/delta/SKILL.md": "---\nname: delta\ndescription: does delta\n---\n"}, agentplugins.PluginState{Enabled: true}, false)
	k, warns := build(work)
	assert.Empty(t, warns)
	assert.Equal(t, "plugin:proj", skillSources(t, k)["delta"])

	outside, work2 := t.TempDir(), t.TempDir()
	installPlugin(t, outside, "far", map[string]string{"skills/eps/SKILL.md": "---\nname: eps\ndescription: does eps\n---\n"}, agentplugins.PluginState{Enabled: true}, false)
	require.NoError(t, os.MkdirAll(filepath.Join(work2, ".helios"), 0o755))
	require.NoError(t, os.Symlink(outside, agentplugins.ProjectRoot(work2)))
	k, warns = build(work2)
	assert.Contains(t, warns, agentplugins.ProjectRoot(work2)+": the project's plugins root leads out of the work dir")
	assert.NotContains(t, skillSources(t, k), "eps")
}

// Protects: a plugin's go-plugin executable (the manifest's "helios" field)
// is one of its parts: started when approved (its skills join the catalog),
// left off when not.
func TestAgentPluginExecutable(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	bin, err := os.ReadFile(exe)
	require.NoError(t, err)
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "runner", "helios": {"executable": "bin/runner"}}`,
		"bin/runner":                 string(bin),
		"bin/EXTENSION.md":           "---\nname: runner\ndescription: a plugin's executable\n---\n",
		"bin/skills/zeta/SKILL.md":   "---\nname: zeta\ndescription: does zeta\n---\n",
		"skills/theta/SKILL.md":      "---\nname: theta\ndescription: does theta\n---\n",
	}
	root := t.TempDir()
	installPlugin(t, root, "runner", files, agentplugins.PluginState{Enabled: true}, true)
	pk := buildWithPlugins(t, root, true)
	assert.Empty(t, pk.warnings())
	assert.Equal(t, map[string]string{"theta": "plugin:runner", "zeta": "capability:plugin:runner:executable"}, skillSources(t, pk.k))

	off := t.TempDir()
	installPlugin(t, off, "runner", files, agentplugins.PluginState{Enabled: true}, false)
	pk = buildWithPlugins(t, off, true)
	assert.Contains(t, pk.warnings(), "plugin runner: its hooks, MCP servers and executables are off (never approved)")
	assert.Equal(t, map[string]string{"theta": "plugin:runner"}, skillSources(t, pk.k))
}
