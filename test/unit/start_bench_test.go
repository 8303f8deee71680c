package unit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// minimalGo is the baseline of BenchmarkStartProcess: the smallest Go
// program that writes a line, so its time is the Go runtime's start and
// exit and nothing else.
const minimalGo = `package main

import "os"

func main() { os.Stdout.WriteString("minimal\n") }
`

// BenchmarkStartProcess times the commands that do almost nothing —
// `helios --version`, `helios --help` and `helios skills list` on an empty
// root (no config, no skills) — as whole processes, beside a minimal Go
// program built by the benchmark. Each iteration runs the four one after
// the other, so every ratio is taken under the same conditions: CMD-ms is
// the median wall clock, CMD-x-min its ratio to the minimal program's and
// CMD-x-min-cpu the ratio of the median CPU time (user and system), which a
// loaded machine disturbs far less. What is left between the two is the
// package initialisation of everything the binary links and the size of
// the binary (GODEBUG=inittrace=1 helios --version lists the packages).
//
//	go test -run '^$' -bench BenchmarkStartProcess -benchtime 30x ./test/unit/
func BenchmarkStartProcess(b *testing.B) {
	src, bin := b.TempDir(), b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(src, "main.go"), []byte(minimalGo), 0o644))
	require.NoError(b, os.WriteFile(filepath.Join(src, "go.mod"), []byte("module minimal\n\ngo 1.26\n"), 0o644))
	minimal := filepath.Join(bin, "minimal")
	build := exec.Command("go", "build", "-o", minimal, ".")
	build.Dir, build.Stderr = src, os.Stderr
	require.NoError(b, build.Run())

	home, work := b.TempDir(), b.TempDir()
	cmds := []struct {
		name string
		argv []string
		want string // in its stdout
	}{
		{"minimal", []string{minimal}, "minimal"},
		{"version", []string{heliosBin(), "--version"}, "helios version"},
		{"help", []string{heliosBin(), "--help"}, "Usage:"},
		{"skills-list", []string{heliosBin(), "skills", "list"}, "No skills."},
	}
	wall := make([][]time.Duration, len(cmds))
	cpu := make([][]time.Duration, len(cmds))
	var out strings.Builder
	for b.Loop() {
		for i, c := range cmds {
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			cmd.Dir, cmd.Env = work, append(os.Environ(), "HOME="+home)
			out.Reset()
			cmd.Stdout = &out
			t0 := time.Now()
			err := cmd.Run()
			wall[i] = append(wall[i], time.Since(t0))
			if err != nil || !strings.Contains(out.String(), c.want) {
				b.Fatalf("%v: %v, printed %q; want %q in it", c.argv, err, out.String(), c.want)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				cpu[i] = append(cpu[i], time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
			}
		}
	}
	minWall, minCPU := median(wall[0]), median(cpu[0])
	b.ReportMetric(minWall, "minimal-ms")
	for i, c := range cmds[1:] {
		w := median(wall[i+1])
		b.ReportMetric(w, c.name+"-ms")
		b.ReportMetric(w/minWall, c.name+"-x-min")
		if minCPU > 0 {
			b.ReportMetric(median(cpu[i+1])/minCPU, c.name+"-x-min-cpu")
		}
	}
}
