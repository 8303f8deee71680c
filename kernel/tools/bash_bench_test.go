package tools_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

// BenchmarkBash measures one Bash call of `true`: unconfined (the
// baseline), then confined in workspace-write mode, which adds re-executing
// the binary in a new session with new user, mount, PID, IPC and net
// namespaces (the read-only root, a fresh /proc, a minimal /dev), the
// protected paths' read-only mounts, Landlock, the capability drop and
// seccomp; then read-only mode, the same without protected paths. The
// confined sub-benchmarks
// report their cost as a multiple of the baseline (x-unconfined), and
// each reports the CPU time (user and system, of the benchmark and the
// processes it reaped) a call costs (cpu-ms/op) and, confined, its multiple
// of the baseline's (cpu-x-unconfined): on a loaded machine the wall-clock
// ratio swings with the load, the CPU one far less.
func BenchmarkBash(b *testing.B) {
	fsys, err := workfs.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	args := json.RawMessage(`{"command":"true"}`)
	var baseline, baselineCPU time.Duration
	for _, bc := range []struct {
		name string
		mode sandbox.Mode
	}{{"unconfined", sandbox.Off}, {"confined", sandbox.WorkspaceWrite}, {"confined-read-only", sandbox.ReadOnly}} {
		b.Run(bc.name, func(b *testing.B) {
			set, err := tools.New(tools.Config{FS: fsys, Sandbox: sandbox.Config{Mode: bc.mode}})
			if err != nil {
				b.Fatal(err)
			}
			defer set.Close()
			bash := set.Tools()[0]
			ctx := context.Background()
			began, cpuBefore := time.Now(), cpuTime(b)
			for b.Loop() {
				res, err := bash.Call(ctx, args)
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
			per := time.Since(began) / time.Duration(b.N)
			cpu := (cpuTime(b) - cpuBefore) / time.Duration(b.N)
			if cpu > 0 {
				b.ReportMetric(float64(cpu)/float64(time.Millisecond), "cpu-ms/op")
			}
			if bc.mode == sandbox.Off {
				baseline, baselineCPU = per, cpu
			} else if baseline > 0 {
				b.ReportMetric(float64(per)/float64(baseline), "x-unconfined")
				if baselineCPU > 0 {
					b.ReportMetric(float64(cpu)/float64(baselineCPU), "cpu-x-unconfined")
				}
			}
		})
	}
}
