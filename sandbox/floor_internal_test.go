package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkConfineFloor takes a confined command apart, in one run, to say
// where its time goes and what no design keeping the command's own world
// can save: starting /bin/true plainly (the baseline, as the unconfined
// Bash tool does), then with only the namespaces a confined command gets
// (the same clone flags and id maps, no re-execution, no confinement
// step), then confined whole (the re-executed entry point builds the
// world, applies Landlock, drops the capabilities and loads seccomp). Each
// confined sub-benchmark reports its multiple of the baseline
// (x-spawn).
//
// The heap-256MB variants hold 256 MiB of live heap while they run. A
// clone with a new user namespace cannot be a vfork (the parent writes the
// child's id maps while the child waits), so the kernel copies Helios's
// page tables for every command and the parent then takes a copy-on-write
// fault for each heap page it writes: the cost grows with Helios's memory,
// which a small benchmark process hides.
func BenchmarkConfineFloor(b *testing.B) {
	if err := checkMain(); err != nil {
		b.Skip(err)
	}
	s, err := New(Config{Mode: WorkspaceWrite})
	if err != nil {
		b.Skip(err)
	}
	defer s.Close()
	work, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	run := map[string]func() error{
		"spawn": func() error { return exec.Command("/bin/true").Run() },
		"namespaces": func() error {
			c := &Cmd{Cmd: exec.Command("/bin/true"), namespaces: true, noNetwork: true}
			c.prepare()
			return c.Cmd.Run()
		},
		"confined": func() error {
			c, _, err := s.Command("bench", work, "/bin/true")
			if err != nil {
				return err
			}
			return c.Run()
		},
	}
	var baseline time.Duration
	var heap [][]byte
	for _, name := range []string{"spawn", "namespaces", "confined", "namespaces/heap-256MB", "confined/heap-256MB"} {
		kind := filepath.Dir(name)
		if kind == "." {
			kind = name
		} else if heap == nil {
			for range 256 {
				page := make([]byte, 1<<20)
				for i := range page {
					page[i] = 1
				}
				heap = append(heap, page)
			}
		}
		b.Run(name, func(b *testing.B) {
			began := time.Now()
			for b.Loop() {
				if err := run[kind](); err != nil {
					b.Fatal(err)
				}
			}
			per := time.Since(began) / time.Duration(b.N)
			if kind == "spawn" {
				baseline = per
			} else if baseline > 0 {
				b.ReportMetric(float64(per)/float64(baseline), "x-spawn")
			}
		})
	}
	if len(heap) > 0 && heap[0][0] != 1 {
		os.Exit(1) // keeps the heap live to the end
	}
}
