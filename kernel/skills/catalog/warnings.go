package catalog

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/internal/text"
)

// budgetWarning is the one warning a person gets when the catalog budget
// cut something: the budget, the counts, the characters cut, what was
// omitted, and the keys to change.
func budgetWarning(b skills.Budget, s BudgetSummary) contract.Warning {
	var m strings.Builder
	fmt.Fprintf(&m, "the skills catalog was cut to fit its budget of %s characters", text.Thousands(b.Chars))
	if b.ContextWindow > 0 {
		fmt.Fprintf(&m, " (%s%% of a %s-token context window)", percent(b.Chars, b.ContextWindow), text.Thousands(b.ContextWindow))
	}
	fmt.Fprintf(&m, ": %s skills, %s listed (%s with a shortened description", text.Thousands(s.Total), text.Thousands(s.Included), text.Thousands(s.Shortened))
	if s.Shortened > 0 {
		fmt.Fprintf(&m, ", %s characters cut on average", text.Thousands((s.CharsCut+s.Shortened/2)/s.Shortened))
	}
	fmt.Fprintf(&m, "), %s omitted", text.Thousands(len(s.Omitted)))
	if len(s.Omitted) > 0 {
		fmt.Fprintf(&m, ": %s; the model is told they exist and can load them by exact name", firstNames(s.Omitted))
	}
	m.WriteString(". Raise skills.catalog.budget (or model.contextWindow), or list the skills that matter in skills.catalog.pinned")
	return contract.Warning{Source: "config", Path: "skills.catalog.budget", Message: m.String()}
}

func toolsWarning(b skills.Budget, s BudgetSummary) contract.Warning {
	msg := fmt.Sprintf("tools mode offers at most %s skill tools (skills.tools.max): %s skills, %s offered, %s omitted: %s. Raise skills.tools.max, or list the skills that matter in skills.catalog.pinned",
		text.Thousands(b.ToolsMax), text.Thousands(s.Total), text.Thousands(s.Included), text.Thousands(len(s.Omitted)), firstNames(s.Omitted))
	return contract.Warning{Source: "config", Path: "skills.tools.max", Message: msg}
}

// firstNames lists the first five names and "+K more".
func firstNames(names []string) string {
	n := min(5, len(names))
	out := strings.Join(names[:n], ", ")
	if k := len(names) - n; k > 0 {
		out += fmt.Sprintf(" +%s more", text.Thousands(k))
	}
	return out
}

// percent is chars as a percentage of a context window (tokens × 4
// characters), to two decimals at most.
func percent(chars, contextWindow int) string {
	p := float64(chars) * 100 / (float64(contextWindow) * skills.CharsPerToken)
	return strconv.FormatFloat(math.Round(p*100)/100, 'f', -1, 64)
}
