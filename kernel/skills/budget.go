package skills

import (
	"cmp"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/helios-agents/helios/kernel/contract"
)

// Defaults of the catalog budget's configuration keys.
const (
	// DefaultContextWindow is model.contextWindow's default, in tokens.
	DefaultContextWindow = 128000
	// CharsPerToken converts a context window in tokens to characters.
	CharsPerToken = 4
	// DefaultBudgetPercent is skills.catalog.budget's default: "2%" of the
	// context window.
	DefaultBudgetPercent = 2.0
	// DefaultToolsMax is skills.tools.max's default.
	DefaultToolsMax = 128
)

// PercentBudget converts a percentage of a context window (in tokens) to a
// budget in characters.
func PercentBudget(percent float64, contextWindow int) int {
	return int(math.Floor(percent / 100 * float64(contextWindow) * CharsPerToken))
}

// Budget bounds what the model sees of the skills (contract C13). The zero
// value bounds nothing.
type Budget struct {
	// Chars is the most characters (Unicode code points) the catalog message
	// may have: its sentence, the tags, the lines and the trailing note. Zero
	// or less: no limit. The frame itself is never cut, so a budget smaller
	// than the frame and its note sends the frame and the note alone.
	Chars int
	// ContextWindow is the model's context window in tokens. It only
	// expresses Chars as a percentage in warnings; zero shows none.
	ContextWindow int
	// Pinned names skills that come first, in this order, and keep their full
	// descriptions whenever their lines alone fit.
	Pinned []string
	// ToolsMax bounds the tools of ModeTools. Zero or less: no bound.
	ToolsMax int
	// Recent names the skills loaded recently in this work dir, most
	// recent first (the kernel reads them from its session store). They
	// come after pinned and project skills and before the rest.
	Recent []string
}

func (b Budget) equal(o Budget) bool {
	return b.Chars == o.Chars && b.ContextWindow == o.ContextWindow && b.ToolsMax == o.ToolsMax && slices.Equal(b.Pinned, o.Pinned) && slices.Equal(b.Recent, o.Recent)
}

// Frame is the fixed text around the skill lines of a budgeted catalog; it
// counts against the budget. MessageFrame is the catalog message's; another
// consumer of the same rule (an MCP tool description) brings its own.
type Frame struct {
	// Head comes before the lines and Tail after them.
	Head, Tail string
	// Empty is the whole text when no skill is visible.
	Empty string
	// Note is appended after Tail when skills are omitted: it says how many
	// and how to reach them.
	Note func(omitted int) string
	// NoteFirst puts the note before Head instead, for a consumer whose
	// reader may cut the text at a length (an MCP client cutting a tool
	// description) and must still learn that skills were left out.
	NoteFirst bool
}

// The catalog message's text lives in these files; a file's trailing
// newline is not part of the text (the head ends with one).
var (
	//go:embed catalog_head.md
	catalogHeadMD string
	//go:embed catalog_tail.md
	catalogTailMD string
	//go:embed catalog_empty.md
	catalogEmptyMD string
	//go:embed catalog_note.md
	catalogNoteMD string

	catalogHead  = strings.TrimRight(catalogHeadMD, "\n") + "\n"
	catalogTail  = strings.TrimRight(catalogTailMD, "\n")
	catalogEmpty = strings.TrimRight(catalogEmptyMD, "\n")
	catalogNote  = "\n" + strings.TrimRight(catalogNoteMD, "\n") // on its own line, after the tail
)

// MessageFrame is the frame of the catalog message the model receives.
func MessageFrame() Frame {
	return Frame{Head: catalogHead, Tail: catalogTail, Empty: catalogEmpty, Note: catalogOmittedNote}
}

func catalogOmittedNote(omitted int) string {
	return strings.ReplaceAll(catalogNote, "{omitted}", strconv.Itoa(omitted))
}

