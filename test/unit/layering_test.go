package unit_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/helios-agents/helios"

// The arrows that must never exist (DESIGN.md "Layout"): the kernel knows
// nothing of capabilities, plugins, assembly or the CLI; capabilities know
// nothing of plugins or assembly; and the kernel never climbs to the
// module's top-level internal/ (test helpers and tools for the layers above
// it): what a kernel package shares lives in the kernel, as kernel/bytesize
// does. Modelled on go/build/deps_test.go.
var forbidden = []struct{ from, to string }{
	{"kernel", "caps"},
	{"kernel", "plugins"},
	{"kernel", "assembly"},
	{"kernel", "cmd"},
	{"kernel", "internal"},
	{"caps", "plugins"},
	{"caps", "assembly"},
	{"caps", "cmd"},
	{"assembly", "cmd"},
	{"kernel", "mcpserver"},
	{"caps", "mcpserver"},
	{"mcpserver", "cmd"},
	// The installer is the CLI's: it reuses kernel leaves (skill parsing,
	// digests) and nothing of the kernel needs git.
	{"kernel", "skillinstall"},
	{"caps", "skillinstall"},
	{"skillinstall", "cmd"},
	{"skillinstall", "assembly"},
	{"skillinstall", "plugins"},
	{"skillinstall", "mcpserver"},
	// kernel/skills is split by job: the contract, registry and tools
	// (kernel/skills) read no file and render no catalog; reading skills
	// from files (skillfs) and rendering the model's view (catalog) sit
	// beside it, and neither needs the other. Each "from" covers the
	// packages below it, so the catalog may not read files and skillfs may
	// not render.
	{"kernel/skills", "kernel/skills/skillfs"},
	{"kernel/skills", "kernel/skills/catalog"},
}

func TestLayeringNeverArrows(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Deps", module+"/...").Output()
	require.NoError(t, err, "go list")
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Deps       []string
		}
		require.NoError(t, dec.Decode(&p))
		if !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		for _, f := range forbidden {
			// A package inside the target's own tree (a kit beside it, such
			// as kernel/skills/skillfs/skillfstest) may depend on it.
			if !under(p.ImportPath, f.from) || under(p.ImportPath, f.to) {
				continue
			}
			checked++
			for _, d := range p.Deps {
				assert.False(t, under(d, f.to), "%s imports %s: %s/... must never depend on %s/...", p.ImportPath, d, f.from, f.to)
			}
		}
	}
	require.NotZero(t, checked, "no package of the module was checked; the test would pass vacuously")
}

// under reports whether pkg is the module's dir or below it.
func under(pkg, dir string) bool {
	p := module + "/" + dir
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}
