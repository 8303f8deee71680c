package catalog

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/internal/text"
)

// descriptionLimit is where a description is cut in a full catalog line:
// the spec's limit, so a description within the spec is shown whole
// whenever the budget allows; a budget that cannot hold the full lines
// shortens them (Render).
const descriptionLimit = 1024

// entry is one visible skill being budgeted.
type entry struct {
	s      *skills.Skill
	placed skills.Placed
	name   string
	nameW  int    // characters of the escaped name
	fullW  int    // characters of the escaped description of a full line
	line   int    // what its line costs; 0: omitted
	body   string // the description shown; "": the name alone
}

// desc is the collapsed description, not yet cut or escaped.
func (e *entry) desc() string { return text.Collapse(e.s.Description) }

// full is the escaped description of a full line, cut at
// descriptionLimit.
func (e *entry) full() string {
	return text.EscapeMarkup(cutWords(e.desc(), descriptionLimit, false))
}

// measure sets the name and its width. The description is measured only
// when needed (fullWidth): most skills of a large catalog are never shown
// with one.
func (e *entry) measure() {
	if plain(e.s.Name) {
		e.name, e.nameW = e.s.Name, len(e.s.Name)
	} else {
		e.name = text.EscapeMarkup(text.Collapse(e.s.Name))
		e.nameW = utf8.RuneCountInString(e.name)
	}
	e.fullW = -1
}

// fullWidth is the width of full(), measured without building it.
func (e *entry) fullWidth() int {
	if e.fullW < 0 {
		n, w := collapsedWidth(e.s.Description)
		if n > descriptionLimit {
			w = utf8.RuneCountInString(e.full())
		}
		e.fullW = w
	}
	return e.fullW
}

// Render renders the skills the model may see within b.Chars, frame
// f included, by one deterministic rule (no usage history, and the same
// skills in any order give the same text). In catalog order (skills.Order):
//
//  1. everything fits: full lines;
//  2. pinned skills keep their full lines whenever those lines alone fit
//     (with the note, if the rest cannot all be named);
//  3. the name-only lines of the rest fit: the characters left are shared
//     among their descriptions round-robin (a description shorter than its
//     share releases the rest to longer ones), each cut on a rune boundary
//     at a word end with "…" (no word fits: the name alone);
//  4. otherwise: name-only lines in order until the budget is spent; the
//     rest are omitted and f.Note says how many.
//
// Characters are Unicode code points of the rendered text (after escaping).
func Render(all []skills.Skill, b skills.Budget, f Frame) View {
	placed, warns := skills.Order(all, b)
	es := make([]entry, len(placed))
	for i, p := range placed {
		es[i] = entry{s: p.Skill, placed: p}
	}
	v := View{Mode: skills.ModeCatalog, Summary: BudgetSummary{Budget: max(b.Chars, 0), Total: len(es), Omitted: []string{}, Listed: []Listed{}}}
	if len(es) == 0 {
		v.Message = f.Empty
		v.Summary.Used = utf8.RuneCountInString(f.Empty)
		v.Digest = textDigest(v.Message)
		v.Warnings = warns
		return v
	}
	for i := range es {
		es[i].measure()
	}
	allocate(es, b, f)

	omitted := 0
	for i := range es {
		if es[i].line == 0 {
			omitted++
		}
	}
	v.Summary.Omitted = make([]string, 0, omitted)
	var text strings.Builder
	text.Grow(max(b.Chars, 0) + 1024) // the lines fit the budget: one allocation
	included, shortened, cutChars := 0, 0, 0
	for i := range es {
		e := &es[i]
		if e.line == 0 {
			v.Summary.Omitted = append(v.Summary.Omitted, e.s.Name)
			continue
		}
		included++
		v.Summary.Listed = append(v.Summary.Listed, Listed{Name: e.s.Name, Why: e.placed.Why()})
		if full := fullLine(e); e.line < full {
			shortened++
			cutChars += full - e.line
		}
		text.WriteString("- ")
		text.WriteString(e.name)
		if e.body != "" {
			text.WriteString(": ")
			text.WriteString(e.body)
		}
		text.WriteByte('\n')
	}
	v.Text = text.String()
	msg := f.Head + v.Text + f.Tail
	if n := len(v.Summary.Omitted); n > 0 && f.Note != nil {
		if f.NoteFirst {
			msg = f.Note(n) + msg
		} else {
			msg += f.Note(n)
		}
	}
	v.Message = msg
	v.Digest = textDigest(msg)
	v.Summary.Used = utf8.RuneCountInString(msg)
	v.Summary.Included, v.Summary.Shortened, v.Summary.CharsCut = included, shortened, cutChars
	if v.Cut() {
		warns = append([]contract.Warning{budgetWarning(b, v.Summary)}, warns...)
	}
	v.Warnings = warns
	return v
}

