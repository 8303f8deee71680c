package watch

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkChangeLatency measures the time from an edit of a SKILL.md to
// the callback that names its bundle, with PollInterval 50ms and Coalesce
// 10ms. Coalesce is part of the latency by design (it is the trailing
// edge of the burst window); in Poll mode half a PollInterval is the
// expected wait.
func BenchmarkChangeLatency(b *testing.B) {
	for _, mode := range []Mode{Native, Poll} {
		b.Run(mode.String(), func(b *testing.B) {
			root := tempDir(b)
			mkBundle(b, root, "a")
			skill := filepath.Join(root, "a", "SKILL.md")

			w, err := New(Config{Mode: mode, PollInterval: 50 * time.Millisecond, Coalesce: 10 * time.Millisecond})
			require.NoError(b, err)
			defer w.Close()
			got := make(chan Change, 16)
			s, err := w.Watch([]string{root}, func(c Change) { got <- c })
			require.NoError(b, err)
			defer s.Close()

			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				writeFile(b, skill, skillText("a", fmt.Sprintf("v%d", i+1)))
				for {
					select {
					case c := <-got:
						if !slices.Contains(c.Entries, "a") {
							continue
						}
					case <-time.After(waitTimeout):
						b.Fatalf("no callback within %s", waitTimeout)
					}
					break
				}
				lat = append(lat, time.Since(start))
				// Let a trailing event of the same write (a second Write
				// event) drain, so the next round starts from silence.
				drainB(got, 30*time.Millisecond)
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Nanoseconds()), "p99-ns")
		})
	}
}

func drainB(ch <-chan Change, quiet time.Duration) {
	for {
		select {
		case <-ch:
		case <-time.After(quiet):
			return
		}
	}
}
