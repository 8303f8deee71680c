package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/helios-agents/helios/internal/pgtest"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/store/postgres"
)

// benchStores are the stores compared, the JSONL store (the default, one
// fsync per Append) first as the baseline.
var benchStores = []string{"jsonl", "postgres"}

func benchStore(b *testing.B, name string) session.Store {
	b.Helper()
	if name == "jsonl" {
		s, err := session.NewJSONLStore(session.JSONLConfig{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	url, _ := pgtest.Schema(b)
	s, err := postgres.New(context.Background(), postgres.Config{URL: url})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// Append of one event, durable when it returns: latency percentiles
// (p50-µs, p99-µs) and throughput (events/s) of one writer.
func BenchmarkAppend(b *testing.B) {
	for _, name := range benchStores {
		b.Run(name, func(b *testing.B) {
			s := benchStore(b, name)
			l, err := s.Create(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			ev := session.Event{Type: session.ToolResult, ToolUseID: "call_1", Text: "a tool result of a modest size, as most are"}
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				if _, err := l.Append(ctx, ev); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			var total time.Duration
			for _, d := range lat {
				total += d
			}
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(len(lat))/total.Seconds(), "events/s")
		})
	}
}

// Opening a 10,000-event session and rendering the model's view of it
// (what resuming does), and reading it without the lock (`sessions show`).
func BenchmarkOpenView10k(b *testing.B) {
	const n = 10_000
	for _, name := range benchStores {
		b.Run(name, func(b *testing.B) { benchOpenView(b, benchStore(b, name), n) })
	}
}

func benchOpenView(b *testing.B, s session.Store, n int) {
	id := fill(b, s, n)
	ctx := context.Background()
	b.Run("open+view", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l, err := s.Open(ctx, id)
			if err != nil {
				b.Fatal(err)
			}
			if v := session.ModelView(l); len(v) != n {
				b.Fatalf("view has %d events, want %d", len(v), n)
			}
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			evs, err := s.(session.Reader).Read(ctx, id)
			if err != nil || len(evs) != n {
				b.Fatalf("read %d events, %v; want %d", len(evs), err, n)
			}
		}
	})
}

// fill creates a session of n events, a conversation with tool calls, in
// batches of 100.
func fill(b *testing.B, s session.Store, n int) string {
	b.Helper()
	ctx := context.Background()
	l, err := s.Create(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for i := 0; i < n; i += 100 {
		batch := make([]session.Event, 0, 100)
		for j := i; j < i+100; j++ {
			switch j % 4 {
			case 0:
				batch = append(batch, session.Event{Type: session.User, Text: fmt.Sprint("question ", j)})
			case 1:
				batch = append(batch, session.Event{Type: session.ToolUse, ToolUseID: fmt.Sprint("c", j), ToolName: "Read", Input: []byte(`{"path":"notes.txt"}`)})
			case 2:
				batch = append(batch, session.Event{Type: session.ToolResult, ToolUseID: fmt.Sprint("c", j-1), Text: "a tool result of a modest size, as most are"})
			default:
				batch = append(batch, session.Event{Type: session.Assistant, Text: fmt.Sprint("answer ", j)})
			}
		}
		if _, err := l.Append(ctx, batch...); err != nil {
			b.Fatal(err)
		}
	}
	return l.ID()
}
