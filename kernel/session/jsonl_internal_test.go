package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A failed write leaves the log as it was, and a log whose file could not
// be restored refuses every later Append rather than write after a torn
// line.
func TestAppendWriteFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	f, err := os.Open(path) // read-only: Write and Truncate fail
	require.NoError(t, err)
	defer f.Close()
	h := newHandle(newCore("s", time.Now, nil, &fileSink{f: f}), nil)
	ctx := context.Background()
	_, err = h.Append(ctx, Event{Type: User, Text: "one"})
	require.Error(t, err, "Append to a read-only file: no error")
	assert.Zero(t, h.Len(), "Len after a failed Append")
	_, err = h.Append(ctx, Event{Type: User, Text: "two"})
	assert.ErrorContains(t, err, "unusable", "Append after an unrecoverable failure, want the log refusing")
}

func TestCheckID(t *testing.T) {
	for _, id := range []string{"20261130T072143-3f9a2c", "a", "A_b-c.d", strings.Repeat("x", maxIDLen)} {
		assert.NoError(t, checkID(id), "checkID(%q)", id)
	}
	for _, id := range []string{"", ".", "..", "a..b", "../x", "a/b", `a\b`, "-x", ".x", "_x", "a b", "a:b", "é", strings.Repeat("x", maxIDLen+1)} {
		assert.Error(t, checkID(id), "checkID(%q) = nil, want an error", id)
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
		assert.Equal(t, tc.want, shortTitle(tc.in), "shortTitle(%q)", tc.in)
	}
}
