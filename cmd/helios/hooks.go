package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/sanitize"
)

func hooksCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "hooks",
		Short: "Inspect hook mount points",
		Args:  args(cobra.NoArgs),
		RunE:  groupHelp,
	}
	c.AddCommand(&cobra.Command{
		Use:   "describe",
		Short: "Show every mount point, its kind and its handlers in dispatch order",
		Long: "Show every mount point, its kind and its handlers in dispatch order, then the config's\n" +
			"command hooks (timeout, shell, async, once, statusMessage) and the events it names that\n" +
			"Helios does not run (their hooks are ignored).",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.readConfig()
			if err != nil {
				return err
			}
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				points, err := k.DescribeHooks()
				if err != nil {
					return err
				}
				commands, notRun := cmdhooks.Describe(c.cfg.Hooks), append([]string{}, cmdhooks.Unknown(c.cfg.Hooks)...)
				if g.json {
					return writeJSON(cmd.OutOrStdout(), struct {
						Points       []hooks.PointInfo `json:"points"`
						CommandHooks []cmdhooks.Info   `json:"commandHooks"`
						EventsNotRun []string          `json:"eventsNotRun"`
					}{points, commands, notRun})
				}
				printHooks(cmd.OutOrStdout(), points)
				printCommandHooks(cmd.OutOrStdout(), commands, notRun)
				return nil
			})
		},
	})
	return c
}

func printHooks(w io.Writer, points []hooks.PointInfo) {
	for _, p := range points {
		fmt.Fprintf(w, "%s (%s, %s scope)\n", p.Name, p.Kind, p.Scope)
		if len(p.Handlers) == 0 {
			fmt.Fprintln(w, "  (no handlers)")
		}
		for i, h := range p.Handlers {
			fmt.Fprintf(w, "  %d. %s [%s]\n", i+1, h.Name, h.Origin)
		}
	}
}

// printCommandHooks lists the config's command hooks and the events Helios
// does not run.
func printCommandHooks(w io.Writer, commands []cmdhooks.Info, notRun []string) {
	if len(commands) > 0 {
		fmt.Fprintln(w, "command hooks")
	}
	for _, c := range commands {
		opts := []string{"timeout " + strconv.FormatFloat(c.TimeoutSeconds, 'f', -1, 64) + "s", "shell " + c.Shell}
		if c.Async {
			opts = append(opts, "async")
		}
		if c.Once {
			opts = append(opts, "once per session")
		}
		fmt.Fprintf(w, "  %s matcher %q: %s (%s)\n", c.Path, c.Matcher, sanitize.Text(c.Command), strings.Join(opts, ", "))
		if c.StatusMessage != "" {
			fmt.Fprintf(w, "    status: %s\n", sanitize.Text(c.StatusMessage))
		}
	}
	if len(notRun) > 0 {
		fmt.Fprintf(w, "events Helios does not run (their hooks are ignored): %s\n", strings.Join(notRun, ", "))
	}
}
