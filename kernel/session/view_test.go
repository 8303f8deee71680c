package session_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModelView(t *testing.T) {
	// A log is written as one token per event: "e" an ordinary event,
	// "c2-4" a compaction of [2, 4]. The view is the Seqs it shows.
	for _, tc := range []struct {
		name string
		log  string
		want []int64
	}{
		{"no compaction", "e e e", []int64{1, 2, 3}},
		{"one span", "e e e e c2-3 e", []int64{1, 5, 4, 6}},
		{"from the start", "e e e c1-3 e", []int64{4, 5}},
		{"marker not shown at its own place", "e c1-1", []int64{2}},
		{"a later compaction takes in an earlier one", "e e e e c2-3 e e c1-7 e", []int64{8, 9}},
		{"a later compaction inside an earlier span", "e e e e e e e e e c1-9 e c3-5 e", []int64{10, 12, 11, 13}},
		{"overlap, newest wins (doc example)", "e e e e e c2-4 e e c4-7 e", []int64{1, 6, 9, 8, 10}},
		{"overlap at the start", "e e e e e c3-5 e e c1-4 e", []int64{9, 6, 7, 8, 10}},
		{"same span summarized again", "e e e c1-3 c1-3 e", []int64{5, 6}},
		{"a span holding only another marker", "e e e c1-3 c4-4 e", []int64{4, 5, 6}},
		{"adjacent spans", "e e e c1-3 e e e c5-7 e", []int64{4, 8, 9}},
		{"three levels", "e e c1-2 e e c3-5 e e c1-8 e", []int64{9, 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := buildLog(t, tc.log)
			var got []int64
			for _, e := range session.ModelView(l) {
				got = append(got, e.Seq)
			}
			assert.Empty(t, cmp.Diff(tc.want, got), "view of %q (-want +got)", tc.log)
			for seq := int64(1); seq <= int64(l.Len()); seq++ {
				want := containsSeq(tc.want, seq)
				assert.Equal(t, want, session.Visible(l, seq), "Visible(%d)", seq)
				assert.Equal(t, want, session.Visible(sliceLog(all(l)), seq), "Visible(%d) on a plain Log", seq)
			}
		})
	}
}

func TestModelViewKeepsEvents(t *testing.T) {
	l := buildLog(t, "e e c1-1 e")
	view := session.ModelView(l)
	assert.Empty(t, cmp.Diff([]session.Event{l.At(2), l.At(1), l.At(3)}, view), "the view holds the log's events unchanged, summaries included (-want +got)")
	view[0].Text = "changed"
	assert.NotEqual(t, "changed", l.At(2).Text, "ModelView returned the log's own slice")
}

func TestVisibleOutOfRange(t *testing.T) {
	l := buildLog(t, "e e c1-1")
	for _, log := range []session.Log{l, sliceLog(all(l))} {
		for _, seq := range []int64{-1, 0, 4, 100} {
			assert.False(t, session.Visible(log, seq), "%T: Visible(%d) on a log of 3 = true", log, seq)
		}
	}
}

// Random logs: ModelView agrees with a brute-force reading of its
// definition, and Visible with ModelView, through the index and the scan.
func TestModelViewRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		n := 1 + rng.IntN(40)
		var tokens []string
		for seq := 1; seq <= n; seq++ {
			if seq > 1 && rng.IntN(4) == 0 {
				from := 1 + rng.IntN(seq-1)
				to := from + rng.IntN(seq-from)
				tokens = append(tokens, fmt.Sprintf("c%d-%d", from, to))
			} else {
				tokens = append(tokens, "e")
			}
		}
		spec := strings.Join(tokens, " ")
		l := buildLog(t, spec)
		evs := all(l)
		want := bruteView(evs)
		require.Empty(t, cmp.Diff(want, session.ModelView(l)), "iteration %d, log %q (-brute force +ModelView)", iter, spec)
		require.Empty(t, cmp.Diff(want, session.ModelView(sliceLog(evs))), "iteration %d, log %q, plain Log (-brute force +ModelView)", iter, spec)
		shown := map[int64]bool{}
		for _, e := range want {
			shown[e.Seq] = true
		}
		for seq := int64(1); seq <= int64(n); seq++ {
			require.Equal(t, shown[seq], session.Visible(l, seq), "iteration %d, log %q: Visible(%d)", iter, spec, seq)
			require.Equal(t, shown[seq], session.Visible(sliceLog(evs), seq), "iteration %d, log %q: Visible(%d) on a plain Log", iter, spec, seq)
		}
	}
}

// bruteView is ModelView's definition, read literally: each event belongs
// to the newest compaction covering it; a compaction appears at its first
// event; markers never appear in their own place.
func bruteView(evs []session.Event) []session.Event {
	owner := func(seq int64) (session.Event, bool) {
		for i := len(evs) - 1; i >= 0; i-- {
			if c := evs[i]; c.Type == session.Compaction && c.From <= seq && seq <= c.To {
				return c, true
			}
		}
		return session.Event{}, false
	}
	var view []session.Event
	shown := map[int64]bool{}
	for _, e := range evs {
		if c, ok := owner(e.Seq); ok {
			if !shown[c.Seq] {
				shown[c.Seq] = true
				view = append(view, c)
			}
			continue
		}
		if e.Type != session.Compaction {
			view = append(view, e)
		}
	}
	return view
}

// buildLog appends the events a spec describes to a memory session.
func buildLog(t testing.TB, spec string) session.Log {
	t.Helper()
	l := mustCreate(t, session.NewMemoryStore())
	for i, tok := range strings.Fields(spec) {
		e := session.Event{Type: session.Assistant, Text: fmt.Sprint("event ", i+1)}
		if span, ok := strings.CutPrefix(tok, "c"); ok {
			a, b, _ := strings.Cut(span, "-")
			from, _ := strconv.ParseInt(a, 10, 64)
			to, _ := strconv.ParseInt(b, 10, 64)
			e = session.Event{Type: session.Compaction, Text: "summary " + span, From: from, To: to}
		}
		mustAppend(t, l, e)
	}
	return l
}

func containsSeq(seqs []int64, seq int64) bool {
	for _, s := range seqs {
		if s == seq {
			return true
		}
	}
	return false
}

// sliceLog is a Log that is not this package's, so Visible and ModelView
// take their generic paths.
type sliceLog []session.Event

func (s sliceLog) ID() string { return "slice" }
func (s sliceLog) Append(context.Context, ...session.Event) ([]session.Event, error) {
	return nil, errors.New("read-only")
}
func (s sliceLog) Len() int               { return len(s) }
func (s sliceLog) At(i int) session.Event { return s[i] }
func (s sliceLog) Close() error           { return nil }
func (s sliceLog) Backward() iter.Seq[session.Event] {
	return func(yield func(session.Event) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(s[i]) {
				return
			}
		}
	}
}
