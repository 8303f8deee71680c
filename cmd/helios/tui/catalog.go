package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// skillPrefix starts a skill load in the input line.
const skillPrefix = "/skill:"

// catalogState is the skill catalog as the UI holds it: state, never
// history. Fetches are numbered in the order they start; results may come
// back in any order.
type catalogState struct {
	// requested is the number of the newest fetch started.
	requested uint64
	// applied is the number of the fetch whose catalog the completions come
	// from (0: none yet).
	applied uint64
	// observed is the number of the newest result received, complete or
	// not, and complete says whether it was (the status line shows it).
	observed uint64
	complete bool
	// skills is the applied catalog, by name: what /skill: completes and
	// /skills lists.
	skills   []skills.Skill
	warnings int
	// budget is what the catalog budget did to the applied catalog (nil:
	// the kernel cannot say); budgetSaid is what was cut when the
	// conversation was last told (budgetCut), so each change is told once.
	budget     *catalog.BudgetSummary
	budgetSaid string
}

// fetchCatalog starts a fetch numbered one past the newest.
func (m *Model) fetchCatalog() tea.Cmd {
	m.cat.requested++
	return m.rt.fetch(m.cat.requested)
}

// applyCatalog applies a fetch's result if it is the newest complete one.
func (m *Model) applyCatalog(msg catalogMsg) {
	if msg.seq > m.cat.observed {
		m.cat.observed, m.cat.complete = msg.seq, msg.cat.Complete
	}
	if !msg.cat.Complete {
		// A transient read error is no proof that skills are gone: keep the
		// last complete completions until a complete observation succeeds.
		return
	}
	if msg.seq <= m.cat.applied {
		// An older fetch finished after a newer one: its catalog is stale.
		return
	}
	m.cat.applied = msg.seq
	m.cat.skills = byName(msg.cat.Skills)
	m.cat.warnings = len(msg.cat.Warnings)
	m.cat.budget = nil
	if msg.view != nil {
		m.cat.budget = &msg.view.Summary
		m.cat.warnings += len(msg.view.Warnings)
		m.tellBudget(*msg.view)
	}
	// Only the suggestions follow the new catalog; the draft is the user's.
	m.refreshSuggestions()
}

// tellBudget shows the catalog budget's warnings in the conversation once
// per change of what is cut (the log of a chat), never at every fetch: a
// catalog change that leaves out the same skills, and shortens
// descriptions or not as before, says nothing again (the status line keeps
// the live counts).
func (m *Model) tellBudget(v catalog.View) {
	said := budgetCut(v)
	if said == m.cat.budgetSaid {
		return
	}
	m.cat.budgetSaid = said
	if said == "" {
		return
	}
	var b strings.Builder
	b.WriteString("Skills catalog:")
	for _, w := range v.Warnings {
		b.WriteString("\n  ")
		b.WriteString(w.Message)
		b.WriteString(" (")
		b.WriteString(w.Path)
		b.WriteString(")")
	}
	m.add(entry{kind: noteEntry, text: b.String()})
}

// budgetCut says what the budget cut in v, "" for nothing: the skills
// left out (in any order), whether descriptions were shortened, and the
// view's other warnings (a pinned name not in the catalog). The budget's
// own message is not part of it: its counts change with every skill added
// or edited.
func budgetCut(v catalog.View) string {
	var b strings.Builder
	if len(v.Summary.Omitted) > 0 {
		b.WriteString("omitted:")
		for _, n := range slices.Sorted(slices.Values(v.Summary.Omitted)) {
			b.WriteString(" ")
			b.WriteString(n)
		}
		b.WriteString("\n")
	}
	if v.Summary.Shortened > 0 {
		b.WriteString("descriptions shortened\n")
	}
	for _, w := range v.Warnings {
		if w.Path == budgetPath || w.Path == toolsMaxPath {
			continue
		}
		b.WriteString(w.Path)
		b.WriteString(": ")
		b.WriteString(w.Message)
		b.WriteString("\n")
	}
	return b.String()
}

// The config keys the budget's own warning names (package catalog).
const (
	budgetPath   = "skills.catalog.budget"
	toolsMaxPath = "skills.tools.max"
)

