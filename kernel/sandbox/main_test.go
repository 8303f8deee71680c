package sandbox_test

import (
	"os"
	"testing"

	"github.com/helios-agents/helios/kernel/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
