// Command mcptestd is internal/mcptest's server over stdio, for tests that
// configure it as an MCP server of a kernel.
package main

import (
	"os"

	"github.com/helios-agents/helios/internal/mcptest"
)

func main() { os.Exit(mcptest.Main()) }
