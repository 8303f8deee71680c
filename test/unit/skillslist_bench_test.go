package unit_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/skillsfloor"
	"github.com/helios-agents/helios/provider/modeltest"
)

// BenchmarkSkillsListProcess times `helios skills list --json` over 10,000
// user-level bundle skills as a whole process (start, discovery, budget, the
// JSON of every entry, exit) beside the I/O floor as a whole process
// (internal/skillsfloor/cmd/skillsfloor over the same root), for each corpus
// shape (internal/skillsfloor.Corpora: synthetic and real). Each iteration
// runs both, one after the other, so that their ratio is taken under the
// same conditions: floor-ms and helios-ms are medians of the wall clock,
// x-floor their ratio, and x-floor-cpu the ratio of the median CPU time
// (user and system) of the two processes, which a loaded machine disturbs
// far less than the wall clock.
//
// Each iteration also runs a one-step `helios run` over the same skills to
// the model's answer (a scripted Chat Completions server started by the
// benchmark answers at once): run-ms is its median wall clock and x-list
// its ratio to helios-ms, the cost of the first model request over the
// discovery it starts with (x-list-cpu: by CPU time).
//
//	go test -run '^$' -bench BenchmarkSkillsListProcess -benchtime 20x ./test/unit/
func BenchmarkSkillsListProcess(b *testing.B) {
	const n = 10_000
	heliosPath := heliosBin() // built before any timing
	bin := b.TempDir()
	floorBin := filepath.Join(bin, "skillsfloor")
	build := exec.Command("go", "build", "-o", floorBin, "../../internal/skillsfloor/cmd/skillsfloor")
	build.Stderr = os.Stderr
	require.NoError(b, build.Run())

	for _, corpus := range skillsfloor.Corpora {
		b.Run(corpus.Name+"/interleaved", func(b *testing.B) {
			home, work := b.TempDir(), b.TempDir()
			root := filepath.Join(home, ".helios", "skills")
			require.NoError(b, corpus.Generate(root, n))
			config := filepath.Join(b.TempDir(), "helios.config.json")
			var out bytes.Buffer
			run := func(name string, args ...string) (wall, cpu time.Duration) {
				cmd := exec.Command(name, args...)
				cmd.Dir, cmd.Env = work, append(os.Environ(), "HOME="+home)
				out.Reset()
				cmd.Stdout = &out
				t0 := time.Now()
				err := cmd.Run()
				wall = time.Since(t0)
				if err != nil {
					b.Fatalf("%s %v: %v", name, args, err)
				}
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
				}
				return wall, cpu
			}
			var floor, helios, floorCPU, heliosCPU, runs, runsCPU []time.Duration
			for b.Loop() {
				w, c := run(floorBin, root)
				floor, floorCPU = append(floor, w), append(floorCPU, c)
				if got := strings.TrimSpace(out.String()); got != strconv.Itoa(n) {
					b.Fatalf("the floor read %s files, want %d", got, n)
				}
				w, c = run(heliosPath, "skills", "list", "--json")
				helios, heliosCPU = append(helios, w), append(heliosCPU, c)
				if c := bytes.Count(out.Bytes(), []byte(`"baseDir"`)); c != n {
					b.Fatalf("skills list --json listed %d skills, want %d", c, n)
				}
				srv := modeltest.NewServer(b, modeltest.Say("Ready."))
				require.NoError(b, os.WriteFile(config, []byte(`{"model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""}}`), 0o600))
				w, c = run(heliosPath, "--config", config, "run", "Which skills do you have?")
				runs, runsCPU = append(runs, w), append(runsCPU, c)
				srv.Close()
				if !strings.Contains(out.String(), "Ready.") {
					b.Fatalf("helios run printed %q, want the model's answer", out.String())
				}
			}
			f, h := median(floor), median(helios)
			b.ReportMetric(f, "floor-ms")
			b.ReportMetric(h, "helios-ms")
			b.ReportMetric(h/f, "x-floor")
			b.ReportMetric(median(heliosCPU)/median(floorCPU), "x-floor-cpu")
			r := median(runs)
			b.ReportMetric(r, "run-ms")
			b.ReportMetric(r/h, "x-list")
			b.ReportMetric(median(runsCPU)/median(heliosCPU), "x-list-cpu")
		})
	}
}

// median returns the median of ds in milliseconds.
func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}
