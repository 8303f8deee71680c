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
)

// entry is one item of the conversation view.
type entry struct {
	kind       entryKind
	name, text string
	isError    bool
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
		text := "⚠ " + noModelText(m.cfg.ModelErr) + " Skills can still be browsed (/skills) and loaded (/skill:<name>); prompts need a model."
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

// renderStatus is the status line: model, skills, catalog state, activity,
// work dir (cut first when the line is too long).
func (m *Model) renderStatus(w int) string {
	parts := []string{"helios"}
	if m.cfg.ConfigIgnored {
		parts = append(parts, "config ignored (untrusted)")
	}
	if m.cfg.ModelErr != nil || m.cfg.OpenSession == nil {
		parts = append(parts, "no model")
	} else if m.cfg.Model != "" {
		parts = append(parts, "model "+m.cfg.Model)
	}
	switch {
	case m.cat.applied == 0:
		parts = append(parts, "skills …")
	case len(m.cat.skills) == 1:
		parts = append(parts, "1 skill")
	default:
		parts = append(parts, fmt.Sprintf("%d skills", len(m.cat.skills)))
	}
	if b := m.cat.budget; b != nil && (len(b.Omitted) > 0 || b.Shortened > 0) {
		parts = append(parts, budgetStatus(*b))
	}
	switch {
	case m.cat.observed == 0:
		parts = append(parts, "catalog loading")
	case m.cat.complete:
		parts = append(parts, "catalog complete")
	default:
		parts = append(parts, "catalog incomplete")
	}
	if m.usage != (session.Usage{}) {
		parts = append(parts, usageStatus(m.usage))
	}
	switch m.busy {
	case inTurn:
		parts = append(parts, "working… (Esc cancels)")
	case inLoad:
		parts = append(parts, "loading skill…")
	}
	if m.cfg.WorkDir != "" {
		parts = append(parts, m.cfg.WorkDir)
	}
	line := clip(" "+sanitize.Text(strings.Join(parts, " · ")), w)
	return styleStatus.Render(line + strings.Repeat(" ", max(0, w-ansi.StringWidth(line))))
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

// oneLine collapses whitespace, newlines included.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to w cells with an ellipsis.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}
