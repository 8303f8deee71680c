package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// entryKind is what a line of the conversation shows.
type entryKind int

const (
	noteEntry entryKind = iota
	userEntry
	answerEntry
	toolCallEntry
	toolResultEntry
	injectedEntry
	skillEntry
	errorEntry
	// subagentEntry is a subagent's progress, one line under its Agent
	// call, rewritten as it goes.
	subagentEntry
)

// entry is one item of the conversation view.
type entry struct {
	kind       entryKind
	name, text string
	// id is the tool call's ID (toolCallEntry, subagentEntry).
	id      string
	isError bool
	// injected: a skill load that was added to the session.
	injected bool
	// open: the answer is still streaming.
	open bool
	// cache is the entry rendered at cacheWidth ("" when stale).
	cache      string
	cacheWidth int
}

var (
	styleUser     = lipgloss.NewStyle().Bold(true)
	styleDim      = lipgloss.NewStyle().Faint(true)
	styleTool     = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	styleOK       = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	styleErr      = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleSkill    = lipgloss.NewStyle().Foreground(lipgloss.Color("5")).Bold(true)
	styleBanner   = lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)
	styleStatus   = lipgloss.NewStyle().Reverse(true)
	styleSelected = lipgloss.NewStyle().Reverse(true)
)

// maxPopupRows bounds the completion popup.
const maxPopupRows = 8

// skillPreviewLines is how much of a loaded skill the view shows.
const skillPreviewLines = 6

// View renders the UI on the alternate screen: banner, conversation,
// popup, input line, status line.
func (m *Model) View() tea.View {
	w, _ := m.size()
	var parts []string
	if b := m.renderBanner(w); b != "" {
		parts = append(parts, b)
	}
	parts = append(parts, m.conv.View())
	parts = append(parts, m.renderPopup(w)...)
	parts = append(parts, styleDim.Render(strings.Repeat("─", w)), m.input.View(), m.renderStatus(w))
	v := tea.NewView(strings.Join(parts, "\n"))
	v.AltScreen = true
	return v
}

// size is the terminal size, with a default until the first WindowSizeMsg.
func (m *Model) size() (int, int) {
	if m.width <= 0 || m.height <= 0 {
		return 80, 24
	}
	return m.width, m.height
}

// layout sizes the conversation to what the banner, popup, input and status
// leave, re-renders it when it changed, and keeps following the newest line
// unless the user scrolled up.
func (m *Model) layout() {
	w, h := m.size()
	m.input.SetWidth(max(1, w-lipgloss.Width(m.input.Prompt)-1))
	fixed := 3 + len(m.renderPopup(w))
	if b := m.renderBanner(w); b != "" {
		fixed += lipgloss.Height(b)
	}
	follow := m.conv.AtBottom()
	m.conv.SetWidth(w)
	m.conv.SetHeight(max(1, h-fixed))
	if m.dirty || m.renderedWidth != w {
		m.conv.SetContent(m.renderConversation(w))
		m.renderedWidth, m.dirty = w, false
	}
	if follow {
		m.conv.GotoBottom()
	}
}

func (m *Model) renderBanner(w int) string {
	var lines []string
	for _, n := range m.cfg.Notices {
		lines = append(lines, lipgloss.Wrap("⚠ "+n, w, ""))
	}
	if m.cfg.ModelErr != nil || m.cfg.OpenSession == nil {
		text := "⚠ " + noModelText(m.cfg.ModelErr, m.cfg.ConfigIgnored) + " Skills can still be browsed (/skills) and loaded (/skill:<name>); prompts need a model."
		lines = append(lines, lipgloss.Wrap(text, w, ""))
	}
	if len(lines) == 0 {
		return ""
	}
	return styleBanner.Render(strings.Join(lines, "\n"))
}

func (m *Model) renderConversation(w int) string {
	if len(m.entries) == 0 {
		return styleDim.Render(lipgloss.Wrap("Type a prompt, or / for commands. /help lists the commands and keys.", w, ""))
	}
	out := make([]string, 0, len(m.entries)*2)
	for i := range m.entries {
		e := &m.entries[i]
		if i > 0 && (e.kind == userEntry || e.kind == skillEntry) {
			out = append(out, "")
		}
		if e.cache == "" || e.cacheWidth != w {
			shown := *e
			if m.cfg.Redact != nil {
				shown.name, shown.text = m.cfg.Redact(e.name), m.cfg.Redact(e.text)
			}
			e.cache, e.cacheWidth = renderEntry(shown, w), w
		}
		out = append(out, e.cache)
	}
	return strings.Join(out, "\n")
}

