package tools_test

import (
	"os"
	"testing"

	"github.com/helios-agents/helios/sandbox"
)

// TestMain lets the test binary act as the sandbox's re-executed child, so
// Bash calls of these tests really run confined.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
