package assembly_test

import (
	"os"
	"testing"

	"github.com/helios-agents/helios/kernel/sandbox"
)

// TestMain makes the test binary the confined commands' entry point: the
// builtin Bash of an assembled kernel runs in a re-executed copy of it.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