// fullLine is what e's full line costs: "- name: description\n".
func fullLine(e *entry) int {
	w := e.fullWidth()
	if w == 0 {
		return nameLine(e)
	}
	return 2 + e.nameW + 2 + w + 1
}

// nameLine is what e's name-only line costs: "- name\n".
func nameLine(e *entry) int { return 2 + e.nameW + 1 }

// allocate decides each entry's line (its cost in e.line, its description in
// e.body; e.line 0 is omitted) by the rule of Render.
func allocate(es []entry, b skills.Budget, f Frame) {
	setFull := func(e *entry) { e.line, e.body = fullLine(e), e.full() }
	setName := func(e *entry) { e.line, e.body = nameLine(e), "" }
	noteW := func(k int) int {
		if k == 0 || f.Note == nil {
			return 0
		}
		return utf8.RuneCountInString(f.Note(k))
	}
	frame := utf8.RuneCountInString(f.Head) + utf8.RuneCountInString(f.Tail)
	sumName := 0
	for i := range es {
		sumName += nameLine(&es[i])
	}
	sumFull := sumName // a lower bound, enough when even the names do not fit
	if b.Chars <= 0 || frame+sumName <= b.Chars {
		sumFull = 0
		for i := range es {
			sumFull += fullLine(&es[i])
		}
	}
	if b.Chars <= 0 || frame+sumFull <= b.Chars {
		for i := range es {
			setFull(&es[i])
		}
		return
	}

	// Pinned skills lead the order; they keep full lines when those fit
	// together with the frame, and the note if the rest cannot all be named.
	npin := 0
	for npin < len(es) && es[npin].placed.Pinned() {
		npin++
	}
	rest, avail := es, b.Chars-frame
	if npin > 0 && npin < len(es) {
		pinFull, restName := 0, 0
		for i := range es[:npin] {
			pinFull += fullLine(&es[i])
		}
		for i := range es[npin:] {
			restName += nameLine(&es[npin+i])
		}
		if base := frame + pinFull; base+restName <= b.Chars || base+noteW(len(es)-npin) <= b.Chars {
			for i := range es[:npin] {
				setFull(&es[i])
			}
			rest, avail = es[npin:], b.Chars-base
		}
	}

	restName := 0
	for i := range rest {
		restName += nameLine(&rest[i])
	}
	if restName <= avail {
		shorten(rest, avail-restName)
		return
	}
	used := 0
	for i := range rest {
		e := &rest[i]
		if used+nameLine(e)+noteW(len(rest)-i-1) > avail {
			break
		}
		setName(e)
		used += e.line
	}
}

// shorten shares chars among the descriptions of es, whose name-only lines
// are already paid for: max-min fair (round-robin) allocation, so a
// description shorter than its share gives the rest to longer ones; what
// does not divide evenly goes to the earliest in catalog order.
func shorten(es []entry, chars int) {
	demand := func(e *entry) int { return fullLine(e) - nameLine(e) } // ": description"
	idx := make([]int, len(es))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Or(cmp.Compare(demand(&es[a]), demand(&es[b])), cmp.Compare(a, b)) })
	alloc := make([]int, len(es))
	left := len(es)
	for j, i := range idx {
		share := chars / left
		if d := demand(&es[i]); d <= share {
			alloc[i] = d
			chars -= d
			left--
			continue
		}
		rest := slices.Clone(idx[j:])
		slices.Sort(rest)
		extra := chars - share*left
		for k, i := range rest {
			alloc[i] = share
			if k < extra {
				alloc[i]++
			}
		}
		break
	}
	for i := range es {
		e := &es[i]
		if alloc[i] >= demand(e) {
			e.line, e.body = fullLine(e), e.full()
			continue
		}
		e.body = ""
		if room := alloc[i] - 2; room > 1 { // ": " then at least a character and "…"
			e.body = text.EscapeMarkup(cutWords(e.desc(), room, true))
		}
		e.line = nameLine(e)
		if e.body != "" {
			e.line += 2 + utf8.RuneCountInString(e.body)
		}
	}
}
