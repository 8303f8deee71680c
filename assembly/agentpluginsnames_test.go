package assembly_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/agentplugins"
	"github.com/helios-agents/helios/caps/mcpclient"
	"github.com/helios-agents/helios/kernel/contract"
)

// Protects: a plugin's MCP server whose plugin_<plugin>_<server> name is
// over the 32 characters a configured server may have (github/awesome-copilot's
// plugin_awesome-copilot_awesome-copilot, 38) loads and offers its tools;
// one over mcpclient.MaxServerName is left out with a warning naming it. A
// key starting with "_" is a comment; another unknown key costs its server.
func TestAgentPluginLongServerNameLoads(t *testing.T) {
	root := t.TempDir()
	files := kitPlugin(t)
	files[".claude-plugin/plugin.json"] = `{"name": "awesome-copilot"}`
	files[".mcp.json"] = `{"mcpServers": {"awesome-copilot": {"type": "stdio", "command": "${PLUGIN_ROOT}/bin/serve", "env": {"PLUGIN_TEST_MCP_STDIO": "1"},
		"_docs": "a comment, as trailofbits' zeroize-audit writes one"},
		"odd": {"command": "${PLUGIN_ROOT}/bin/serve", "colour": "red"},
		"` + strings.Repeat("s", 40) + `": {"command": "${PLUGIN_ROOT}/bin/serve", "env": {"PLUGIN_TEST_MCP_STDIO": "1"}}}}`
	installPlugin(t, root, "awesome-copilot", files, agentplugins.PluginState{Enabled: true}, true)
	pk := buildWithPlugins(t, root, false)

	name := "plugin_awesome-copilot_awesome-copilot"
	servers := mcpServers(t, pk.k)
	require.Contains(t, servers, name)
	srv := servers[name]
	assert.Equal(t, mcpclient.StateReady, srv.Status().State, "%v", srv.Status().Err)
	tools, err := srv.Tools(t.Context())
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(tools, func(tl contract.Tool) bool { return strings.HasPrefix(tl.Name, "mcp__"+name+"__") }))

	tooLong := agentplugins.ServerName("awesome-copilot", strings.Repeat("s", 40))
	assert.NotContains(t, servers, tooLong)
	assert.Contains(t, pk.warnings(), "plugin awesome-copilot: mcp server "+tooLong+": off: the name is not 1 to 56 letters")
	assert.NotContains(t, pk.warnings(), name+":", "a key starting with _ is a comment")
	assert.Contains(t, pk.warnings(), `plugin awesome-copilot: mcp server plugin_awesome-copilot_odd: off: json: unknown field "colour"`)
	assert.NotContains(t, servers, "plugin_awesome-copilot_odd", "any other unknown key still costs the server")
}
