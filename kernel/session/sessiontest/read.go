package sessiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testReaders(t *testing.T, s session.Store) {
	l := create(t, s)
	for i := range 10 {
		mustAppend(t, l,
			session.Event{Type: session.User, Text: fmt.Sprint("u", i)},
			session.Event{Type: session.Assistant, Text: fmt.Sprint("a", i)},
			session.Event{Type: session.Assistant, Text: fmt.Sprint("b", i)},
		)
	}
	require.Equal(t, 30, l.Len(), "Len")
	var at []session.Event
	for i := range l.Len() {
		e := l.At(i)
		assert.Equal(t, int64(i+1), e.Seq, "At(%d).Seq, want %d", i, i+1)
		at = append(at, e)
	}
	var back []session.Event
	for e := range l.Backward() {
		back = append(back, e)
	}
	slices.Reverse(back)
	assert.Empty(t, cmp.Diff(at, back), "Backward (reversed) differs from At (-at +backward)")
	// Stopping early: a range loop panics if the iterator calls yield
	// again after it returned false.
	var seen []int64
	for e := range l.Backward() {
		seen = append(seen, e.Seq)
		if len(seen) == 3 {
			break
		}
	}
	assert.Empty(t, cmp.Diff([]int64{30, 29, 28}, seen), "Backward stopped after 3 (-want +got)")
	calls := 0
	l.Backward()(func(session.Event) bool { calls++; return false })
	assert.Equal(t, 1, calls, "Backward called yield after it returned false at once")
	empty := create(t, s)
	var yielded []session.Event
	for e := range empty.Backward() {
		yielded = append(yielded, e)
	}
	assert.Empty(t, yielded, "Backward of an empty log yielded events")
}

func testBackwardDuringAppend(t *testing.T, s session.Store) {
	l := create(t, s)
	mustAppend(t, l, session.Event{Type: session.User, Text: "one"}, session.Event{Type: session.Assistant, Text: "two"})
	done := make(chan error, 1)
	go func() {
		var err error
		n := 0
		for e := range l.Backward() {
			if n == 0 {
				// An injector scans backwards and appends what it decided.
				_, err = l.Append(context.Background(), session.Event{Type: session.Injected, Provenance: "test", Text: "x"})
				_ = l.Len()
				_ = l.At(0)
			}
			if e.Seq < 1 {
				err = fmt.Errorf("Backward yielded Seq %d", e.Seq)
			}
			n++
		}
		if err == nil && n < 2 {
			err = fmt.Errorf("Backward yielded %d events, want at least 2", n)
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Append, Len or At inside a Backward loop did not return: deadlock")
	}
	assert.Equal(t, 3, l.Len(), "Len")
}

// roundTripEvents exercise every field, with bytes encoders like to
// change: spaces and escapes in Input, HTML characters, line breaks,
// U+2028, unknown types.
func roundTripEvents() []session.Event {
	return []session.Event{
		{Type: session.Injected, Provenance: "skills-catalog", Text: "Skills:\n<available_skills>\n<skill>a & b</skill>\n</available_skills>",
			Meta: map[string]string{"digest": "sha256:0f1e", "note": "<&>\u2028\"", "": "empty key", "empty": ""}},
		{Type: session.User, Text: "fix the <bug> & \"quote\" — ünïcødé\ttab\r\nCRLF \u2028 \U0001F600"},
		{Type: session.Assistant, Text: "calling", Meta: map[string]string{"finish": "tool_calls"},
			Usage: session.Usage{Input: 12034, Output: 56, CacheRead: 11000, CacheWrite: 1000}},
		{Type: session.ToolUse, ToolUseID: "call_1", ToolName: "Bash",
			Input: json.RawMessage(`{"command": "ls -la && echo <x> > y",  "timeout": 1.50e3, "u": "\u00e9\n", "z": [ ]}`)},
		{Type: session.ToolUse, ToolUseID: "call_2", ToolName: "Edit", Input: json.RawMessage("{\n  \"path\": \"a.go\",\r\n\t\"new\": \"x\"\n}")},
		{Type: session.ToolUse, ToolUseID: "call_3", ToolName: "Read", Input: json.RawMessage(" [1, 2] ")},
		{Type: session.ToolUse, ToolUseID: "call_4", ToolName: "Glob", Input: json.RawMessage(`null`)},
		{Type: session.ToolUse, ToolUseID: "call_5", ToolName: "Glob", Input: json.RawMessage(`"just a string"`)},
		{Type: session.ToolResult, ToolUseID: "call_1", Text: "line1\nline2\x00nul", IsError: true},
		{Type: session.ToolResult, ToolUseID: "call_2", Text: ""},
		{Type: session.Compaction, Text: "summary of 2..4", From: 2, To: 4},
		{Type: session.Type("x-custom"), Text: "stores keep types they do not know", From: 7, To: 3},
	}
}

func testRoundTrip(t *testing.T, s session.Store) {
	l := create(t, s)
	in := roundTripEvents()
	got := mustAppend(t, l, in...)
	want := slices.Clone(in)
	for i := range want {
		want[i].Seq, want[i].Time = int64(i+1), got[i].Time
	}
	assert.Empty(t, cmp.Diff(want, got, cmpopts.EquateEmpty()), "Append changed the events (-given +returned)")
	// Invalid UTF-8 may be normalized, but must then read back the same.
	odd := mustAppend(t, l,
		session.Event{Type: session.ToolResult, ToolUseID: "call_3", Text: "bad \xff\xfe bytes \xe2\x82"},
		session.Event{Type: session.ToolUse, ToolUseID: "call_6", Input: json.RawMessage("{\"a\":\"\xff\"}"), Meta: map[string]string{"k\xff": "v\xc3"}},
	)
	got = append(got, odd...)
	assert.Empty(t, cmp.Diff(got, all(l)), "At differs from what Append returned (-append +at)")
	id := l.ID()
	closeLog(t, l)
	r := open(t, s, id)
	assert.Empty(t, cmp.Diff(got, all(r)), "reopened log differs from what Append returned (-append +reopened)")
	for i, e := range all(r) {
		assert.True(t, slices.Equal(e.Input, got[i].Input), "event %d: Input bytes %q, want %q", e.Seq, e.Input, got[i].Input)
	}
}
