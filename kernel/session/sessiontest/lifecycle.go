package sessiontest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testReopen(t *testing.T, s session.Store) {
	l := create(t, s)
	got := mustAppend(t, l, roundTripEvents()...)
	id := l.ID()
	closeLog(t, l)
	r := open(t, s, id)
	assert.Equal(t, id, r.ID(), "reopened ID")
	assert.Empty(t, cmp.Diff(got, all(r)), "reopened log differs (-appended +reopened)")
	next := mustAppend(t, r, session.Event{Type: session.User, Text: "resumed"})
	assert.Equal(t, int64(len(got)+1), next[0].Seq, "append after reopen: Seq")
}

func testRepairInterrupted(t *testing.T, s session.Store) {
	l := create(t, s)
	mustAppend(t, l,
		session.Event{Type: session.User, Text: "run two things"},
		session.Event{Type: session.Assistant, Text: "running"},
		session.Event{Type: session.ToolUse, ToolUseID: "a", ToolName: "Bash", Input: json.RawMessage(`{"command":"true"}`)},
		session.Event{Type: session.ToolUse, ToolUseID: "b", ToolName: "Bash", Input: json.RawMessage(`{"command":"sleep 600"}`)},
		session.Event{Type: session.ToolUse, ToolUseID: "c", ToolName: "Read", Input: json.RawMessage(`{"path":"x"}`)},
		session.Event{Type: session.ToolResult, ToolUseID: "a", ToolName: "Bash", Text: "done"},
	)
	id := l.ID()
	closeLog(t, l) // the process died during b

	r := open(t, s, id)
	got, err := session.RepairInterrupted(t.Context(), r)
	require.NoError(t, err)
	require.Len(t, got, 2, "one result for each unanswered call")
	for i, want := range []struct{ id, tool string }{{"b", "Bash"}, {"c", "Read"}} {
		e := got[i]
		assert.Equal(t, int64(7+i), e.Seq)
		assert.Equal(t, session.ToolResult, e.Type)
		assert.Equal(t, want.id, e.ToolUseID, "calls answered in log order")
		assert.Equal(t, want.tool, e.ToolName)
		assert.True(t, e.IsError, "an interrupted call is an error result")
		assert.Contains(t, e.Text, "interrupted")
		assert.Contains(t, e.Text, "outcome is unknown")
		assert.Equal(t, "true", e.Meta[session.InterruptedKey])
	}
	assert.Empty(t, session.Unanswered(r))
	closeLog(t, r)

	r = open(t, s, id)
	defer closeLog(t, r)
	again, err := session.RepairInterrupted(t.Context(), r)
	require.NoError(t, err)
	assert.Empty(t, again, "a repaired session is not repaired twice")
	assert.Empty(t, cmp.Diff(got, all(r)[6:]), "the results read back as stored (-repaired +reopened)")
	results := map[string]int{}
	for _, e := range all(r) {
		if e.Type == session.ToolResult {
			results[e.ToolUseID]++
		}
	}
	assert.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1}, results, "one result per call")
}

func testSecondOpen(t *testing.T, s session.Store) {
	a := create(t, s)
	mustAppend(t, a, session.Event{Type: session.User, Text: "one"})
	b, err := s.Open(t.Context(), a.ID())
	if err != nil {
		require.NotErrorIs(t, err, session.ErrNotFound, "Open of an open session")
		t.Logf("the store refuses a second Open (allowed): %v", err)
		return
	}
	t.Cleanup(func() { b.Close() })
	mustAppend(t, b, session.Event{Type: session.Assistant, Text: "two"})
	mustAppend(t, a, session.Event{Type: session.User, Text: "three"})
	for name, l := range map[string]session.Log{"first": a, "second": b} {
		evs := all(l)
		require.Len(t, evs, 3, "%s Log: %d events, want 3 (Logs on one session must share it)", name, len(evs))
		for i, e := range evs {
			assert.Equal(t, int64(i+1), e.Seq, "%s Log: event %d has Seq %d", name, i, e.Seq)
		}
	}
	require.NoError(t, b.Close())
	_, err = a.Append(t.Context(), session.Event{Type: session.User, Text: "four"})
	assert.NoError(t, err, "closing one Log closed the other")
}

func testClosed(t *testing.T, s session.Store) {
	l := create(t, s)
	mustAppend(t, l, session.Event{Type: session.User, Text: "one"})
	require.NoError(t, l.Close(), "Close")
	_, err := l.Append(t.Context(), session.Event{Type: session.User, Text: "two"})
	assert.ErrorIs(t, err, session.ErrClosed, "Append after Close")
	_, err = l.Append(t.Context())
	assert.ErrorIs(t, err, session.ErrClosed, "Append() of nothing after Close")
	r := open(t, s, l.ID())
	assert.Equal(t, 1, r.Len(), "reopened after a refused Append: Len")
}

func testNotFound(t *testing.T, s session.Store) {
	ctx := t.Context()
	for _, id := range []string{"20000101T000000-000000", "nosuchsession"} {
		l, err := s.Open(ctx, id)
		assert.ErrorIs(t, err, session.ErrNotFound, "Open(%q) = %v", id, l)
		l, err = s.Fork(ctx, id, 0)
		assert.ErrorIs(t, err, session.ErrNotFound, "Fork(%q) = %v", id, l)
	}
}

func testInvalidIDs(t *testing.T, s session.Store) {
	ctx := t.Context()
	l := create(t, s) // something for a traversal to find
	mustAppend(t, l, session.Event{Type: session.User, Text: "x"})
	for _, id := range []string{"", ".", "..", "../x", "../" + l.ID(), "a/b", "/etc/passwd", `a\b`, `..\x`, "x/../" + l.ID(), "x\x00y", ".hidden"} {
		got, err := s.Open(ctx, id)
		assert.ErrorIs(t, err, session.ErrInvalidID, "Open(%q) = %v", id, got)
		got, err = s.Fork(ctx, id, 0)
		assert.ErrorIs(t, err, session.ErrInvalidID, "Fork(%q) = %v", id, got)
	}
}

func testDurable(t *testing.T, s session.Store, reopen func(*testing.T, session.Store) session.Store) {
	a := create(t, s)
	aEvs := mustAppend(t, a, roundTripEvents()...)
	b := create(t, s)
	mustAppend(t, b, session.Event{Type: session.User, Text: "b"})
	f := fork(t, s, a.ID(), 5)
	fEvs := append(aEvs[:5:5], mustAppend(t, f, session.Event{Type: session.User, Text: "in the fork"})...)
	for _, l := range []session.Log{a, b, f} {
		closeLog(t, l)
	}
	before := list(t, s)

	s2 := reopen(t, s)
	assert.Empty(t, cmp.Diff(before, list(t, s2)), "List after reopening the store (-before +after)")
	for id, want := range map[string][]session.Event{a.ID(): aEvs, f.ID(): fEvs} {
		l := open(t, s2, id)
		assert.Empty(t, cmp.Diff(want, all(l)), "session %s after reopening the store (-appended +read)", id)
		got := mustAppend(t, l, session.Event{Type: session.User, Text: "resumed"})
		assert.Equal(t, int64(len(want)+1), got[0].Seq, "session %s: append after reopening the store: Seq %d, want %d", id, got[0].Seq, len(want)+1)
	}
}