// BudgetSummary says what a budget did to the catalog. Its JSON is the
// summary `helios skills catalog --json` prints.
type BudgetSummary struct {
	// Budget is the budget applied: characters in catalog mode, tools in
	// tools mode; 0 means none.
	Budget int `json:"budget"`
	// Used is what the output takes: characters of the message in catalog
	// mode, tools in tools mode.
	Used int `json:"used"`
	// Total counts the skills the model may see; Included those it is shown,
	// Shortened those of them shown with a cut or no description.
	Total     int `json:"total"`
	Included  int `json:"included"`
	Shortened int `json:"shortened"`
	// Omitted names the skills left out, in catalog order.
	Omitted []string `json:"omitted"`
	// Listed says, for each skill shown, in catalog order, why it has its
	// place: "pinned", "project", "recent" (loaded recently in this work
	// dir) or "name" (the rest, by source then name).
	Listed []Listed `json:"listed"`
	// CharsCut is the characters cut from the shortened lines.
	CharsCut int `json:"-"`
}

// Listed is one skill shown and why it has its place in the order.
type Listed struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Why a skill has its place in the catalog order (Listed.Why).
const (
	WhyPinned  = "pinned"
	WhyProject = "project"
	WhyRecent  = "recent"
	WhyName    = "name"
)

// CatalogView is what the model sees of a catalog under a budget.
type CatalogView struct {
	// Mode is the mode the view was computed for.
	Mode Mode
	// Message is exactly the catalog message the model receives (catalog
	// mode); empty in tools mode, where no message is sent.
	Message string
	// Text is the lines: in catalog mode, those between the tags (empty when
	// no skill is visible); in tools mode, one "- name: description" line
	// per tool the model gets.
	Text string
	// Digest hashes Message (catalog mode) or Text (tools mode): what the
	// model sees, so a change it cannot see changes nothing.
	Digest string
	// Summary counts what was included, shortened and omitted.
	Summary BudgetSummary
	// Warnings: the budget's (when a skill was shortened or omitted) and
	// pinned names that are not in the catalog or hidden from the model.
	Warnings []contract.Warning
}

// Cut reports whether the budget shortened or omitted anything.
func (v CatalogView) Cut() bool { return v.Summary.Shortened > 0 || len(v.Summary.Omitted) > 0 }

// renderMemo memoizes a catalog's view for the last budget and mode asked, so
// a step where nothing changed renders nothing.
type renderMemo struct {
	mu     sync.Mutex
	ok     bool
	budget Budget
	mode   Mode
	view   CatalogView

	// indexOnce builds the catalog's search index at its first search.
	indexOnce sync.Once
	index     *searchIndex
}

// View returns what the model sees of c under b in mode: in catalog mode
// BudgetCatalog with the message frame, in tools mode the bounded tool
// list. A catalog served from the registry's cache computes it once per
// budget and mode.
func (c Catalog) View(b Budget, mode Mode) CatalogView {
	if c.rendered == nil {
		return view(c.Skills, b, mode)
	}
	m := c.rendered
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.ok || m.mode != mode || !m.budget.equal(b) {
		m.view = view(c.Skills, b, mode)
		m.budget, m.mode, m.ok = Budget{Chars: b.Chars, ContextWindow: b.ContextWindow, ToolsMax: b.ToolsMax, Pinned: slices.Clone(b.Pinned), Recent: slices.Clone(b.Recent)}, mode, true
	}
	return m.view
}

// Rendered returns the catalog text without a budget (RenderCatalog) and its
// TextDigest. What the model receives is View's budgeted message; this is
// for callers that want every skill's line.
func (c Catalog) Rendered() (text, digest string) {
	text = RenderCatalog(c.Skills)
	return text, TextDigest(text)
}

func view(all []Skill, b Budget, mode Mode) CatalogView {
	if mode == ModeTools {
		return toolsView(all, b)
	}
	return BudgetCatalog(all, b, MessageFrame())
}

// entry is one visible skill being budgeted.
type entry struct {
	s      *Skill
	pin    int // index in Budget.Pinned; len(Pinned) when not pinned
	pinned bool
	rank   int // project, recent, user, capability (see order)
	name   string
	nameW  int    // characters of the escaped name
	fullW  int    // characters of the escaped description of a full line
	line   int    // what its line costs; 0: omitted
	body   string // the description shown; "": the name alone
}

// desc is the collapsed description, not yet cut or escaped.
func (e *entry) desc() string { return collapse(e.s.Description) }

