package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/caps/instructions"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/sanitize"
)

// contextJSON is the `helios context --json` output.
type contextJSON struct {
	Files    []instructions.File `json:"files"`
	Message  string              `json:"message"`
	Warnings []contract.Warning  `json:"warnings"`
}

func contextCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "context",
		Short: "Print the project instructions exactly as the model gets them, then each file and what became of it",
		Long: "Print the project instructions (AGENTS.md, CLAUDE.md and their @imports) exactly as a session opened now\n" +
			"would start with them, then each file with its bytes and whether it was included, cut (over\n" +
			"instructions.maxBytes, the farthest first) or refused, then the warnings.\n" +
			"--json prints {\"files\": [{\"path\", \"bytes\", \"state\"}], \"message\", \"warnings\"}.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				var r instructions.Result
				on := false
				for _, c := range k.Capabilities() {
					if ic, ok := c.(*instructions.Capability); ok {
						r, on = ic.Load(cmd.Context()), true
						break
					}
				}
				w := cmd.OutOrStdout()
				if g.json {
					out := contextJSON{Files: r.Files, Message: r.Message, Warnings: r.Warnings}
					if out.Files == nil {
						out.Files = []instructions.File{}
					}
					if out.Warnings == nil {
						out.Warnings = []contract.Warning{}
					}
					return writeJSON(w, out)
				}
				printContext(w, r, on)
				return nil
			})
		},
	}
}

func printContext(w io.Writer, r instructions.Result, on bool) {
	switch {
	case !on:
		fmt.Fprintln(w, "Project instructions are off (instructions.enabled: false).")
		return
	case r.Message == "":
		fmt.Fprintln(w, "No project instructions: no AGENTS.md, AGENTS.override.md, CLAUDE.md or CLAUDE.local.md from the project root down to the work dir, nor ~/.helios/AGENTS.md or ~/.claude/CLAUDE.md.")
	default:
		fmt.Fprint(w, sanitize.Text(r.Message))
		if !strings.HasSuffix(r.Message, "\n") {
			fmt.Fprintln(w)
		}
	}
	if len(r.Files) > 0 {
		fmt.Fprintln(w)
	}
	for _, f := range r.Files {
		fmt.Fprintf(w, "%-8s %7d bytes  %s\n", f.State, f.Bytes, sanitize.Text(f.Path))
	}
	if r.Budget > 0 && len(r.Files) > 0 {
		fmt.Fprintf(w, "budget %d bytes (instructions.maxBytes)\n", r.Budget)
	}
	for _, wa := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", sanitize.Text(wa.String()))
	}
}
