package kernel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/stretchr/testify/require"
)

// BenchmarkInjectCatalog is the per-step cost of catalog injection with
// 1,000 visible skills, when nothing changed (the common step): the log
// holds a published catalog followed by a few events, and grows from 1,000
// to 100,000 events. The cost must not grow with the log.
func BenchmarkInjectCatalog(b *testing.B) {
	ctx := context.Background()
	ss := make([]skills.Skill, 1000)
	for i := range ss {
		ss[i] = skills.Skill{Name: fmt.Sprintf("skill-%04d", i), Description: fmt.Sprintf("Does task number %d when the user asks for it; a sentence of ordinary length.", i), Source: "project"}
	}
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", watchedSet(ss))
	cat := reg.Snapshot(ctx)

	for _, n := range []int{1_000, 100_000} {
		l, err := session.NewMemoryStore().Create(ctx)
		require.NoError(b, err)
		batch := make([]session.Event, 0, 1000)
		for i := 0; i < n-10; i++ {
			batch = append(batch, session.Event{Type: session.User, Text: "x"})
			if len(batch) == cap(batch) {
				_, err := l.Append(ctx, batch...)
				require.NoError(b, err)
				batch = batch[:0]
			}
		}
		if _, err := l.Append(ctx, batch...); err != nil {
			b.Fatal(err)
		}
		if inj := kernel.InjectCatalog(l, cat, true); inj.Append {
			l.Append(ctx, inj.Event)
		}
		for range 9 {
			l.Append(ctx, session.Event{Type: session.Assistant, Text: "y"})
		}
		// Baseline: rendering and hashing the catalog at every step, as an
		// injector without the memo would.
		b.Run(fmt.Sprintf("events=%d/baseline-rerender", l.Len()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = catalog.Render(cat.Skills, skills.Budget{}, catalog.MessageFrame()) // text and digest
			}
		})
		b.Run(fmt.Sprintf("events=%d/unchanged", l.Len()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cat := reg.Snapshot(ctx)
				if inj := kernel.InjectCatalog(l, cat, true); inj.Append {
					b.Fatal("unexpected injection")
				}
			}
		})
	}
}

// watchedSet is a provider that watches itself (so the registry caches it).
type watchedSet []skills.Skill

func (w watchedSet) Skills(context.Context) (skills.Set, error) { return skills.Set{Skills: w}, nil }
func (w watchedSet) Watch(func(), <-chan struct{}) error        { return nil }
