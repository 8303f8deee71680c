package commands_test

import (
	"os"
	"testing"

	"github.com/helios-agents/helios/sandbox"
)

// TestMain lets the test binary act as the sandbox's re-executed child, so
// !`cmd` in these tests really runs confined.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
