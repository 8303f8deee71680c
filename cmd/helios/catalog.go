package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// catalogJSON is the `skills catalog --json` output: the message and the
// budget's summary.
type catalogJSON struct {
	Mode    string `json:"mode"`
	Message string `json:"message"`
	catalog.BudgetSummary
	Complete bool `json:"complete"`
}

func skillsCatalogCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "catalog",
		Short: "Print exactly the skills catalog message the model would receive now, then what its budget cut",
		Long: "Print exactly the catalog message the model would receive now (skills.catalog.budget applied), then a\n" +
			"summary: the budget, the characters used, and how many skills were included, shortened and omitted.\n" +
			"In tools mode, the skill tools the model would get (bounded by skills.tools.max).\n" +
			"The order: pinned skills, project skills, skills loaded recently in this work dir (from the session\n" +
			"store), then the rest by source and name.\n" +
			"--json prints {\"mode\", \"message\", \"budget\", \"used\", \"total\", \"included\", \"shortened\", \"omitted\",\n" +
			"\"listed\": [{\"name\", \"why\": \"pinned\"|\"project\"|\"recent\"|\"name\"}], \"complete\"}.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				cat := k.Catalog(cmd.Context())
				v := k.CatalogView(cat, k.SessionBudget(cmd.Context()))
				w := cmd.OutOrStdout()
				if g.json {
					return writeJSON(w, catalogJSON{Mode: v.Mode.String(), Message: v.Message, BudgetSummary: v.Summary, Complete: cat.Complete})
				}
				printCatalog(w, v, cat.Complete)
				return nil
			})
		},
	}
}

func printCatalog(w io.Writer, v catalog.View, complete bool) {
	s := v.Summary
	unit := "characters"
	if v.Mode == skills.ModeTools {
		unit = "tools"
		fmt.Fprintln(w, "Tools mode: no catalog message is sent; the model gets one tool per skill:")
		fmt.Fprint(w, sanitize.Text(v.Text))
	} else {
		fmt.Fprint(w, sanitize.Text(v.Message))
		if !strings.HasSuffix(v.Message, "\n") {
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	budget := "none"
	if s.Budget > 0 {
		budget = fmt.Sprintf("%d %s", s.Budget, unit)
	}
	fmt.Fprintf(w, "budget %s, used %d; %d skills: %d included (%d shortened), %d omitted\n", budget, s.Used, s.Total, s.Included, s.Shortened, len(s.Omitted))
	if len(s.Omitted) > 0 {
		fmt.Fprintf(w, "omitted: %s\n", sanitize.Text(strings.Join(s.Omitted, ", ")))
	}
	if !complete {
		fmt.Fprintln(w, "The catalog is INCOMPLETE: a source could not be read fully (`helios skills list` shows why); the model keeps the last complete one.")
	}
	for _, wa := range v.Warnings {
		fmt.Fprintf(w, "warning: %s\n", sanitize.Text(wa.String()))
	}
}