// full is the escaped description of a full line, cut at
// CatalogDescriptionLimit.
func (e *entry) full() string {
	return escapeMarkup(cutWords(e.desc(), CatalogDescriptionLimit, false))
}

// measure sets the name and its width. The description is measured only
// when needed (fullWidth): most skills of a large catalog are never shown
// with one.
func (e *entry) measure() {
	if plain(e.s.Name) {
		e.name, e.nameW = e.s.Name, len(e.s.Name)
	} else {
		e.name = escapeMarkup(collapse(e.s.Name))
		e.nameW = utf8.RuneCountInString(e.name)
	}
	e.fullW = -1
}

// fullWidth is the width of full(), measured without building it.
func (e *entry) fullWidth() int {
	if e.fullW < 0 {
		n, w := collapsedWidth(e.s.Description)
		if n > CatalogDescriptionLimit {
			w = utf8.RuneCountInString(e.full())
		}
		e.fullW = w
	}
	return e.fullW
}

// plain reports ASCII text that collapsing and escaping leave unchanged.
func plain(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '&', c == '<', c == '>', c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && s[i+1] == ' ':
			return false
		}
	}
	return true
}

// collapsedWidth returns the runes of collapse(s) and its escaped width,
// without building it.
func collapsedWidth(s string) (n, w int) {
	space, started := false, false
	for i := 0; i < len(s); {
		c := s[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if c == ' ' || c >= '\t' && c <= '\r' || c >= utf8.RuneSelf && unicode.IsSpace(r) {
			space = started
			continue
		}
		if space {
			n, w, space = n+1, w+1, false
		}
		started = true
		n++
		w += runeWidth(r, true)
	}
	return n, w
}

// Ranks after pinning: project skills, then recently loaded ones, then
// user and capability skills.
const (
	rankProject = iota
	rankRecent
	rankUser
	rankCapability
)

func sourceRank(src string) int {
	switch src {
	case SourceProject:
		return rankProject
	case SourceUser:
		return rankUser
	}
	return rankCapability
}

// why names the reason an entry has its place.
func (e *entry) why() string {
	switch {
	case e.pinned:
		return WhyPinned
	case e.rank == rankProject:
		return WhyProject
	case e.rank == rankRecent:
		return WhyRecent
	}
	return WhyName
}

// order returns the skills the model may see in catalog order: pinned (in
// the order of Budget.Pinned), then project skills, then those loaded
// recently (in the order of Budget.Recent, most recent first), then user
// and capability skills, then by name (code point); the remaining ties are
// broken by every other field, so any permutation of the input gives the
// same order. It also returns the warnings about pinned names.
func order(all []Skill, pinned, recent []string) ([]entry, []contract.Warning) {
	recentAt := make(map[string]int, len(recent))
	for i, n := range recent {
		if _, dup := recentAt[n]; !dup {
			recentAt[n] = i
		}
	}
	pinAt := make(map[string]int, len(pinned))
	for i, p := range pinned {
		if _, dup := pinAt[p]; !dup {
			pinAt[p] = i
		}
	}
	type key struct {
		pin, rank, recent int32
		s                 *Skill
	}
	keys := make([]key, 0, len(all))
	found := make(map[string]bool, len(pinAt))
	var warns []contract.Warning
	for i := range all {
		s := &all[i]
		pin, pinnedHere := pinAt[s.Name]
		if pinnedHere {
			if s.DisableModelInvocation {
				warns = append(warns, contract.Warning{Source: "config", Path: "skills.catalog.pinned",
					Message: fmt.Sprintf("pinned skill %q is hidden from the model (disable-model-invocation); pinning it has no effect", s.Name)})
			}
			found[s.Name] = true
		} else {
			pin = len(pinned)
		}
		if s.DisableModelInvocation {
			continue
		}
		rank, at := sourceRank(s.Source), 0
		if i, ok := recentAt[s.Name]; ok && rank != rankProject {
			rank, at = rankRecent, i
		}
		keys = append(keys, key{int32(pin), int32(rank), int32(at), s})
	}
	for _, p := range pinned {
		if !found[p] {
			found[p] = true
			warns = append(warns, contract.Warning{Source: "config", Path: "skills.catalog.pinned",
				Message: fmt.Sprintf("pinned skill %q is not in the catalog", p)})
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.pin != b.pin || a.rank != b.rank || a.recent != b.recent {
			return cmp.Or(
				cmp.Compare(a.pin, b.pin),
				cmp.Compare(a.rank, b.rank),
				cmp.Compare(a.recent, b.recent))
		}
		if c := strings.Compare(a.s.Name, b.s.Name); c != 0 {
			return c
		}
		return cmp.Or(
			strings.Compare(a.s.Source, b.s.Source),
			strings.Compare(a.s.Description, b.s.Description),
			strings.Compare(a.s.BaseDir, b.s.BaseDir),
			strings.Compare(a.s.File, b.s.File))
	})
	es := make([]entry, len(keys))
	for i, k := range keys {
		es[i] = entry{s: k.s, pin: int(k.pin), pinned: int(k.pin) < len(pinned), rank: int(k.rank)}
	}
	slices.SortStableFunc(warns, func(a, b contract.Warning) int { return strings.Compare(a.Message, b.Message) })
	return es, warns
}

// BudgetCatalog renders the skills the model may see within b.Chars, frame
// f included, by one deterministic rule (no usage history, and the same
// skills in any order give the same text). In catalog order (see Budget and
// order):
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
func BudgetCatalog(all []Skill, b Budget, f Frame) CatalogView {
	es, warns := order(all, b.Pinned, b.Recent)
	v := CatalogView{Mode: ModeCatalog, Summary: BudgetSummary{Budget: max(b.Chars, 0), Total: len(es), Omitted: []string{}, Listed: []Listed{}}}
	if len(es) == 0 {
		v.Message = f.Empty
		v.Summary.Used = utf8.RuneCountInString(f.Empty)
		v.Digest = TextDigest(v.Message)
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
		v.Summary.Listed = append(v.Summary.Listed, Listed{Name: e.s.Name, Why: e.why()})
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
	v.Digest = TextDigest(msg)
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
// e.body; e.line 0 is omitted) by the rule of BudgetCatalog.
func allocate(es []entry, b Budget, f Frame) {
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
	for npin < len(es) && es[npin].pin < len(b.Pinned) {
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
			e.body = escapeMarkup(cutWords(e.desc(), room, true))
		}
		e.line = nameLine(e)
		if e.body != "" {
			e.line += 2 + utf8.RuneCountInString(e.body)
		}
	}
}

// cutWords returns s when it fits in limit characters, else its longest
// prefix that ends at a word end and fits with "…" appended, plus "…".
// Characters are counted as escaped markup when escaped is set. A word end
// is a rune boundary before a space, or beside a Han, Hiragana or Katakana
// character (scripts written without spaces). When no word end fits, a
// shortened description (escaped) is dropped (""), while the fixed limit of
// a full line falls back to the last rune boundary that fits.
func cutWords(s string, limit int, escaped bool) string {
	if w := width(s, escaped); w <= limit {
		return s
	}
	best, lastRune := -1, -1
	w := 0
	var prev rune = -1
	for i, r := range s {
		if w+1 > limit {
			break
		}
		if prev >= 0 {
			lastRune = i
			if prev != ' ' && (r == ' ' || unbroken(prev) || unbroken(r)) {
				best = i
			}
		}
		w += runeWidth(r, escaped)
		prev = r
	}
	if best < 0 {
		if escaped || lastRune < 0 {
			return ""
		}
		best = lastRune
	}
	return strings.TrimRight(s[:best], " ") + "…"
}

// unbroken reports a character of a script written without spaces between
// words, where a line may break between any two characters.
func unbroken(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

func runeWidth(r rune, escaped bool) int {
	if escaped {
		switch r {
		case '&':
			return 5 // &amp;
		case '<', '>':
			return 4 // &lt; &gt;
		}
	}
	return 1
}

func width(s string, escaped bool) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r, escaped)
	}
	return w
}

