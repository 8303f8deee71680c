package assembly_test

import (
	"os"
	"testing"

	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/kernel/sandbox"
)

// TestMain makes the test binary the confined commands' entry point: the
// builtin Bash of an assembled kernel runs in a re-executed copy of it.
// Run with MCPTEST_SERVE=stdio, it is a stdio MCP server (internal/mcptest).
func TestMain(m *testing.M) {
	sandbox.Main()
	if os.Getenv("MCPTEST_SERVE") == "stdio" {
		os.Exit(mcptest.Main())
	}
	os.Exit(m.Run())
}
