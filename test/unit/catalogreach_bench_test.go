package unit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
)

// reachWatchedKernel assembles a kernel over one user root watched by the
// native watcher with the default settings.
func reachWatchedKernel(tb testing.TB) (*kernel.Kernel, string) {
	tb.Helper()
	dir := tb.TempDir()
	root := filepath.Join(dir, "skills")
	require.NoError(tb, os.MkdirAll(root, 0o755))
	cfg, err := json.Marshal(map[string]any{"skills": map[string]any{"userRoots": []string{root}, "projectRoots": []string{}, "watch": map[string]any{"mode": "native"}}})
	require.NoError(tb, err)
	path := filepath.Join(dir, "cfg.json")
	require.NoError(tb, os.WriteFile(path, cfg, 0o644))
	k, err := assembly.Load(context.Background(), path, assembly.Options{WorkDir: tb.TempDir(), Watch: true})
	require.NoError(tb, err)
	tb.Cleanup(func() { k.Close() })
	k.Catalog(context.Background()) // the first read arms the watches
	return k, root
}

// reachStage writes n skill bundles under a staging folder beside root (on
// the same file system, so a rename moves them in).
func reachStage(tb testing.TB, root string, prefix string, n int) (string, []string) {
	tb.Helper()
	staging := filepath.Join(filepath.Dir(root), "staging-"+prefix)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%04d", prefix, i)
		p := filepath.Join(staging, names[i], "SKILL.md")
		require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(tb, os.WriteFile(p, []byte(skillMD("name: "+names[i]+"\ndescription: Staged skill "+names[i]+".", "body")), 0o644))
	}
	return staging, names
}

// BenchmarkChangeVisible measures, with the native watcher and the default
// coalescing window, the time from renaming a skill folder into a root to
// the kernel's published snapshot holding it (the registry's change signal,
// then a snapshot that lists it), p50 and p99; the goal is p50 ≤ 5 ms on
// a quiet machine. Each rename comes after a quiet window, as a person's
// new skill does. "baseline-inotify" is the floor: the same rename to the
// raw fsnotify event.
func BenchmarkChangeVisible(b *testing.B) {
	report := func(b *testing.B, lat []time.Duration) {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
	}
	b.Run("baseline-inotify", func(b *testing.B) {
		dir := b.TempDir()
		root := filepath.Join(dir, "skills")
		require.NoError(b, os.MkdirAll(root, 0o755))
		staging, names := reachStage(b, root, "raw", b.N)
		w, err := fsnotify.NewWatcher()
		require.NoError(b, err)
		defer w.Close()
		require.NoError(b, w.Add(root))
		lat := make([]time.Duration, 0, b.N)
		for _, name := range names {
			start := time.Now()
			require.NoError(b, os.Rename(filepath.Join(staging, name), filepath.Join(root, name)))
			for ev := range w.Events {
				if filepath.Base(ev.Name) == name {
					break
				}
			}
			lat = append(lat, time.Since(start))
		}
		report(b, lat)
	})
	b.Run("rename-to-snapshot", func(b *testing.B) {
		k, root := reachWatchedKernel(b)
		staging, names := reachStage(b, root, "new", b.N)
		changed := make(chan struct{}, 1)
		defer k.Skills().OnChange(func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})()
		lat := make([]time.Duration, 0, b.N)
		for _, name := range names {
			time.Sleep(60 * time.Millisecond) // a quiet window: the next change is a leading edge
			start := time.Now()
			require.NoError(b, os.Rename(filepath.Join(staging, name), filepath.Join(root, name)))
			for {
				select {
				case <-changed:
				case <-time.After(10 * time.Second):
					b.Fatalf("%s not published within 10s", name)
				}
				if _, ok := k.Catalog(context.Background()).Lookup(name); ok {
					break
				}
			}
			lat = append(lat, time.Since(start))
		}
		report(b, lat)
	})
}
