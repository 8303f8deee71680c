package assembly_test

import (
	"context"
	"os"
	"testing"

	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/sdk"
	"github.com/helios-agents/helios/sandbox"
)

// TestMain makes the test binary the confined commands' entry point: the
// builtin Bash of an assembled kernel runs in a re-executed copy of it.
// Run with MCPTEST_SERVE=stdio, it is a stdio MCP server (internal/mcptest).
// With PLUGIN_TEST_MCP_STDIO set it is a real MCP server over stdio instead
// (an agent plugin's server in TestAgentPluginPartsLoad).
func TestMain(m *testing.M) {
	// Started by the kernel as an agent plugin's executable
	// (TestAgentPluginExecutable): a go-plugin serving the folder it sits in.
	if os.Getenv(plugins.Handshake.MagicCookieKey) != "" {
		sdk.Serve(struct{}{}, sdk.Config{})
		os.Exit(0)
	}
	if os.Getenv("PLUGIN_TEST_MCP_STDIO") != "" {
		if err := mcptest.New(false).ServeStdio(context.Background()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	sandbox.Main()
	if os.Getenv("MCPTEST_SERVE") == "stdio" {
		os.Exit(mcptest.Main())
	}
	os.Exit(m.Run())
}
