package session_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/require"
)

func benchStore(b *testing.B, name string) session.Store {
	if name == "jsonl" {
		return newJSONL(b, session.JSONLConfig{Dir: b.TempDir()})
	}
	return session.NewMemoryStore()
}

// Append of one event: for JSONL, one write and one fsync.
func BenchmarkAppend(b *testing.B) {
	for _, name := range []string{"memory", "jsonl"} {
		b.Run(name, func(b *testing.B) {
			l := mustCreate(b, benchStore(b, name))
			ev := session.Event{Type: session.ToolResult, ToolUseID: "call_1", Text: "a tool result of a modest size, as most are"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_, err := l.Append(ctx, ev)
				require.NoError(b, err)
			}
		})
	}
}

// Backward over a long log, stopping at the 10th event: the cost must not
// depend on the log's length (no copy).
func BenchmarkBackward10(b *testing.B) {
	for _, name := range []string{"memory", "jsonl"} {
		for _, n := range []int{1_000, 100_000} {
			b.Run(fmt.Sprintf("%s/events=%d", name, n), func(b *testing.B) {
				l := longLog(b, benchStore(b, name), n)
				b.ReportAllocs()
				for b.Loop() {
					k := 0
					for e := range l.Backward() {
						if k++; k == 10 {
							if e.Seq != int64(n-9) { // plain: no allocation in the timed loop
								b.Fatalf("10th from the end: Seq %d, want %d", e.Seq, n-9)
							}
							break
						}
					}
				}
			})
		}
	}
}

// Visible of an early event in a long log with a few compactions: the
// catalog injector's question.
func BenchmarkVisible(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			l := longLog(b, session.NewMemoryStore(), n)
			b.ReportAllocs()
			for b.Loop() {
				if !session.Visible(l, 2) { // plain: no allocation in the timed loop
					b.Fatal("event 2 hidden")
				}
			}
		})
	}
}

func BenchmarkModelView(b *testing.B) {
	l := longLog(b, session.NewMemoryStore(), 100_000)
	b.ReportAllocs()
	for b.Loop() {
		session.ModelView(l)
	}
}

// longLog appends n events in batches, with a compaction every 10,000
// events that leaves the first three visible.
func longLog(b *testing.B, s session.Store, n int) session.Log {
	l := mustCreate(b, s)
	const batch = 10_000
	for have := 0; have < n; {
		k := min(batch, n-have)
		evs := make([]session.Event, k)
		for i := range evs {
			evs[i] = session.Event{Type: session.Assistant, Text: "some text the model said, not very long"}
		}
		if have > 0 {
			evs[0] = session.Event{Type: session.Compaction, Text: "summary", From: 4, To: int64(have)}
		}
		mustAppend(b, l, evs...)
		have += k
	}
	return l
}
