package main

import (
	"os"
	"testing"

	"github.com/helios-agents/helios/kernel/sandbox"
)

// TestMain makes the test binary the confined commands' entry point, as
// main does for helios: the tests run commands that assemble a kernel.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
