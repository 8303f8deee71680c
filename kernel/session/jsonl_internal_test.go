package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A failed write leaves the log as it was, and a log whose file could not
// be restored refuses every later Append rather than write after a torn
// line.
func TestAppendWriteFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path) // read-only: Write and Truncate fail
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := newHandle(newCore("s", time.Now, nil, &fileSink{f: f}), nil)
	ctx := context.Background()
	if _, err := h.Append(ctx, Event{Type: User, Text: "one"}); err == nil {
		t.Fatal("Append to a read-only file: no error")
	}
	if h.Len() != 0 {
		t.Errorf("Len = %d after a failed Append, want 0", h.Len())
	}
	_, err = h.Append(ctx, Event{Type: User, Text: "two"})
	if err == nil || !strings.Contains(err.Error(), "unusable") {
		t.Errorf("Append after an unrecoverable failure: %v, want the log refusing", err)
	}
}

func TestCheckID(t *testing.T) {
	for _, id := range []string{"20261130T072143-3f9a2c", "a", "A_b-c.d", strings.Repeat("x", maxIDLen)} {
		if err := checkID(id); err != nil {
			t.Errorf("checkID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "a..b", "../x", "a/b", `a\b`, "-x", ".x", "_x", "a b", "a:b", "é", strings.Repeat("x", maxIDLen+1)} {
		if err := checkID(id); err == nil {
			t.Errorf("checkID(%q) = nil, want an error", id)
		}
	}
}

func TestShortTitle(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, tc := range []struct{ in, want string }{
		{"fix the bug", "fix the bug"},
		{"  two\n\tlines  ", "two lines"},
		{long, strings.Repeat("é", 79) + "…"},
		{strings.Repeat("é", 80), strings.Repeat("é", 80)},
	} {
		if got := shortTitle(tc.in); got != tc.want {
			t.Errorf("shortTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