// renderEntry renders one entry: prose wraps, tool traffic is one line each.
// What it shows comes from the model, tools, files and plugins: hidden
// characters are made visible first (package sanitize), so none acts on the
// terminal or hides text.
func renderEntry(e entry, w int) string {
	e.name, e.text = sanitize.Text(e.name), sanitize.Text(e.text)
	switch e.kind {
	case userEntry:
		return styleUser.Render(lipgloss.Wrap("› "+e.text, w, ""))
	case answerEntry:
		return lipgloss.Wrap(e.text, w, "")
	case toolCallEntry:
		return styleTool.Render(clip("→ "+e.name+" "+oneLine(e.text), w))
	case toolResultEntry:
		if e.isError {
			return styleErr.Render(clip("  ✗ error: "+oneLine(e.text), w))
		}
		n := strings.Count(strings.TrimRight(e.text, "\n"), "\n") + 1
		return styleOK.Render(clip(fmt.Sprintf("  ✓ %d line(s): %s", n, oneLine(e.text)), w))
	case injectedEntry:
		return styleDim.Render(clip("· "+oneLine(e.text), w))
	case subagentEntry:
		return styleDim.Render(clip("  ⋯ "+oneLine(e.text), w))
	case skillEntry:
		return renderSkill(e, w)
	case errorEntry:
		return styleErr.Render(lipgloss.Wrap(e.text, w, ""))
	default:
		return styleDim.Render(lipgloss.Wrap(e.text, w, ""))
	}
}

// renderSkill shows a loaded skill: a header and the start of its text.
func renderSkill(e entry, w int) string {
	lines := strings.Split(strings.TrimRight(e.text, "\n"), "\n")
	how := "loaded into the conversation"
	if !e.injected {
		how = "shown here only: no model"
	}
	out := []string{styleSkill.Render(clip(fmt.Sprintf("◆ /skill:%s %s (%d lines)", e.name, how, len(lines)), w))}
	for i, l := range lines {
		if i == skillPreviewLines {
			out = append(out, styleDim.Render(fmt.Sprintf("  … %d more lines", len(lines)-i)))
			break
		}
		out = append(out, styleDim.Render(clip("  "+l, w)))
	}
	return strings.Join(out, "\n")
}

// renderPopup renders the completion popup: a window of at most
// maxPopupRows around the highlight, each row a name and its description.
func (m *Model) renderPopup(w int) []string {
	if !m.popupVisible() {
		return nil
	}
	items := m.pop.items
	start := max(0, m.pop.sel-maxPopupRows+1)
	end := min(len(items), start+maxPopupRows)
	nameW := 0
	for _, s := range items[start:end] {
		nameW = max(nameW, min(28, ansi.StringWidth(sanitize.Text(s.name))))
	}
	rows := make([]string, 0, end-start+1)
	for i := start; i < end; i++ {
		s := items[i]
		desc := oneLine(sanitize.Text(s.desc))
		if s.hidden {
			desc += " (hidden from the model)"
		}
		mark := "  "
		if i == m.pop.sel {
			mark = "▸ "
		}
		name := clip(sanitize.Text(s.name), nameW)
		line := clip(mark+name+strings.Repeat(" ", nameW-ansi.StringWidth(name))+"  "+desc, w)
		if i == m.pop.sel {
			line = styleSelected.Render(line)
		}
		rows = append(rows, line)
	}
	if more := len(items) - (end - start); more > 0 {
		rows = append(rows, styleDim.Render(clip(fmt.Sprintf("  … %d more (↑/↓)", more), w)))
	}
	return rows
}

// renderStatus is the status line: model, skills, catalog state, tokens,
// activity, work dir. Too long for w, it is shortened step by step
// (statusSteps) so the tokens and the work dir stay visible: the model name
// first, then the middle of the work dir, then what is least needed.
func (m *Model) renderStatus(w int) string {
	p := statusParts{name: "helios", workDir: sanitize.Text(m.cfg.WorkDir)}
	p.workDirMin = ansi.StringWidth(p.workDir)
	if m.cfg.ConfigIgnored {
		p.ignored = "config ignored (untrusted)"
	}
	model := sanitize.Text(m.cfg.Model)
	if m.cfg.ModelErr != nil || m.cfg.OpenSession == nil {
		p.model = "no model"
	} else if model != "" {
		p.model = "model " + model
	}
	switch {
	case m.cat.applied == 0:
		p.skills = "skills …"
	case len(m.cat.skills) == 1:
		p.skills = "1 skill"
	default:
		p.skills = fmt.Sprintf("%d skills", len(m.cat.skills))
	}
	b := m.cat.budget
	if b != nil && (len(b.Omitted) > 0 || b.Shortened > 0) {
		p.budget = budgetStatus(*b)
	}
	switch {
	case m.cat.observed == 0:
		p.catalog = "catalog loading"
	case m.cat.complete:
		p.catalog = "catalog complete"
	default:
		p.catalog = "catalog incomplete"
	}
	if m.usage != (session.Usage{}) {
		p.tokens = usageStatus(m.usage)
	}
	switch m.busy {
	case inTurn:
		p.busy = "working… (Esc cancels)"
	case inLoad:
		p.busy = "loading skill…"
	}

	// The steps, in order; each shortens or drops one part.
	steps := []func(){
		func() {
			if strings.HasPrefix(p.model, "model ") && ansi.StringWidth(model) > statusModelMax {
				p.model = "model " + clip(model, statusModelMax)
			}
		},
		func() { p.workDirMin = min(p.workDirMin, statusWorkDirMin) },
		func() {
			if m.cat.complete && m.cat.observed > 0 {
				p.catalog = "" // the usual state; incomplete and loading stay
			}
		},
		func() {
			if p.budget != "" {
				p.budget = budgetShort(*b)
			}
		},
		func() {
			if p.tokens != "" {
				p.tokens = "tokens " + compact(m.usage.Input) + " in · " + compact(m.usage.Output) + " out"
			}
		},
		func() { p.name = "" },
		func() { p.model = "" },
		func() {
			if m.busy == inTurn {
				p.busy = "working…"
			}
		},
		func() {
			if p.ignored != "" {
				p.ignored = "config ignored"
			}
		},
		func() { p.workDirMin = min(p.workDirMin, statusWorkDirLeast) },
		func() { p.budget = "" },
		func() { p.skills = "" },
		func() {
			if p.tokens != "" {
				p.tokens = compact(m.usage.Input) + "/" + compact(m.usage.Output) + " tokens"
			}
		},
		func() { p.workDirMin = min(p.workDirMin, 1) },
	}
	line, ok := p.render(w)
	for i := 0; !ok && i < len(steps); i++ {
		steps[i]()
		line, ok = p.render(w)
	}
	line = clip(line, w)
	return styleStatus.Render(line + strings.Repeat(" ", max(0, w-ansi.StringWidth(line))))
}

