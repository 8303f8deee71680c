//go:build live

package live

import (
	"os"
	"testing"

	"github.com/helios-agents/helios/sandbox"
)

// TestMain lets the test binary run the model's commands confined.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
