package sessiontest

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// testListParent: a session whose first user message names a parent
// session (a subagent's child) lists that parent in Info.Parent, open or
// closed; a later message's meta does not count.
func testListParent(t *testing.T, s session.Store) {
	top := create(t, s)
	mustAppend(t, top, session.Event{Type: session.User, Text: "top", Meta: map[string]string{"other": "x"}},
		session.Event{Type: session.User, Text: "again", Meta: map[string]string{session.MetaParentSession: "not-the-first"}})
	child := create(t, s)
	mustAppend(t, child, session.Event{Type: session.User, Text: "the task", Meta: map[string]string{session.MetaParentSession: top.ID()}},
		session.Event{Type: session.Assistant, Text: "done"})
	check := func(when string) {
		infos := list(t, s)
		assert.Empty(t, find(t, infos, top.ID()).Parent, "%s: Info of the top session", when)
		assert.Equal(t, top.ID(), find(t, infos, child.ID()).Parent, "%s: Info of the child names its parent", when)
	}
	check("open")
	closeLog(t, top)
	closeLog(t, child)
	check("closed")
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
