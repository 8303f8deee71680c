package main

import (
	"fmt"
	"github.com/helios-agents/helios/kernel"
	"io"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/kernel/hooks"
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
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				points, err := k.DescribeHooks()
				if err != nil {
					return err
				}
				if g.json {
					return writeJSON(cmd.OutOrStdout(), struct {
						Points []hooks.PointInfo `json:"points"`
					}{points})
				}
				printHooks(cmd.OutOrStdout(), points)
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
