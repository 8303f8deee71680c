package session

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
)

// FuzzDecodeLog feeds arbitrary bytes, torn and corrupt session files among
// them, to the JSONL reader and the List summary: neither panics; an error
// names f.jsonl:<line>; what decodes is numbered 1..n, is a prefix of the
// file, and encodes to a file that decodes to the same events (so a Fork of
// it is readable).
func FuzzDecodeLog(f *testing.F) {
	good := "{\"seq\":1,\"time\":\"2026-12-01T10:00:00Z\",\"type\":\"user\",\"text\":\"list the files\"}\n" +
		"{\"seq\":2,\"time\":\"2026-12-01T10:00:01Z\",\"type\":\"tool_use\",\"toolUseId\":\"c1\",\"toolName\":\"Bash\",\"input\":{\"command\":\"ls\"}}\n"
	for _, seed := range []string{
		"",
		"\n",
		good,
		good + "{\"seq\":3,\"ti",
		good + "\x00\x00\x00\n",
		"{\"seq\":1,\"ti\n" + good,
		"{\"seq\":1,\"time\":\"2026-12-01T10:00:00Z\",\"type\":\"tool_use\",\"inputText\":\"{\\n}\"}\n",
		"{\"seq\":2}\n",
	} {
		f.Add([]byte(seed))
	}
	const maxLine = 512
	where := regexp.MustCompile(`^f\.jsonl:[1-9][0-9]*: `)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := scanSummary(bytes.NewReader(data), maxLine); err != nil && !regexp.MustCompile(`^[1-9][0-9]*: `).MatchString(err.Error()) {
			t.Fatalf("summary error %q names no line", err)
		}
		evs, good, size, err := decodeLog(bytes.NewReader(data), "f.jsonl", maxLine)
		if err != nil {
			if !where.MatchString(err.Error()) {
				t.Fatalf("error %q does not start with file:line", err)
			}
			if strings.Contains(err.Error(), "too long") != errors.Is(err, ErrLineTooLong) {
				t.Fatalf("error %q: ErrLineTooLong not wrapped", err)
			}
			return
		}
		if size != int64(len(data)) || good > size {
			t.Fatalf("good %d, size %d, file %d bytes", good, size, len(data))
		}
		for i, e := range evs {
			if e.Seq != int64(i)+1 {
				t.Fatalf("event %d has Seq %d", i, e.Seq)
			}
		}
		again, g2, _, err := decodeLog(bytes.NewReader(data[:good]), "f.jsonl", maxLine)
		if err != nil || len(again) != len(evs) || g2 != good {
			t.Fatalf("the good prefix decodes to %d events (good %d, err %v), want %d (good %d)", len(again), g2, err, len(evs), good)
		}
		enc, err := encodeEvents(evs, 1<<20)
		if err != nil {
			t.Fatalf("encode what was read: %v", err)
		}
		back, g3, size3, err := decodeLog(bytes.NewReader(enc), "f.jsonl", 1<<20)
		if err != nil || g3 != size3 || len(back) != len(evs) {
			t.Fatalf("re-encoded events do not read back: %d of %d events, err %v\n%s", len(back), len(evs), err, enc)
		}
		enc2, _ := encodeEvents(back, 1<<20)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", enc, enc2)
		}
	})
}

// An endless line is refused after the limit: reading holds at most one
// line, however much the file (or a corrupt device) offers.
func TestDecodeLogStopsAtTheLimit(t *testing.T) {
	endless := io.MultiReader(strings.NewReader("{\"seq\":1,\"time\":\"2026-12-01T10:00:00Z\",\"type\":\"user\"}\n"), zeros{})
	_, _, _, err := decodeLog(endless, "f.jsonl", 1<<20)
	if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "f.jsonl:2: ") || !strings.Contains(err.Error(), "1 MiB") {
		t.Fatalf("decodeLog of an endless line: %v", err)
	}
	_, err = scanSummary(zeros{}, 1<<20)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("scanSummary of an endless line: %v", err)
	}
}

// zeros is an endless stream of 'x'.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
