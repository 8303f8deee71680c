package skills_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/helios-agents/helios/internal/skillsfloor"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/stretchr/testify/require"
)

// BenchmarkDiscover measures a cold discovery of a root of N bundle skills:
// every iteration builds a fresh DirSource (no watcher, nothing carried over),
// so each one lists the root, finds and reads every SKILL.md and parses its
// frontmatter. The OS page cache is warm after the first pass; "cold" means
// no caching inside the process.
//
// floor/N is the I/O floor (internal/skillsfloor); helios/N reports its ratio to it
// as x-floor when both ran.
//
// naive/N is the baseline a first implementation tends to write: walk the
// whole tree, read every SKILL.md found at any depth, split the frontmatter by
// hand and unmarshal it into a map. It checks nothing (no symlink, FIFO,
// binary or BOM handling, no warnings) and descends into every bundle's
// scripts/, which the real scan never lists.
//
//	go test -run '^$' -bench BenchmarkDiscover -benchmem -benchtime 3x ./kernel/skills/
func BenchmarkDiscover(b *testing.B) {
	base := b.TempDir()
	sizes := []int{1_000, 10_000}
	type fixture struct {
		once sync.Once
		root string
		err  error
	}
	fixtures := map[int]*fixture{}
	for _, n := range sizes {
		fixtures[n] = &fixture{}
	}
	// Generated once per size, on first use, shared by both sub-benchmarks
	// and every round of each.
	root := func(b *testing.B, n int) string {
		b.Helper()
		f := fixtures[n]
		f.once.Do(func() {
			f.root = filepath.Join(base, fmt.Sprintf("root-%d", n))
			f.err = skillsfloor.Generate(f.root, n)
		})
		require.NoError(b, f.err, "generate %d skills", n)
		return f.root
	}

	ctx := context.Background()
	floor := map[int]float64{} // ns/op of floor/N, when it ran
	for _, n := range sizes {
		b.Run(fmt.Sprintf("floor/%d", n), func(b *testing.B) {
			r := root(b, n)
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				iters++
				if got, err := skillsfloor.Read(r); err != nil || got != n {
					b.Fatalf("floor: %d files, %v; want %d", got, err, n)
				}
			}
			floor[n] = float64(b.Elapsed().Nanoseconds()) / float64(iters)
		})
		b.Run(fmt.Sprintf("helios/%d", n), func(b *testing.B) {
			r := root(b, n)
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				iters++
				src := &skills.DirSource{FS: skills.OSFS{}, Source: skills.SourceUser, Roots: []string{r}}
				if set, err := src.Skills(ctx); err != nil || len(set.Skills) != n || len(set.Warnings) != 0 {
					b.Fatalf("Skills: %d skills, %d warnings, %v; want %d, 0", len(set.Skills), len(set.Warnings), err, n)
				}
			}
			if f := floor[n]; f > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters)/f, "x-floor")
			}
		})
		// The same two, alternating within each iteration: their ratio
		// is taken under the same conditions even when the machine's load
		// drifts between sub-benchmarks.
		b.Run(fmt.Sprintf("interleaved/%d", n), func(b *testing.B) {
			r := root(b, n)
			var fl, he []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if got, err := skillsfloor.Read(r); err != nil || got != n {
					b.Fatalf("floor: %d files, %v; want %d", got, err, n)
				}
				t1 := time.Now()
				src := &skills.DirSource{FS: skills.OSFS{}, Source: skills.SourceUser, Roots: []string{r}}
				if set, err := src.Skills(ctx); err != nil || len(set.Skills) != n || len(set.Warnings) != 0 {
					b.Fatalf("Skills: %d skills, %d warnings, %v; want %d, 0", len(set.Skills), len(set.Warnings), err, n)
				}
				fl, he = append(fl, t1.Sub(t0)), append(he, time.Since(t1))
			}
			slices.Sort(fl)
			slices.Sort(he)
			b.ReportMetric(float64(he[len(he)/2])/float64(fl[len(fl)/2]), "x-floor")
		})
		b.Run(fmt.Sprintf("naive/%d", n), func(b *testing.B) {
			r := root(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if got, err := skBenchNaive(r); err != nil || len(got) != n {
					b.Fatalf("naive: %d skills, %v; want %d", len(got), err, n)
				}
			}
		})
	}
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
