package skillfs_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/helios-agents/helios/internal/skillsfloor"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/stretchr/testify/require"
)

// BenchmarkDiscover measures a cold discovery of a root of N bundle skills,
// for each corpus shape (internal/skillsfloor.Corpora): synthetic (every
// skill alike, one-line plain values) and real (drawn from the measured
// shape of published skills: quoted, folded and literal descriptions,
// metadata maps, lists, unicode, names with capitals and spaces). Every
// iteration builds a fresh DirSource (no watcher, nothing carried over), so
// each one lists the root, finds and reads every SKILL.md and parses its
// frontmatter. The OS page cache is warm after the first pass; "cold" means
// no caching inside the process.
//
// SHAPE/floor/N is the I/O floor (internal/skillsfloor); SHAPE/helios/N
// reports its ratio to it as x-floor when both ran. SHAPE/interleaved/N
// runs the two alternately within each iteration and reports the ratio of
// their medians (x-floor) and of the CPU time each took (x-floor-cpu, the
// figure that holds on a loaded machine).
//
// SHAPE/naive/N is the baseline a first implementation tends to write: walk
// the whole tree, read every SKILL.md found at any depth, split the
// frontmatter by hand and unmarshal it into a map. It checks nothing (no
// symlink, FIFO, binary or BOM handling, no warnings) and descends into
// every bundle's scripts/, which the real scan never lists.
//
//	go test -run '^$' -bench BenchmarkDiscover -benchmem -benchtime 3x ./kernel/skills/
func BenchmarkDiscover(b *testing.B) {
	base := b.TempDir()
	sizes := []int{1_000, 10_000}
	ctx := context.Background()
	for _, corpus := range skillsfloor.Corpora {
		for _, n := range sizes {
			var once sync.Once
			var root string
			var genErr error
			// Generated once per shape and size, on first use, shared by
			// the sub-benchmarks and every round of each.
			fixture := func(b *testing.B) string {
				b.Helper()
				once.Do(func() {
					root = filepath.Join(base, fmt.Sprintf("%s-%d", corpus.Name, n))
					genErr = corpus.Generate(root, n)
				})
				require.NoError(b, genErr, "generate %d %s skills", n, corpus.Name)
				return root
			}
			// The warnings of the first discovery; every later one must
			// give the same (the real shape has warnings, as published
			// skills do).
			warnings := -1
			discover := func(b *testing.B, r string) {
				src := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceUser, Roots: []string{r}}
				set, err := src.Skills(ctx)
				if warnings < 0 {
					warnings = len(set.Warnings)
				}
				if err != nil || len(set.Skills) != n || len(set.Warnings) != warnings {
					b.Fatalf("Skills: %d skills, %d warnings, %v; want %d, %d", len(set.Skills), len(set.Warnings), err, n, warnings)
				}
			}
			floor := func(b *testing.B, r string) {
				if got, err := skillsfloor.Read(r); err != nil || got != n {
					b.Fatalf("floor: %d files, %v; want %d", got, err, n)
				}
			}
			var floorNs float64 // ns/op of floor, when it ran
			b.Run(fmt.Sprintf("%s/floor/%d", corpus.Name, n), func(b *testing.B) {
				r := fixture(b)
				b.ReportAllocs()
				iters := 0
				for b.Loop() {
					iters++
					floor(b, r)
				}
				floorNs = float64(b.Elapsed().Nanoseconds()) / float64(iters)
			})
			b.Run(fmt.Sprintf("%s/helios/%d", corpus.Name, n), func(b *testing.B) {
				r := fixture(b)
				b.ReportAllocs()
				iters := 0
				for b.Loop() {
					iters++
					discover(b, r)
				}
				if floorNs > 0 {
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters)/floorNs, "x-floor")
				}
			})
			// The same two, alternating within each iteration: their ratio
			// is taken under the same conditions even when the machine's
			// load drifts between sub-benchmarks.
			b.Run(fmt.Sprintf("%s/interleaved/%d", corpus.Name, n), func(b *testing.B) {
				r := fixture(b)
				var fl, he, flCPU, heCPU []time.Duration
				for b.Loop() {
					t0, c0 := time.Now(), processCPU()
					floor(b, r)
					t1, c1 := time.Now(), processCPU()
					discover(b, r)
					fl, he = append(fl, t1.Sub(t0)), append(he, time.Since(t1))
					flCPU, heCPU = append(flCPU, c1-c0), append(heCPU, processCPU()-c1)
				}
				b.ReportMetric(medianRatio(he, fl), "x-floor")
				b.ReportMetric(medianRatio(heCPU, flCPU), "x-floor-cpu")
			})
			b.Run(fmt.Sprintf("%s/naive/%d", corpus.Name, n), func(b *testing.B) {
				r := fixture(b)
				b.ReportAllocs()
				for b.Loop() {
					// It misses what it does not handle (a CRLF file of
					// the real shape), but not much.
					if got, err := skBenchNaive(r); err != nil || len(got) < n*98/100 {
						b.Fatalf("naive: %d skills, %v; want about %d", len(got), err, n)
					}
				}
			})
		}
	}
}

// medianRatio is the median of a over the median of b.
func medianRatio(a, b []time.Duration) float64 {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return float64(a[len(a)/2]) / float64(max(1, b[len(b)/2]))
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// skBenchSkill is what the naive baseline extracts.
type skBenchSkill struct {
	name, description, baseDir string
}

// skBenchNaive walks root, reads every SKILL.md, splits its frontmatter by
// hand and unmarshals it into a map.
func skBenchNaive(root string) ([]skBenchSkill, error) {
	var out []skBenchSkill
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != "SKILL.md" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		if !strings.HasPrefix(text, "---\n") {
			return nil
		}
		fm, _, ok := strings.Cut(text[len("---\n"):], "\n---\n")
		if !ok {
			return nil
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(fm), &m); err != nil {
			return nil
		}
		name, _ := m["name"].(string)
		desc, _ := m["description"].(string)
		if desc == "" {
			return nil
		}
		out = append(out, skBenchSkill{name, desc, filepath.Dir(path)})
		return nil
	})
	return out, err
}