// byName returns the skills sorted by name (code point), for completion.
func byName(in []skills.Skill) []skills.Skill {
	out := slices.Clone(in)
	slices.SortStableFunc(out, func(a, b skills.Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// suggestion is one row of the completion popup.
type suggestion struct {
	// value is what the draft becomes when the suggestion is taken.
	value      string
	name, desc string
	skill      bool
	// hidden: a skill the model does not see; a person may still load it.
	hidden bool
}

// popup is the completion popup for the current draft.
type popup struct {
	items []suggestion
	sel   int
	// hiddenFor is the draft Esc closed the popup for; typing reopens it.
	hiddenFor string
}

func (p *popup) selected() (suggestion, bool) {
	if p.sel < 0 || p.sel >= len(p.items) {
		return suggestion{}, false
	}
	return p.items[p.sel], true
}

// move moves the highlight by d, wrapping around.
func (p *popup) move(d int) {
	if n := len(p.items); n > 0 {
		p.sel = ((p.sel+d)%n + n) % n
	}
}

func (m *Model) popupVisible() bool {
	return len(m.pop.items) > 0 && m.input.Value() != m.pop.hiddenFor
}

// refreshSuggestions recomputes the popup for the current draft, keeping
// the highlighted suggestion when it is still there. It reads the draft and
// never changes it.
func (m *Model) refreshSuggestions() {
	prev, had := m.pop.selected()
	draft := m.input.Value()
	m.pop.items = append(suggest(draft, m.cat.skills), slashSuggestions(draft, m.listCommands(draft))...)
	m.pop.sel = 0
	if had {
		if i := slices.IndexFunc(m.pop.items, func(s suggestion) bool { return s.value == prev.value }); i >= 0 {
			m.pop.sel = i
		}
	}
}

// commands are the slash commands the popup offers for a draft starting
// with "/".
var commands = []suggestion{
	{value: "/help", name: "/help", desc: "commands and keys"},
	{value: "/quit", name: "/quit", desc: "leave the UI"},
	{value: skillPrefix, name: "/skill:<name>", desc: "load a skill into the conversation"},
	{value: "/skills", name: "/skills", desc: "list the skill catalog"},
}

// suggest returns the completions of a draft: the skills whose name holds
// what follows "/skill:" anywhere (case-insensitively), those it starts
// first, each group by name; or the commands a draft of one slash word
// starts.
func suggest(draft string, cat []skills.Skill) []suggestion {
	if strings.HasPrefix(draft, skillPrefix) {
		typed := strings.ToLower(draft[len(skillPrefix):])
		if strings.ContainsAny(typed, " \t\n") {
			return nil
		}
		var prefixed, inside []suggestion
		for _, s := range cat {
			name := strings.ToLower(s.Name)
			sg := suggestion{value: skillPrefix + s.Name, name: s.Name, desc: s.Description, skill: true, hidden: s.DisableModelInvocation}
			switch {
			case strings.HasPrefix(name, typed):
				prefixed = append(prefixed, sg)
			case strings.Contains(name, typed):
				inside = append(inside, sg)
			}
		}
		return append(prefixed, inside...)
	}
	if !strings.HasPrefix(draft, "/") || strings.ContainsAny(draft, " \t\n") {
		return nil
	}
	var out []suggestion
	for _, c := range commands {
		if strings.HasPrefix(c.value, draft) {
			out = append(out, c)
		}
	}
	return out
}

// listSkills answers /skills with the applied catalog.
func (m *Model) listSkills() {
	if m.cat.applied == 0 {
		text := "The skill catalog is still being read."
		if m.cat.observed > 0 {
			text = "No complete skill catalog yet: a skill folder could not be read fully. It is read again at the next change."
		}
		m.add(entry{kind: noteEntry, text: text})
		return
	}
	var b strings.Builder
	switch n := len(m.cat.skills); n {
	case 0:
		b.WriteString("No skills.")
	case 1:
		b.WriteString("1 skill:")
	default:
		fmt.Fprintf(&b, "%d skills:", n)
	}
	if !m.cat.complete {
		b.WriteString(" (the last complete catalog: the newest read was incomplete)")
	}
	for _, s := range m.cat.skills {
		fmt.Fprintf(&b, "\n  %s — %s [%s]", s.Name, oneLine(s.Description), s.Source)
		if s.DisableModelInvocation {
			b.WriteString(" (hidden from the model)")
		}
	}
	if m.cat.warnings > 0 {
		fmt.Fprintf(&b, "\n%d warning(s); `helios skills list` shows them.", m.cat.warnings)
	}
	m.add(entry{kind: noteEntry, text: b.String()})
}
