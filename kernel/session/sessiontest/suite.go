package sessiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunOptions says what the store under test promises beyond the contract
// every store keeps.
type RunOptions struct {
	// Durable says sessions outlive the store value: a new store over the
	// same storage (see Reopen) sees every acknowledged event. The suite
	// then checks that through Reopen.
	Durable bool
	// Reopen returns a new store over the storage of s, as a restarted
	// process would make it; s's Logs are all closed by then. Required
	// when Durable.
	Reopen func(t *testing.T, s session.Store) session.Store
}

// Run runs the conformance suite against stores from newStore, one fresh
// store per subtest.
func Run(t *testing.T, newStore func(t *testing.T) session.Store) {
	RunWith(t, newStore, RunOptions{})
}

// RunWith is Run with options. What every store must do:
//
//   - Create gives a new, empty session with a valid, unique ID.
//   - Append numbers events from 1 with no gap, in the order given (also
//     when several goroutines append at once: a batch stays contiguous),
//     sets Time, and returns the events as stored. It refuses, appending
//     nothing of the batch: an event without a Type, a Compaction whose span
//     is not 1 <= From <= To < its own Seq, Input that is not valid JSON, a
//     canceled context, a closed Log (ErrClosed).
//   - Stored events read back exactly as Append returned them (Meta,
//     Provenance, ToolUseID, IsError, Usage, Input byte for byte), through At,
//     Backward and a reopened Log; they do not change when the caller
//     reuses the Meta map or Input bytes it appended.
//   - At, Len and Backward agree; Backward is newest first, stops when
//     told, and may be used while Append runs, even from its own loop.
//   - A second Open of an open session either fails or shares the log: two
//     Logs never hand out the same Seq.
//   - List: every session, Updated newest first; Title is the first User
//     message (exactly, when it is one short line); Events counts them.
//   - Fork copies events with Seq <= at keeping Seq and Time, leaves the
//     original alone, continues Seqs after the copy, and its Info names the
//     origin (ForkOf, ForkAt).
//   - Unknown IDs are ErrNotFound; IDs that could escape a directory
//     ("", "..", "../x", "a/b", ...) are ErrInvalidID.
//   - A session reopened with tool calls left without a result (the
//     process died during the call) is answered by RepairInterrupted with
//     one interrupted error result per call, stored like any event: a
//     second reopen and repair writes none.
//
// The List order check needs the store's clock to move between Appends;
// where two Appends got equal times it checks only that List is sorted.
func RunWith(t *testing.T, newStore func(t *testing.T) session.Store, opts RunOptions) {
	t.Helper()
	require.False(t, opts.Durable && opts.Reopen == nil, "sessiontest: RunOptions.Durable needs Reopen")
	tests := []struct {
		name string
		run  func(t *testing.T, s session.Store)
	}{
		{"CreateAppend", testCreateAppend},
		{"AppendBatch", testAppendBatch},
		{"AppendRefusesInvalid", testAppendRefusesInvalid},
		{"AppendCanceled", testAppendCanceled},
		{"Readers", testReaders},
		{"BackwardDuringAppend", testBackwardDuringAppend},
		{"RoundTrip", testRoundTrip},
		{"CallerBuffersReused", testCallerBuffersReused},
		{"Reopen", testReopen},
		{"SecondOpen", testSecondOpen},
		{"Closed", testClosed},
		{"List", testList},
		{"Fork", testFork},
		{"ForkAll", testForkAll},
		{"NotFound", testNotFound},
		{"InvalidIDs", testInvalidIDs},
		{"ConcurrentAppends", testConcurrentAppends},
		{"RepairInterrupted", testRepairInterrupted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
	if opts.Durable {
		t.Run("Durable", func(t *testing.T) { testDurable(t, newStore(t), opts.Reopen) })
	}
}

func testCreateAppend(t *testing.T, s session.Store) {
	l := create(t, s)
	require.NotEmpty(t, l.ID(), "Create: empty ID")
	require.Zero(t, l.Len(), "new log: Len")
	other := create(t, s)
	require.NotEqual(t, l.ID(), other.ID(), "two Creates gave the same ID")
	for i := 1; i <= 3; i++ {
		got := mustAppend(t, l, session.Event{Type: session.User, Text: fmt.Sprint("message ", i)})
		require.Len(t, got, 1, "Append returned %d events, want 1", len(got))
		assert.Equal(t, int64(i), got[0].Seq, "append %d: Seq, want %d", i, i)
		assert.False(t, got[0].Time.IsZero(), "append %d: Time not set", i)
		assert.Equal(t, session.User, got[0].Type, "append %d: got %+v", i, got[0])
		assert.Equal(t, fmt.Sprint("message ", i), got[0].Text, "append %d: got %+v", i, got[0])
		assert.Empty(t, cmp.Diff(got[0], l.At(i-1)), "At(%d) differs from what Append returned (-append +at)", i-1)
	}
	assert.Equal(t, 3, l.Len(), "Len")
	assert.Zero(t, other.Len(), "appending to %s changed %s", l.ID(), other.ID())
	got, err := l.Append(t.Context())
	assert.NoError(t, err, "Append() with no events = %v, %v; Len %d; want nothing, nil, 3", got, err, l.Len())
	assert.Empty(t, got, "Append() with no events = %v, %v; Len %d; want nothing, nil, 3", got, err, l.Len())
	assert.Equal(t, 3, l.Len(), "Append() with no events = %v, %v; Len %d; want nothing, nil, 3", got, err, l.Len())
}

func testAppendBatch(t *testing.T, s session.Store) {
	l := create(t, s)
	mustAppend(t, l, session.Event{Type: session.User, Text: "go"})
	batch := []session.Event{
		{Type: session.Assistant, Text: "calling two tools"},
		{Type: session.ToolUse, ToolUseID: "a", ToolName: "Read", Input: json.RawMessage(`{"path":"x"}`)},
		{Type: session.ToolUse, ToolUseID: "b", ToolName: "Glob", Input: json.RawMessage(`{"pattern":"*.go"}`)},
	}
	got := mustAppend(t, l, batch...)
	require.Len(t, got, len(batch), "Append returned %d events, want %d", len(got), len(batch))
	for i, e := range got {
		assert.Equal(t, int64(i+2), e.Seq, "batch event %d: Seq, want %d", i, i+2)
		assert.Equal(t, batch[i].Text, e.Text, "batch event %d out of order: %+v", i, e)
		assert.Equal(t, batch[i].ToolUseID, e.ToolUseID, "batch event %d out of order: %+v", i, e)
		if !e.Time.Equal(got[0].Time) {
			t.Logf("batch events have different times (allowed): %v, %v", got[0].Time, e.Time)
		}
	}
	assert.Empty(t, cmp.Diff(got, all(l)[1:]), "log differs from what Append returned (-append +log)")
}

func testAppendRefusesInvalid(t *testing.T, s session.Store) {
	l := create(t, s)
	mustAppend(t, l,
		session.Event{Type: session.User, Text: "one"},
		session.Event{Type: session.Assistant, Text: "two"},
	)
	ok := session.Event{Type: session.User, Text: "fine"}
	for _, tc := range []struct {
		name string
		ev   session.Event
	}{
		{"no type", session.Event{Text: "typeless"}},
		{"compaction from 0", session.Event{Type: session.Compaction, Text: "s", From: 0, To: 1}},
		{"compaction from > to", session.Event{Type: session.Compaction, Text: "s", From: 2, To: 1}},
		{"compaction covers itself", session.Event{Type: session.Compaction, Text: "s", From: 1, To: 4}},
		{"compaction covers the future", session.Event{Type: session.Compaction, Text: "s", From: 1, To: 9}},
		{"input not JSON", session.Event{Type: session.ToolUse, ToolUseID: "x", Input: json.RawMessage(`{"a":`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := all(l)
			// The bad event comes second: nothing of the batch may land.
			got, err := l.Append(t.Context(), ok, tc.ev)
			require.Error(t, err, "Append accepted %+v: %+v", tc.ev, got)
			assert.Empty(t, cmp.Diff(before, all(l)), "a refused Append changed the log (-before +after)")
		})
	}
	// The compaction of a valid span is accepted, and no Seq was used up.
	got := mustAppend(t, l, ok, session.Event{Type: session.Compaction, Text: "summary", From: 1, To: 3})
	assert.Equal(t, int64(3), got[0].Seq, "after refusals: Seqs %d, %d; want 3, 4", got[0].Seq, got[1].Seq)
	assert.Equal(t, int64(4), got[1].Seq, "after refusals: Seqs %d, %d; want 3, 4", got[0].Seq, got[1].Seq)
}

func testAppendCanceled(t *testing.T, s session.Store) {
	l := create(t, s)
	mustAppend(t, l, session.Event{Type: session.User, Text: "one"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := l.Append(ctx, session.Event{Type: session.User, Text: "late"})
	assert.ErrorIs(t, err, context.Canceled, "Append with a canceled context")
	assert.Equal(t, 1, l.Len(), "Len after a canceled Append")
}

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

func testCallerBuffersReused(t *testing.T, s session.Store) {
	l := create(t, s)
	meta := map[string]string{"digest": "one"}
	input := []byte(`{"path":"a"}`)
	mustAppend(t, l, session.Event{Type: session.ToolUse, ToolUseID: "c", Meta: meta, Input: input})
	meta["digest"] = "two"
	meta["extra"] = "x"
	copy(input, `{"path":"b"}`)
	e := l.At(0)
	assert.Empty(t, cmp.Diff(map[string]string{"digest": "one"}, e.Meta), "the caller's map changed the stored Meta (-want +got)")
	assert.Equal(t, `{"path":"a"}`, string(e.Input), "the caller's buffer changed the stored Input: %s", e.Input)
}

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

func testList(t *testing.T, s session.Store) {
	long := strings.Repeat("Ünïcode wörds and more wörds, ", 10)
	a := create(t, s)
	mustAppend(t, a,
		session.Event{Type: session.Injected, Provenance: "skills-catalog", Text: "<available_skills>\n</available_skills>"},
		session.Event{Type: session.User, Text: "first message of A"},
		session.Event{Type: session.Assistant, Text: "ok"},
	)
	b := create(t, s)
	bEvs := mustAppend(t, b, session.Event{Type: session.User, Text: long}, session.Event{Type: session.User, Text: "second"})
	c := create(t, s) // stays empty
	aLast := mustAppend(t, a, session.Event{Type: session.Assistant, Text: "later"})

	infos := list(t, s)
	require.Len(t, infos, 3, "List: %d sessions, want 3: %+v", len(infos), infos)
	checkSorted(t, infos)
	ia, ib, ic := find(t, infos, a.ID()), find(t, infos, b.ID()), find(t, infos, c.ID())
	assert.Equal(t, "first message of A", ia.Title, "Info of A = %+v; want Title %q, Events 4, no fork", ia, "first message of A")
	assert.Equal(t, 4, ia.Events, "Info of A = %+v; want Title %q, Events 4, no fork", ia, "first message of A")
	assert.Empty(t, ia.ForkOf, "Info of A = %+v; want Title %q, Events 4, no fork", ia, "first message of A")
	assert.Zero(t, ia.ForkAt, "Info of A = %+v; want Title %q, Events 4, no fork", ia, "first message of A")
	assert.Equal(t, 2, ib.Events, "Info of B = %+v; want Events 2 and a Title of at most 80 runes", ib)
	assert.NotEmpty(t, ib.Title, "Info of B = %+v; want Events 2 and a Title of at most 80 runes", ib)
	assert.LessOrEqual(t, utf8.RuneCountInString(ib.Title), 80, "Info of B = %+v; want Events 2 and a Title of at most 80 runes", ib)
	if r := []rune(ib.Title); len(r) >= 40 {
		assert.True(t, strings.HasPrefix(long, string(r[:40])), "Title of B %q does not begin like the message %q", ib.Title, long)
	}
	assert.Zero(t, ic.Events, "Info of empty C = %+v; want Events 0, no Title", ic)
	assert.Empty(t, ic.Title, "Info of empty C = %+v; want Events 0, no Title", ic)
	for _, in := range []session.Info{ia, ib, ic} {
		assert.False(t, in.Created.IsZero(), "Info of %s: Created %v, Updated %v; want Created set and Updated >= Created", in.ID, in.Created, in.Updated)
		assert.False(t, in.Updated.Before(in.Created), "Info of %s: Created %v, Updated %v; want Created set and Updated >= Created", in.ID, in.Created, in.Updated)
	}
	if aLast[0].Time.After(bEvs[1].Time) {
		assert.LessOrEqual(t, pos(infos, a.ID()), pos(infos, b.ID()), "List order %v: A, appended to last, comes after B", ids(infos))
	} else {
		t.Logf("the store's clock did not move between Appends; order not checked")
	}

	// Closed sessions are described the same way as open ones.
	for _, l := range []session.Log{a, b, c} {
		closeLog(t, l)
	}
	assert.Empty(t, cmp.Diff(infos, list(t, s)), "List after closing every Log differs (-open +closed)")
}

func testFork(t *testing.T, s session.Store) {
	src := create(t, s)
	mustAppend(t, src,
		session.Event{Type: session.User, Text: "start"},
		session.Event{Type: session.Assistant, Text: "a"},
		session.Event{Type: session.ToolUse, ToolUseID: "t1", ToolName: "Read", Input: json.RawMessage(`{"path": "x"}`)},
		session.Event{Type: session.ToolResult, ToolUseID: "t1", Text: "body"},
		session.Event{Type: session.Assistant, Text: "b"},
		session.Event{Type: session.Compaction, Text: "summary", From: 2, To: 5},
		session.Event{Type: session.User, Text: "more"},
		session.Event{Type: session.Assistant, Text: "c"},
	)
	orig := all(src)

	f := fork(t, s, src.ID(), 6)
	require.NotEqual(t, src.ID(), f.ID(), "Fork kept the ID")
	assert.Empty(t, cmp.Diff(orig[:6], all(f)), "fork at 6 (-original[:6] +fork)")
	assert.Empty(t, cmp.Diff(session.ModelView(src)[:2], session.ModelView(f)), "the fork's compaction lost its meaning (-original view +fork view)")
	next := mustAppend(t, f, session.Event{Type: session.User, Text: "in the fork"})
	assert.Equal(t, int64(7), next[0].Seq, "first append to the fork: Seq")
	mustAppend(t, src, session.Event{Type: session.User, Text: "in the original"})
	assert.Empty(t, cmp.Diff(orig, all(src)[:len(orig)]), "forking changed the original (-before +after)")
	assert.Equal(t, 9, src.Len(), "fork and original are not independent: original %d events, fork %d", src.Len(), f.Len())
	assert.Equal(t, 7, f.Len(), "fork and original are not independent: original %d events, fork %d", src.Len(), f.Len())
	assert.Equal(t, "in the fork", f.At(6).Text, "fork and original are not independent: original %d events, fork %d", src.Len(), f.Len())
	assert.Equal(t, "in the original", src.At(8).Text, "fork and original are not independent: original %d events, fork %d", src.Len(), f.Len())

	// A fork of a closed session, and a fork of the fork.
	closeLog(t, src)
	g := fork(t, s, src.ID(), 3)
	assert.Empty(t, cmp.Diff(orig[:3], all(g)), "fork of a closed session at 3 (-original[:3] +fork)")
	h := fork(t, s, f.ID(), 0)
	assert.Empty(t, cmp.Diff(all(f), all(h)), "fork of the fork (-fork +its fork)")

	infos := list(t, s)
	checkSorted(t, infos)
	for _, c := range []struct {
		id, of string
		at     int64
		n      int
	}{
		{src.ID(), "", 0, 9},
		{f.ID(), src.ID(), 6, 7},
		{g.ID(), src.ID(), 3, 3},
		{h.ID(), f.ID(), 7, 7},
	} {
		in := find(t, infos, c.id)
		assert.Equal(t, c.of, in.ForkOf, "Info of %s: ForkOf %q, ForkAt %d, Events %d; want %q, %d, %d", c.id, in.ForkOf, in.ForkAt, in.Events, c.of, c.at, c.n)
		assert.Equal(t, c.at, in.ForkAt, "Info of %s: ForkOf %q, ForkAt %d, Events %d; want %q, %d, %d", c.id, in.ForkOf, in.ForkAt, in.Events, c.of, c.at, c.n)
		assert.Equal(t, c.n, in.Events, "Info of %s: ForkOf %q, ForkAt %d, Events %d; want %q, %d, %d", c.id, in.ForkOf, in.ForkAt, in.Events, c.of, c.at, c.n)
		assert.Equal(t, "start", in.Title, "Info of %s: Title %q, want %q", c.id, in.Title, "start")
	}
	// The origin survives closing the fork.
	closeLog(t, f)
	in := find(t, list(t, s), f.ID())
	assert.Equal(t, src.ID(), in.ForkOf, "closed fork: ForkOf %q, ForkAt %d; want %q, 6", in.ForkOf, in.ForkAt, src.ID())
	assert.Equal(t, int64(6), in.ForkAt, "closed fork: ForkOf %q, ForkAt %d; want %q, 6", in.ForkOf, in.ForkAt, src.ID())
	r := open(t, s, f.ID())
	assert.Empty(t, cmp.Diff(append(orig[:6:6], next...), all(r)), "reopened fork (-want +got)")
}

func testForkAll(t *testing.T, s session.Store) {
	src := create(t, s)
	mustAppend(t, src, session.Event{Type: session.User, Text: "one"}, session.Event{Type: session.Assistant, Text: "two"})
	for _, at := range []int64{0, -1, 2, 100} {
		f := fork(t, s, src.ID(), at)
		assert.Empty(t, cmp.Diff(all(src), all(f)), "Fork(at %d) should copy everything (-original +fork)", at)
	}
	empty := create(t, s)
	f := fork(t, s, empty.ID(), 0)
	assert.Zero(t, f.Len(), "fork of an empty session has %d events", f.Len())
	got := mustAppend(t, f, session.Event{Type: session.User, Text: "x"})
	assert.Equal(t, int64(1), got[0].Seq, "first append to a fork of an empty session: Seq")
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

func testConcurrentAppends(t *testing.T, s session.Store) {
	const writers, rounds = 8, 25
	l := create(t, s)
	ctx := t.Context()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		errs    []error
		stop    = make(chan struct{})
		readers sync.WaitGroup
	)
	fail := func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() }
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := l.Len()
				if n > 0 {
					if e := l.At(n - 1); e.Seq != int64(n) {
						fail(fmt.Errorf("At(%d).Seq = %d", n-1, e.Seq))
					}
				}
				want := int64(-1)
				for e := range l.Backward() {
					if want >= 0 && e.Seq != want {
						fail(fmt.Errorf("Backward yielded Seq %d, want %d", e.Seq, want))
						break
					}
					want = e.Seq - 1
				}
				_ = session.Visible(l, 1)
			}
		})
	}
	sent := make([][]session.Event, writers) // what each writer got back
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				batch := []session.Event{{Type: session.User, Text: fmt.Sprintf("w%d r%d e0", w, r)}}
				if r%2 == 1 {
					batch = append(batch,
						session.Event{Type: session.Assistant, Text: fmt.Sprintf("w%d r%d e1", w, r)},
						session.Event{Type: session.Assistant, Text: fmt.Sprintf("w%d r%d e2", w, r)})
				}
				got, err := l.Append(ctx, batch...)
				if err != nil {
					fail(err)
					return
				}
				for i := range got {
					if got[i].Seq != got[0].Seq+int64(i) || got[i].Text != batch[i].Text {
						fail(fmt.Errorf("writer %d: batch not contiguous and in order: %+v", w, got))
					}
				}
				sent[w] = append(sent[w], got...)
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	assert.Empty(t, errs)
	total := 0
	for w := range writers {
		total += len(sent[w])
	}
	evs := all(l)
	require.Len(t, evs, total, "Len")
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Seq, "event %d has Seq %d: Seqs must be 1..n without gaps or repeats", i, e.Seq)
	}
	for w := range writers {
		for i, e := range sent[w] {
			assert.Equal(t, e.Text, evs[e.Seq-1].Text, "writer %d: Seq %d holds %q, want %q", w, e.Seq, evs[e.Seq-1].Text, e.Text)
			if i > 0 {
				assert.Greater(t, e.Seq, sent[w][i-1].Seq, "writer %d: Seqs not increasing", w)
			}
		}
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

// helpers

func create(t *testing.T, s session.Store) session.Log {
	t.Helper()
	l, err := s.Create(t.Context())
	require.NoError(t, err, "Create")
	t.Cleanup(func() { l.Close() })
	return l
}

func open(t *testing.T, s session.Store, id string) session.Log {
	t.Helper()
	l, err := s.Open(t.Context(), id)
	require.NoError(t, err, "Open(%q)", id)
	t.Cleanup(func() { l.Close() })
	return l
}

func fork(t *testing.T, s session.Store, id string, at int64) session.Log {
	t.Helper()
	l, err := s.Fork(t.Context(), id, at)
	require.NoError(t, err, "Fork(%q, %d)", id, at)
	t.Cleanup(func() { l.Close() })
	return l
}

func closeLog(t *testing.T, l session.Log) {
	t.Helper()
	require.NoError(t, l.Close(), "Close %s", l.ID())
}

func mustAppend(t *testing.T, l session.Log, evs ...session.Event) []session.Event {
	t.Helper()
	got, err := l.Append(t.Context(), evs...)
	require.NoError(t, err, "Append to %s", l.ID())
	return got
}

func list(t *testing.T, s session.Store) []session.Info {
	t.Helper()
	infos, err := s.List(t.Context())
	require.NoError(t, err, "List")
	return infos
}

// all reads a log through At.
func all(l session.Log) []session.Event {
	evs := make([]session.Event, l.Len())
	for i := range evs {
		evs[i] = l.At(i)
	}
	return evs
}

func find(t *testing.T, infos []session.Info, id string) session.Info {
	t.Helper()
	if i := pos(infos, id); i >= 0 {
		return infos[i]
	}
	t.Fatalf("List has no session %s: %v", id, ids(infos))
	return session.Info{}
}

func pos(infos []session.Info, id string) int {
	return slices.IndexFunc(infos, func(in session.Info) bool { return in.ID == id })
}

func ids(infos []session.Info) []string {
	var out []string
	for _, in := range infos {
		out = append(out, in.ID)
	}
	return out
}

func checkSorted(t *testing.T, infos []session.Info) {
	t.Helper()
	for i := 1; i < len(infos); i++ {
		assert.False(t, infos[i].Updated.After(infos[i-1].Updated), "List not sorted by Updated, newest first: %s (%v) before %s (%v)", infos[i-1].ID, infos[i-1].Updated, infos[i].ID, infos[i].Updated)
	}
}
