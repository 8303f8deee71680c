package session

import (
	"cmp"
	"slices"
)

// ModelView returns the log as the model sees it: the events in log order,
// with compacted spans replaced by their summaries. Precisely:
//
//   - A Compaction event C covers the events with C.From <= Seq <= C.To,
//     compaction markers included.
//   - Each covered event belongs to the newest (highest Seq) compaction
//     covering it; so where spans overlap, the newest wins.
//   - A compaction's summary (the Compaction event itself, unchanged)
//     appears once, in the place of the first event it owns: where its
//     span began, unless a newer compaction took that part.
//   - A compaction that owns nothing (newer compactions cover its whole
//     span) does not appear, and no Compaction event appears at its own
//     position, after its span.
//   - Every other event appears as it is.
//
// For example, with C6 = [2,4] and C9 = [4,7]:
//
//	log:  1 2 3 4 5 C6 7 8 C9 10
//	view: 1 C6 C9 8 10
//
// C6 owns 2..3 (C9 took 4) and appears where its span began; C9 owns 4..7,
// C6's marker included. Had C9 been [1,7], the view would be "C9 8 10": C6
// would own nothing and not appear.
//
// The result is a new slice; the events' Meta and Input are shared with
// the log. ModelView reads the log once and does not lock it while it
// builds the view; events appended meanwhile are not in it.
func ModelView(l Log) []Event {
	evs := eventsOf(l)
	var comps []int // indexes in evs of the Compaction events
	for i, e := range evs {
		if e.Type == Compaction {
			comps = append(comps, i)
		}
	}
	view := make([]Event, 0, len(evs))
	if len(comps) == 0 {
		return append(view, evs...)
	}
	spans := make([]span, len(comps))
	for j, i := range comps {
		spans[j] = span{evs[i].Seq, evs[i].From, evs[i].To}
	}
	owned := ownership(spans)
	shown := make([]bool, len(comps))
	k := 0
	for _, e := range evs {
		for k < len(owned) && owned[k].to < e.Seq {
			k++
		}
		if k < len(owned) && owned[k].from <= e.Seq {
			if o := owned[k].owner; !shown[o] {
				shown[o] = true
				view = append(view, evs[comps[o]])
			}
			continue
		}
		if e.Type != Compaction {
			view = append(view, e)
		}
	}
	return view
}

// Visible reports whether the event with that seq is in ModelView(l): for
// an ordinary event, whether no compaction covers it; for a Compaction,
// whether it owns at least one event (see ModelView). It is false when the
// log holds no such seq.
//
// It does not build the view. On the logs of this package's stores it
// answers from an index of the compaction markers (cost: the number of
// compactions newer than seq); on any other Log it scans Backward down to
// seq, so the cost grows with the events appended after seq.
func Visible(l Log, seq int64) bool {
	if ix, ok := l.(indexedLog); ok {
		comps, n := ix.viewIndex()
		if seq < 1 || seq > n {
			return false
		}
		j, isComp := slices.BinarySearchFunc(comps, seq, func(c span, s int64) int { return cmp.Compare(c.seq, s) })
		if isComp {
			return ownsAny(comps[j], comps[j+1:])
		}
		return !covered(seq, comps[j:]) // only newer markers can cover seq
	}
	return visibleScan(l, seq)
}

// visibleScan is Visible for any Log. (A function of its own, so that the
// variables its loop body captures do not escape in Visible's fast path.)
func visibleScan(l Log, seq int64) bool {
	var newer []span
	for e := range l.Backward() {
		switch {
		case e.Seq > seq:
			if e.Type == Compaction {
				newer = append(newer, span{e.Seq, e.From, e.To})
			}
		case e.Seq == seq && e.Type == Compaction:
			return ownsAny(span{e.Seq, e.From, e.To}, newer)
		case e.Seq == seq:
			return !covered(seq, newer)
		default:
			return false
		}
	}
	return false
}

// indexedLog is implemented by this package's Logs: the compaction markers
// in log order, and n such that the log holds exactly the Seqs 1..n.
type indexedLog interface {
	viewIndex() (comps []span, n int64)
}

// eventsOf returns the log's events in order, without copying them when
// the log is one of this package's.
func eventsOf(l Log) []Event {
	if h, ok := l.(*handle); ok {
		return h.c.snapshot()
	}
	n := l.Len()
	evs := make([]Event, n)
	for i := range n {
		evs[i] = l.At(i)
	}
	return evs
}

// owned is a run of Seqs [from, to] that one compaction owns.
type owned struct {
	from, to int64
	owner    int // index in the spans given to ownership
}

// ownership splits the spans (in log order) into the disjoint runs each
// owns, the newest claiming first; the result is sorted by from.
func ownership(spans []span) []owned {
	var runs []owned
	for j := len(spans) - 1; j >= 0; j-- {
		for _, r := range free(spans[j].from, spans[j].to, runs) {
			r.owner = j
			i, _ := slices.BinarySearchFunc(runs, r.from, func(o owned, f int64) int { return cmp.Compare(o.from, f) })
			runs = slices.Insert(runs, i, r)
		}
	}
	return runs
}

// free returns the parts of [from, to] that no run in taken (sorted,
// disjoint) holds.
func free(from, to int64, taken []owned) []owned {
	if from > to {
		return nil
	}
	var out []owned
	cur := from
	for _, t := range taken {
		if t.to < cur {
			continue
		}
		if t.from > to {
			break
		}
		if t.from > cur {
			out = append(out, owned{from: cur, to: t.from - 1})
		}
		cur = t.to + 1
		if cur > to {
			return out
		}
	}
	return append(out, owned{from: cur, to: to})
}

// ownsAny reports whether c's span keeps a Seq that none of the newer
// compactions covers.
func ownsAny(c span, newer []span) bool {
	var over []span
	for _, d := range newer {
		if d.to >= c.from && d.from <= c.to {
			over = append(over, d)
		}
	}
	slices.SortFunc(over, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	cur := c.from
	for _, d := range over {
		if d.from > cur {
			return true
		}
		cur = max(cur, d.to+1)
		if cur > c.to {
			return false
		}
	}
	return cur <= c.to
}

func covered(seq int64, spans []span) bool {
	for _, s := range spans {
		if s.from <= seq && seq <= s.to {
			return true
		}
	}
	return false
}
