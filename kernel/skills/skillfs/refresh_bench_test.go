package skillfs_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/stretchr/testify/require"
)

// benchWatcher is a RootWatcher the benchmark fires by hand.
type benchWatcher struct {
	mu sync.Mutex
	fn func([]string, bool)
}

func (w *benchWatcher) WatchRoots(_ []string, fn func([]string, bool)) (skillfs.RootWatch, error) {
	w.mu.Lock()
	w.fn = fn
	w.mu.Unlock()
	return benchWatch{}, nil
}

func (w *benchWatcher) fire(entries []string, rescan bool) {
	w.mu.Lock()
	fn := w.fn
	w.mu.Unlock()
	fn(entries, rescan)
}

// countFS counts file reads, so the benchmark shows the I/O is O(changed).
type countFS struct {
	skillfs.OSFS
	reads int
}

func (c *countFS) Open(name string) (fs.File, error) {
	c.reads++
	return c.OSFS.Open(name)
}

type benchWatch struct{}

func (benchWatch) Touch()        {}
func (benchWatch) Healthy() bool { return true }
func (benchWatch) Close()        {}

func benchRoot(b *testing.B, n int) string {
	root := b.TempDir()
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("skill-%05d", i))
		require.NoError(b, os.MkdirAll(dir, 0o755))
		md := fmt.Sprintf("---\nname: skill-%05d\ndescription: Does task %d.\n---\nBody of skill %d.\n", i, i, i)
		require.NoError(b, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644))
	}
	return root
}

// BenchmarkSnapshot is the clean path: a watched source whose catalog is
// cached. It must do no I/O and allocate (almost) nothing.
func BenchmarkSnapshot(b *testing.B) {
	ctx := context.Background()
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", &skillfs.DirSource{FS: skillfs.OSFS{}, Source: "project", Roots: []string{benchRoot(b, 1000)}, Watcher: &benchWatcher{}})
	reg.Snapshot(ctx)
	b.ReportAllocs()
	for b.Loop() {
		// A plain check: an assertion's variadic arguments would allocate
		// in the timed loop of a 0-allocation snapshot.
		if n := len(reg.Snapshot(ctx).Skills); n != 1000 {
			b.Fatalf("snapshot has %d skills, want 1000", n)
		}
	}
}

// BenchmarkRefreshAfterOneEdit is the cost of the snapshot after one skill
// changed, in roots of 1,000 and 10,000 skills: it re-reads only the entry
// the watcher named (O(changed)). The baseline is the full rescan a
// watcher-less source (or an overflow) costs (O(total)).
func BenchmarkRefreshAfterOneEdit(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1000, 10000} {
		root := benchRoot(b, n)
		w := &benchWatcher{}
		fsys := &countFS{}
		reg := skills.NewRegistry(skills.RegistryConfig{})
		reg.Register("project", &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root}, Watcher: w})
		reg.Snapshot(ctx)
		run := func(name string, entries []string, rescan bool) {
			b.Run(fmt.Sprintf("skills=%d/%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				fsys.reads = 0
				for b.Loop() {
					w.fire(entries, rescan)
					if got := len(reg.Snapshot(ctx).Skills); got != n {
						b.Fatalf("snapshot has %d skills, want %d", got, n)
					}
				}
				b.ReportMetric(float64(fsys.reads)/float64(b.N), "reads/op")
			})
		}
		run("one-entry", []string{"skill-00042"}, false)
		run("baseline-rescan", nil, true)
	}
}