// toolsView is the tools-mode view: the tools ToSkillToolsWithin gives the
// model, bounded by b.ToolsMax.
func toolsView(all []Skill, b Budget) CatalogView {
	included, whys, omitted, warns := boundTools(all, b)
	v := CatalogView{Mode: ModeTools, Summary: BudgetSummary{Budget: max(b.ToolsMax, 0), Used: len(included),
		Total: len(included) + len(omitted), Included: len(included), Omitted: []string{}, Listed: []Listed{}}}
	var text strings.Builder
	for i, s := range included {
		fmt.Fprintf(&text, "- %s: %s\n", s.Name, collapse(toolDescription(*s)))
		v.Summary.Listed = append(v.Summary.Listed, Listed{Name: s.Name, Why: whys[i]})
	}
	for _, s := range omitted {
		v.Summary.Omitted = append(v.Summary.Omitted, s.Name)
	}
	v.Text = text.String()
	v.Digest = TextDigest(v.Text)
	if len(omitted) > 0 {
		warns = append([]contract.Warning{toolsWarning(b, v.Summary)}, warns...)
	}
	v.Warnings = warns
	return v
}

// boundTools orders the skills of tools mode like the catalog and keeps the
// first b.ToolsMax whose names are valid tool names, with why each has its
// place. It returns the warnings about pinned names (not the invalid
// names: ToSkillToolsWithin reports those).
func boundTools(all []Skill, b Budget) (included []*Skill, whys []string, omitted []*Skill, warns []contract.Warning) {
	es, warns := order(all, b.Pinned, b.Recent)
	for _, e := range es {
		switch {
		case !ValidToolName(e.s.Name):
		case b.ToolsMax <= 0 || len(included) < b.ToolsMax:
			included = append(included, e.s)
			whys = append(whys, e.why())
		default:
			omitted = append(omitted, e.s)
		}
	}
	return included, whys, omitted, warns
}

