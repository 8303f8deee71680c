package sessiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
