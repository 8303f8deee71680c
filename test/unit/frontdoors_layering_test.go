package unit_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The plugin SDK's own never-arrows (DESIGN.md C16): plugins/sdk depends on
// kernel leaves only, so a plugin links nothing of the agent itself; and the
// example plugins import public packages only, so they can be copied out of
// the repository (test files may use internal/ helpers: they wrap the
// plugin, they are not the plugin).
func TestLayeringPluginSDKLeavesOnly(t *testing.T) {
	forbidden := []struct {
		pkg   string
		exact bool // the package itself only, not those below it
	}{
		{"kernel", true},
		{"kernel/session", false},
		{"store", false},
		{"kernel/model", false},
		{"provider", false},
		{"kernel/tools", false},
		{"internal", false},
	}
	for _, from := range []string{module + "/plugins/sdk", module + "/plugins/examples/..."} {
		out, err := exec.Command("go", "list", "-deps", from).Output()
		require.NoError(t, err, "go list -deps %s", from)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, module+"/plugins/sdk", "the list of %s holds the SDK, or the check is vacuous", from)
		for _, d := range deps {
			for _, f := range forbidden {
				p := module + "/" + f.pkg
				if d == p || (!f.exact && strings.HasPrefix(d, p+"/")) {
					assert.Fail(t, "forbidden dependency", "%s depends on %s", from, d)
				}
			}
		}
	}
}
