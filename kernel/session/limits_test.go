package session_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/session"
)

// lineLimit is small enough for a test to cross it with a short event.
const lineLimit = 4 << 10

// An event whose line would exceed MaxLine is refused with an error naming
// the limit; the log and the file are unchanged and the next Append works.
func TestAppendRefusesLineOverLimit(t *testing.T) {
	dir := t.TempDir()
	s, err := session.NewJSONLStore(session.JSONLConfig{Dir: dir, MaxLine: lineLimit})
	require.NoError(t, err)
	l, err := s.Create(t.Context())
	require.NoError(t, err)
	defer l.Close()
	_, err = l.Append(t.Context(), session.Event{Type: session.User, Text: "one"})
	require.NoError(t, err)
	path := filepath.Join(dir, l.ID()+".jsonl")
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	_, err = l.Append(t.Context(),
		session.Event{Type: session.User, Text: "fits"},
		session.Event{Type: session.ToolResult, ToolUseID: "c", Text: strings.Repeat("x", lineLimit)})
	require.Error(t, err)
	assert.ErrorIs(t, err, session.ErrLineTooLong)
	assert.Contains(t, err.Error(), "over the limit of 4 KiB")
	assert.Equal(t, 1, l.Len(), "nothing of the refused batch is appended")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing of the refused batch is written")

	evs, err := l.Append(t.Context(), session.Event{Type: session.User, Text: "two"})
	require.NoError(t, err)
	assert.Equal(t, int64(2), evs[0].Seq)
}

// A file holding a line over the limit is refused by Open, Read and Fork
// with an error naming the file, the line and the limit, and left as it
// is; List leaves it out with a warning. A line at the limit reads back.
func TestReadRefusesLineOverLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		tail string // what follows the two good lines
	}{
		{"terminated", strings.Repeat("x", lineLimit+1) + "\n"},
		{"unterminated last line", strings.Repeat("x", lineLimit+1)},
		{"a long line then more", strings.Repeat("x", 3*lineLimit) + "\n" + `{"seq":4}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			id := sessionWithTwoEvents(t, dir)
			path := filepath.Join(dir, id+".jsonl")
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString(tc.tail)
			require.NoError(t, err)
			require.NoError(t, f.Close())
			data, err := os.ReadFile(path)
			require.NoError(t, err)

			rec := &recorder{}
			s2, err := session.NewJSONLStore(session.JSONLConfig{Dir: dir, MaxLine: lineLimit, Logger: slog.New(rec)})
			require.NoError(t, err)
			want := fmt.Sprintf("%s:3: session line too long: longer than the limit of 4 KiB", path)
			_, err = s2.Open(t.Context(), id)
			require.Error(t, err)
			assert.ErrorIs(t, err, session.ErrLineTooLong)
			assert.Contains(t, err.Error(), want)
			_, err = s2.Read(t.Context(), id)
			assert.ErrorContains(t, err, want)
			_, err = s2.Fork(t.Context(), id, 0)
			assert.ErrorContains(t, err, want)
			infos, err := s2.List(t.Context())
			require.NoError(t, err)
			assert.Empty(t, infos)
			warns := rec.records(slog.LevelWarn)
			require.Len(t, warns, 1)
			assert.Contains(t, warns[0]["err"], "session line too long")
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, data, after, "a refused file is left as it is")
		})
	}
}

func TestLineAtTheLimitReadsBack(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	s, err := session.NewJSONLStore(session.JSONLConfig{Dir: dir, MaxLine: lineLimit, Clock: func() time.Time { return at }})
	require.NoError(t, err)
	l, err := s.Create(t.Context())
	require.NoError(t, err)
	_, err = l.Append(t.Context(), session.Event{Type: session.User, Text: "x"})
	require.NoError(t, err)
	path := filepath.Join(dir, l.ID()+".jsonl")
	first, err := os.ReadFile(path)
	require.NoError(t, err)
	// Seq 2 has the same length as Seq 1; each x adds one byte.
	text := strings.Repeat("x", 1+lineLimit-(len(first)-1))
	_, err = l.Append(t.Context(), session.Event{Type: session.User, Text: text + "x"})
	require.ErrorIs(t, err, session.ErrLineTooLong, "one byte over")
	_, err = l.Append(t.Context(), session.Event{Type: session.User, Text: text})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Len(t, data, len(first)+lineLimit+1, "the second line fills the limit")
	evs, err := s.Read(t.Context(), l.ID())
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, text, evs[1].Text)
	infos, err := s.List(t.Context())
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, 2, infos[0].Events)
}

func TestNewJSONLStoreRefusesNegativeMaxLine(t *testing.T) {
	_, err := session.NewJSONLStore(session.JSONLConfig{Dir: t.TempDir(), MaxLine: -1})
	assert.ErrorContains(t, err, "negative MaxLine")
}

func sessionWithTwoEvents(t *testing.T, dir string) string {
	t.Helper()
	s, err := session.NewJSONLStore(session.JSONLConfig{Dir: dir, MaxLine: lineLimit})
	require.NoError(t, err)
	l, err := s.Create(context.Background())
	require.NoError(t, err)
	_, err = l.Append(t.Context(), session.Event{Type: session.User, Text: "one"}, session.Event{Type: session.Assistant, Text: "two"})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	return l.ID()
}

// A line that is valid JSON but an event Append would never write is
// corruption, named by file and line; it is never loaded (a Fork would
// otherwise write a line no one can read back).
func TestOpenRefusesImpossibleEvent(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"input text that is not JSON", `{"seq":3,"time":"2026-12-01T10:00:00Z","type":"tool_use","inputText":"abc"}`, "inputText is not JSON"},
		{"no type", `{"seq":3,"time":"2026-12-01T10:00:00Z"}`, "no type"},
		{"compaction of the future", `{"seq":3,"time":"2026-12-01T10:00:00Z","type":"compaction","from":1,"to":3}`, "compaction span [1, 3] outside 1..2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			id := sessionWithTwoEvents(t, dir)
			path := filepath.Join(dir, id+".jsonl")
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString(tc.line + "\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
			s, err := session.NewJSONLStore(session.JSONLConfig{Dir: dir})
			require.NoError(t, err)
			_, err = s.Open(t.Context(), id)
			assert.ErrorContains(t, err, path+":3: corrupt session log: "+tc.want)
		})
	}
}
