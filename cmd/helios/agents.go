package main

import (
	"cmp"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/sanitize"
)

func agentsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "agents",
		Short: "Subagents: Markdown definitions in .helios/agents and .claude/agents that the Agent tool runs",
		Args:  args(cobra.NoArgs),
		RunE:  groupHelp,
	}
	c.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the subagents the model can start, project first, with what is wrong in their files",
		Long: "List the subagents the Agent tool offers: Markdown files in <work>/.helios/agents, <work>/.claude/agents,\n" +
			"~/.helios/agents, ~/.claude/agents and agents.dirs, in that order (the first of a name wins). The folders\n" +
			"are read again each time: a new file shows at once. Warnings name the file and the field.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				ctx := cmd.Context()
				defs, warns := k.Agents(ctx)
				tools, _ := k.Tools(ctx, k.Catalog(ctx), k.CatalogBudget())
				names := []string{kernel.AgentToolName}
				for _, t := range tools {
					names = append(names, t.Name)
				}
				out := agentsJSON{Agents: []agentJSON{}, Warnings: []string{}}
				for _, d := range defs {
					out.Agents = append(out.Agents, agentJSON{Name: d.Name, Description: d.Description, Source: d.Source, Path: d.Path,
						Tools: d.Tools, DisallowedTools: d.DisallowedTools, Skills: d.Skills, MCPServers: d.MCPServers,
						Model: d.Model, MaxTurns: d.MaxTurns, PermissionMode: d.PermissionMode})
					warns = append(warns, kernel.AgentScopeWarnings(d, names)...)
				}
				for _, w := range warns {
					out.Warnings = append(out.Warnings, w.String())
				}
				if g.json {
					return writeJSON(cmd.OutOrStdout(), out)
				}
				printAgents(cmd, out, warns)
				return nil
			})
		},
	})
	return c
}

// agentsJSON is the `agents list --json` contract.
type agentsJSON struct {
	Agents   []agentJSON `json:"agents"`
	Warnings []string    `json:"warnings"`
}

// agentJSON is one definition; an absent list is the parent's.
type agentJSON struct {
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	Source          string   `json:"source"`
	Path            string   `json:"path"`
	Tools           []string `json:"tools,omitempty"`
	DisallowedTools []string `json:"disallowedTools,omitempty"`
	Skills          []string `json:"skills,omitempty"`
	MCPServers      []string `json:"mcpServers,omitempty"`
	Model           string   `json:"model,omitempty"`
	MaxTurns        int      `json:"maxTurns,omitempty"`
	PermissionMode  string   `json:"permissionMode,omitempty"`
}

func printAgents(cmd *cobra.Command, out agentsJSON, warns []contract.Warning) {
	w := cmd.OutOrStdout()
	if len(out.Agents) == 0 {
		fmt.Fprintln(w, "No agents.")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSOURCE\tMODEL\tTOOLS\tSKILLS\tDESCRIPTION")
		for _, a := range out.Agents {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", shown(a.Name), a.Source, shown(cmp.Or(a.Model, "inherit")),
				shown(scopeList(a.Tools)), shown(scopeList(a.Skills)), shown(clip(strings.Join(strings.Fields(a.Description), " "), 60)))
		}
		tw.Flush()
	}
	for _, wn := range warns {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", shown(wn.String()))
	}
}

// shown makes hidden characters of file text visible for the terminal.
func shown(s string) string {
	out, _ := sanitize.Clean(s)
	return out
}

// scopeList shows a scope list: unset is the parent's ("all"), empty is
// none.
func scopeList(xs []string) string {
	switch {
	case xs == nil:
		return "all"
	case len(xs) == 0:
		return "none"
	}
	return strings.Join(xs, ",")
}
