package unit_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

// BenchmarkSkillsListProcess times `helios skills list --json` over 10,000
// user-level bundle skills as a whole process (start, discovery, budget, the
// JSON of every entry, exit) beside the I/O floor as a whole process
// (internal/skillsfloor/cmd/skillsfloor over the same root). Each iteration
// runs both, one after the other, so that their ratio is taken under the
// same conditions: floor-ms and helios-ms are medians, x-floor their ratio
// (issue 11: at most 2.5).
//
//	go test -run '^$' -bench BenchmarkSkillsListProcess -benchtime 20x ./test/unit/
func BenchmarkSkillsListProcess(b *testing.B) {
	const n = 10_000
	home, work, bin := b.TempDir(), b.TempDir(), b.TempDir()
	root := filepath.Join(home, ".helios", "skills")
	require.NoError(b, skillsfloor.Generate(root, n))
	floorBin := filepath.Join(bin, "skillsfloor")
	build := exec.Command("go", "build", "-o", floorBin, "../../internal/skillsfloor/cmd/skillsfloor")
	build.Stderr = os.Stderr
	require.NoError(b, build.Run())

	var out bytes.Buffer
	run := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = work, append(os.Environ(), "HOME="+home)
		out.Reset()
		cmd.Stdout = &out
		t0 := time.Now()
		err := cmd.Run()
		d := time.Since(t0)
		if err != nil {
			b.Fatalf("%s %v: %v", name, args, err)
		}
		return d
	}
	b.Run("interleaved", func(b *testing.B) {
		var floor, helios []time.Duration
		for b.Loop() {
			floor = append(floor, run(floorBin, root))
			if got := strings.TrimSpace(out.String()); got != strconv.Itoa(n) {
				b.Fatalf("the floor read %s files, want %d", got, n)
			}
			helios = append(helios, run(heliosBin, "skills", "list", "--json"))
			if c := bytes.Count(out.Bytes(), []byte(`"baseDir"`)); c != n {
				b.Fatalf("skills list --json listed %d skills, want %d", c, n)
			}
		}
		f, h := median(floor), median(helios)
		b.ReportMetric(f, "floor-ms")
		b.ReportMetric(h, "helios-ms")
		b.ReportMetric(h/f, "x-floor")
	})
}

// median returns the median of ds in milliseconds.
func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}