// How far the status line shortens the model name and the work dir
// (cells): the model name first; the work dir to statusWorkDirMin, to
// statusWorkDirLeast when the less needed parts are gone, and to what is
// left of the line when nothing else can be dropped.
const (
	statusModelMax     = 16
	statusWorkDirMin   = 32
	statusWorkDirLeast = 12
)

// statusParts are the parts of the status line ("" for a part not shown).
type statusParts struct {
	name, ignored, model, skills, budget, catalog, tokens, busy string
	// workDir is last; its middle may be replaced by "…" down to workDirMin
	// cells.
	workDir    string
	workDirMin int
}

// render joins the parts, the work dir cut in the middle to what is left
// of w; ok is false when the line does not fit w even so.
func (p statusParts) render(w int) (line string, ok bool) {
	var parts []string
	for _, s := range []string{p.name, p.ignored, p.model, p.skills, p.budget, p.catalog, p.tokens, p.busy} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	line = " " + strings.Join(parts, " · ")
	if p.workDir == "" {
		return line, ansi.StringWidth(line) <= w
	}
	if len(parts) > 0 {
		line += " · "
	}
	room := w - ansi.StringWidth(line)
	wd := p.workDir
	if n := ansi.StringWidth(wd); n > room {
		if room < min(p.workDirMin, n) {
			return line + wd, false
		}
		wd = cutMiddle(wd, room)
	}
	return line + wd, true
}

// cutMiddle cuts s to w cells by replacing its middle with "…", keeping
// more of the end: of a path, the folder names nearest the work dir. Below
// statusWorkDirLeast cells only the end is kept.
func cutMiddle(s string, w int) string {
	n := ansi.StringWidth(s)
	if n <= w {
		return s
	}
	if w < 1 {
		return ""
	}
	head := (w - 1) / 3
	if w < statusWorkDirLeast {
		head = 0
	}
	tail := w - 1 - head
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, n-tail, "")
}

// usageStatus says what the session's model requests used: "tokens 12.3k
// in (92% cached) · 1.2k out". Cached is the share of the input read from
// the prompt cache.
func usageStatus(u session.Usage) string {
	s := "tokens " + compact(u.Input) + " in"
	if u.Input > 0 && u.CacheRead > 0 {
		s += fmt.Sprintf(" (%d%% cached)", u.CacheRead*100/u.Input)
	}
	return s + " · " + compact(u.Output) + " out"
}

// compact writes a count as 950, 12.3k or 4.5M.
func compact(n int) string {
	switch {
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 1_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	}
	return strconv.Itoa(n)
}

// budgetStatus says what the catalog budget cut, for the status line
// (`helios skills catalog` shows the details).
func budgetStatus(b catalog.BudgetSummary) string {
	if len(b.Omitted) > 0 {
		return fmt.Sprintf("budget: %d of %d skills shown, %d omitted", b.Included, b.Total, len(b.Omitted))
	}
	return fmt.Sprintf("budget: %d of %d descriptions shortened", b.Shortened, b.Total)
}

// budgetShort is budgetStatus for a narrow status line.
func budgetShort(b catalog.BudgetSummary) string {
	if len(b.Omitted) > 0 {
		return fmt.Sprintf("budget: %d omitted", len(b.Omitted))
	}
	return fmt.Sprintf("budget: %d shortened", b.Shortened)
}

// oneLine collapses whitespace, newlines included.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to w cells with an ellipsis.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}
