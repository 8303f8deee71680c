//go:build unix

package catalog_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// cpuTime is the process's user and system CPU time: on a shared machine
// it measures the work better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBudgetCatalog budgets 10,000 skills (about 1.7 MB of catalog
// before the budget) under the default budget, 2% of 128,000 tokens; the
// target is 5 ms. Its baseline sibling renders the same skills without a
// budget (the full catalog); "memoized" is the per-step cost once a
// registry catalog has its view. cpu-ms/op is the CPU time per operation.
func BenchmarkBudgetCatalog(b *testing.B) {
	ss := make([]skills.Skill, 10_000)
	sources := []string{skills.SourceProject, skills.SourceUser, skills.CapabilitySource("x")}
	for i := range ss {
		ss[i] = skills.Skill{
			Name:        fmt.Sprintf("skill-%05d", (i*7919)%len(ss)),
			Source:      sources[i%3],
			Description: fmt.Sprintf("Does task number %d when the user asks for it: reads the files, runs the checks and reports what it found, in a sentence or two of ordinary length & detail.", i),
		}
	}
	budget := skills.Budget{Chars: skills.PercentBudget(skills.DefaultBudgetPercent, skills.DefaultContextWindow), ContextWindow: skills.DefaultContextWindow, Pinned: []string{"skill-00042"}}
	frame := catalog.MessageFrame()
	var base float64
	b.Run("baseline-unbudgeted", func(b *testing.B) {
		b.ReportAllocs()
		start := cpuTime()
		for b.Loop() {
			_ = catalog.Render(ss, skills.Budget{}, frame)
		}
		base = float64(cpuTime()-start) / float64(b.N)
		b.ReportMetric(base/1e6, "cpu-ms/op")
	})
	b.Run("budgeted", func(b *testing.B) {
		b.ReportAllocs()
		start := cpuTime()
		for b.Loop() {
			if v := catalog.Render(ss, budget, frame); v.Summary.Used > budget.Chars {
				b.Fatal("over budget")
			}
		}
		ns := float64(cpuTime()-start) / float64(b.N)
		b.ReportMetric(ns/1e6, "cpu-ms/op")
		if base > 0 {
			b.ReportMetric(ns/base, "x-baseline")
		}
	})
	b.Run("memoized", func(b *testing.B) {
		reg := skills.NewRegistry(skills.RegistryConfig{})
		reg.Register("project", watchedSet(ss))
		cat := reg.Snapshot(b.Context())
		catalog.ViewOf(cat, budget, skills.ModeCatalog)
		b.ReportAllocs()
		for b.Loop() {
			_ = catalog.ViewOf(reg.Snapshot(b.Context()), budget, skills.ModeCatalog)
		}
	})
}

// watchedSet is a provider that watches itself (so the registry caches it).
type watchedSet []skills.Skill

func (w watchedSet) Skills(context.Context) (skills.Set, error) { return skills.Set{Skills: w}, nil }
func (w watchedSet) Watch(func(), <-chan struct{}) error        { return nil }
