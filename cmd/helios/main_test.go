package main

import (
	"os"
	"testing"

	"github.com/helios-agents/helios/sandbox"
)

// asHeliosEnv makes the test binary helios itself: the tests that need the
// process (its exit on a closed pipe) run it so, with no separate build.
const asHeliosEnv = "HELIOS_TEST_AS_HELIOS"

// TestMain makes the test binary the confined commands' entry point, as
// main does for helios: the tests run commands that assemble a kernel.
// With asHeliosEnv set it is helios.
func TestMain(m *testing.M) {
	sandbox.Main()
	if os.Getenv(asHeliosEnv) != "" {
		main() // exits
	}
	os.Exit(m.Run())
}