// budgetWarning is the one warning a person gets when the catalog budget
// cut something: the budget, the counts, the characters cut, what was
// omitted, and the keys to change.
func budgetWarning(b Budget, s BudgetSummary) contract.Warning {
	var m strings.Builder
	fmt.Fprintf(&m, "the skills catalog was cut to fit its budget of %s characters", thousands(b.Chars))
	if b.ContextWindow > 0 {
		fmt.Fprintf(&m, " (%s%% of a %s-token context window)", percent(b.Chars, b.ContextWindow), thousands(b.ContextWindow))
	}
	fmt.Fprintf(&m, ": %s skills, %s listed (%s with a shortened description", thousands(s.Total), thousands(s.Included), thousands(s.Shortened))
	if s.Shortened > 0 {
		fmt.Fprintf(&m, ", %s characters cut on average", thousands((s.CharsCut+s.Shortened/2)/s.Shortened))
	}
	fmt.Fprintf(&m, "), %s omitted", thousands(len(s.Omitted)))
	if len(s.Omitted) > 0 {
		fmt.Fprintf(&m, ": %s; the model is told they exist and can load them by exact name", firstNames(s.Omitted))
	}
	m.WriteString(". Raise skills.catalog.budget (or model.contextWindow), or list the skills that matter in skills.catalog.pinned")
	return contract.Warning{Source: "config", Path: "skills.catalog.budget", Message: m.String()}
}

func toolsWarning(b Budget, s BudgetSummary) contract.Warning {
	msg := fmt.Sprintf("tools mode offers at most %s skill tools (skills.tools.max): %s skills, %s offered, %s omitted: %s. Raise skills.tools.max, or list the skills that matter in skills.catalog.pinned",
		thousands(b.ToolsMax), thousands(s.Total), thousands(s.Included), thousands(len(s.Omitted)), firstNames(s.Omitted))
	return contract.Warning{Source: "config", Path: "skills.tools.max", Message: msg}
}

// firstNames lists the first five names and "+K more".
func firstNames(names []string) string {
	n := min(5, len(names))
	out := strings.Join(names[:n], ", ")
	if k := len(names) - n; k > 0 {
		out += fmt.Sprintf(" +%s more", thousands(k))
	}
	return out
}

// percent is chars as a percentage of a context window (tokens × 4
// characters), to two decimals at most.
func percent(chars, contextWindow int) string {
	p := float64(chars) * 100 / (float64(contextWindow) * CharsPerToken)
	return strconv.FormatFloat(math.Round(p*100)/100, 'f', -1, 64)
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
