package unit_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The adapters and mechanisms outside kernel/ (DESIGN.md "Layout"). The
// kernel imports its ports, never an adapter: the model providers, the
// PostgreSQL store and the telemetry setup are wired to their ports by the
// assembly. The kernel may use a mechanism (the builtin tools run through
// sandbox and workfs, skillfs reads through frontmatter and watch), so a
// mechanism never depends on the kernel's root package. Every one of them
// keeps the kernel's own never-arrows (forbidden, from "kernel").
var outsideKernel = []struct {
	dir     string
	adapter bool
}{
	{"provider", true},
	{"store", true},
	{"otelsetup", true},
	{"sandbox", false},
	{"workfs", false},
	{"watch", false},
	{"frontmatter", false},
	{"runpin", false},
}

func TestLayeringOutsideKernel(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Deps", module+"/...").Output()
	require.NoError(t, err, "go list")
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := map[string]bool{}
	for dec.More() {
		var p struct {
			ImportPath string
			Deps       []string
		}
		require.NoError(t, dec.Decode(&p))
		for _, o := range outsideKernel {
			if under(p.ImportPath, "kernel") && o.adapter {
				for _, d := range p.Deps {
					assert.False(t, under(d, o.dir), "%s imports %s: the kernel never depends on an adapter (%s/...)", p.ImportPath, d, o.dir)
				}
			}
			if !under(p.ImportPath, o.dir) {
				continue
			}
			seen[o.dir] = true
			for _, f := range forbidden {
				if f.from != "kernel" {
					continue
				}
				for _, d := range p.Deps {
					assert.False(t, under(d, f.to), "%s imports %s: %s/... must never depend on %s/...", p.ImportPath, d, o.dir, f.to)
				}
			}
			if !o.adapter {
				assert.NotContains(t, p.Deps, module+"/kernel", "%s is a mechanism the kernel uses: it never depends on the kernel's root package", p.ImportPath)
			}
		}
	}
	for _, o := range outsideKernel {
		assert.True(t, seen[o.dir], "no package under %s/ was checked; the test would pass vacuously", o.dir)
	}
}
