package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDecodeLog reads a session file of 10,000 events (every tenth a
// 10 KB tool result): "readall" is the baseline, the whole file read at
// once and split (how the store read before lines were bounded); "stream"
// is decodeLog, line by line under the line limit.
func BenchmarkDecodeLog(b *testing.B) {
	evs := make([]Event, 10_000)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range evs {
		evs[i] = Event{Seq: int64(i) + 1, Time: at, Type: Assistant, Text: "some text the model said, not very long"}
		if i%10 == 9 {
			evs[i] = Event{Seq: int64(i) + 1, Time: at, Type: ToolResult, ToolUseID: "call_1", Text: strings.Repeat("output line\n", 850)}
		}
	}
	data, err := encodeEvents(evs, DefaultMaxLine)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.Run("readall", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			all, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			out := make([]Event, 0, bytes.Count(all, []byte{'\n'}))
			for line := range bytes.Lines(all) {
				e, err := decodeEvent(line[:len(line)-1])
				if err != nil {
					b.Fatal(err)
				}
				out = append(out, e)
			}
			if len(out) != len(evs) {
				b.Fatalf("%d events", len(out))
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			out, _, _, err := decodeLog(f, path, DefaultMaxLine)
			f.Close()
			if err != nil || len(out) != len(evs) {
				b.Fatalf("%d events, %v", len(out), err)
			}
		}
	})
}
