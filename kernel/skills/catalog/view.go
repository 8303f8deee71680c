package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/internal/text"
)

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

// Listed is one skill shown and why it has its place in the order
// (skills.Placed.Why).
type Listed struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// View is what the model sees of a catalog under a budget.
type View struct {
	// Mode is the mode the view was computed for.
	Mode skills.Mode
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
func (v View) Cut() bool { return v.Summary.Shortened > 0 || len(v.Summary.Omitted) > 0 }

// ViewOf returns what the model sees of c under b in mode: in catalog mode
// Render with the message frame, in tools mode the bounded tool list.
func ViewOf(c skills.Catalog, b skills.Budget, mode skills.Mode) View {
	all := c.Skills
	if mode == skills.ModeTools {
		return toolsView(all, b)
	}
	return Render(all, b, MessageFrame())
}

// toolsView is the tools-mode view: the tools skills.ToSkillTools gives
// the model, bounded by b.ToolsMax.
func toolsView(all []skills.Skill, b skills.Budget) View {
	included, omitted, warns := skills.ToolSkills(all, b)
	v := View{Mode: skills.ModeTools, Summary: BudgetSummary{Budget: max(b.ToolsMax, 0), Used: len(included),
		Total: len(included) + len(omitted), Included: len(included), Omitted: []string{}, Listed: []Listed{}}}
	var lines strings.Builder
	for _, p := range included {
		// The tool's description: the author's, markup escaped.
		fmt.Fprintf(&lines, "- %s: %s\n", p.Skill.Name, text.Collapse(text.EscapeMarkup(p.Skill.Description)))
		v.Summary.Listed = append(v.Summary.Listed, Listed{Name: p.Skill.Name, Why: p.Why()})
	}
	for _, p := range omitted {
		v.Summary.Omitted = append(v.Summary.Omitted, p.Skill.Name)
	}
	v.Text = lines.String()
	v.Digest = textDigest(v.Text)
	if len(omitted) > 0 {
		warns = append([]contract.Warning{toolsWarning(b, v.Summary)}, warns...)
	}
	v.Warnings = warns
	return v
}

// textDigest hashes what the model sees: the digest the kernel's catalog
// messages carry (DigestKey), so whoever reads a session log can tell which
// catalog a message published.
func textDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
