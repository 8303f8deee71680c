package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/caps/mcpclient"
	"github.com/helios-agents/helios/cmd/helios/internal/trust"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/sanitize"
)

func mcpListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"servers"},
		Short:   "Start the configured MCP servers and show each one's state, tools and skills",
		Long: "Start the MCP servers of helios.config.json (mcp.servers and mcpServers) as the kernel would, wait for each\n" +
			"to be ready or to fail, and print each: its transport, its state (ready, down and why, disabled and why), its\n" +
			"tools as the model sees them and its skills. Exit 1 if an enabled server is down, or if the work dir's config\n" +
			"is not trusted (none of its servers start).",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.readConfig()
			if err != nil {
				return err
			}
			if c.ignored != "" {
				// Not "no servers": the servers are there, and do not start
				// until the user trusts the file.
				out := mcpListJSON{Servers: []mcpServerJSON{}, Untrusted: c.ignored}
				if g.json {
					if err := writeJSON(cmd.OutOrStdout(), out); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "No MCP server started: %s is not trusted, so none of its servers run.\n"+
						"Read it, then trust it with: %s (or pass it with --config)\n", sanitize.Text(c.ignored), trust.Command(c.ignored))
				}
				return exitError{exitFail}
			}
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				out := mcpListJSON{Servers: []mcpServerJSON{}}
				down := false
				for _, c := range k.Capabilities() {
					s, ok := c.(*mcpclient.Server)
					if !ok {
						continue
					}
					if err := s.Wait(cmd.Context()); err != nil {
						return err
					}
					j := toMCPServerJSON(s.Status())
					if j.State == mcpclient.StateReady.String() {
						set, err := s.Skills(cmd.Context())
						if err != nil {
							return err
						}
						for _, sk := range set.Skills {
							j.Skills = append(j.Skills, sk.Name)
						}
						for _, w := range set.Warnings {
							j.Warnings = append(j.Warnings, w.String())
						}
					}
					down = down || j.State == mcpclient.StateDown.String()
					out.Servers = append(out.Servers, j)
				}
				if g.json {
					if err := writeJSON(cmd.OutOrStdout(), out); err != nil {
						return err
					}
				} else {
					printMCPServers(cmd.OutOrStdout(), out)
				}
				if down {
					return exitError{exitFail}
				}
				return nil
			})
		},
	}
}

// mcpListJSON is the `mcp list --json` contract.
type mcpListJSON struct {
	Servers []mcpServerJSON `json:"servers"`
	// Untrusted is the work dir's config that was not applied because the
	// user has not trusted it; its servers were not started.
	Untrusted string `json:"untrusted,omitempty"`
}

type mcpServerJSON struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Target    string `json:"target"`
	// State is "ready", "down" or "disabled".
	State    string        `json:"state"`
	Error    string        `json:"error,omitempty"`
	RetryMS  float64       `json:"retryMs,omitempty"`
	Protocol string        `json:"protocol,omitempty"`
	Server   string        `json:"server,omitempty"`
	Tools    []mcpToolJSON `json:"tools"`
	Skills   []string      `json:"skills"`
	Warnings []string      `json:"warnings,omitempty"`
}

type mcpToolJSON struct {
	Name        string `json:"name"`
	Remote      string `json:"remote"`
	ReadOnly    bool   `json:"readOnly,omitempty"`
	Destructive bool   `json:"destructive,omitempty"`
}

func toMCPServerJSON(st mcpclient.Status) mcpServerJSON {
	j := mcpServerJSON{Name: st.Name, Transport: st.Transport, Target: st.Target, State: st.State.String(),
		Protocol: st.Protocol, Server: st.Server, Tools: []mcpToolJSON{}, Skills: []string{}}
	if st.Err != nil {
		j.Error = st.Err.Error()
	}
	if st.RetryIn > 0 {
		j.RetryMS = millis(st.RetryIn)
	}
	for _, t := range st.Tools {
		j.Tools = append(j.Tools, mcpToolJSON{Name: t.Name, Remote: t.Remote, ReadOnly: t.ReadOnly, Destructive: t.Destructive})
	}
	return j
}

func printMCPServers(w io.Writer, l mcpListJSON) {
	if len(l.Servers) == 0 {
		fmt.Fprintln(w, "No MCP servers configured (mcp.servers, mcpServers).")
		return
	}
	for _, s := range l.Servers {
		fmt.Fprintf(w, "%-8s %s (%s: %s)", s.State, s.Name, s.Transport, clip(s.Target, 80))
		switch s.State {
		case mcpclient.StateReady.String():
			fmt.Fprintf(w, ", %s, protocol %s\n", orDash(s.Server), s.Protocol)
		case mcpclient.StateDown.String():
			fmt.Fprintf(w, "\n         %s", s.Error)
			if s.RetryMS > 0 {
				fmt.Fprintf(w, " (next restart in %v)", time.Duration(s.RetryMS*float64(time.Millisecond)).Round(time.Millisecond))
			}
			fmt.Fprintln(w)
			continue
		default:
			if s.Error != "" {
				fmt.Fprintf(w, "\n         %s", s.Error) // why a disabled server is off
			}
			fmt.Fprintln(w)
			continue
		}
		tools := make([]string, len(s.Tools))
		for i, t := range s.Tools {
			tools[i] = t.Name
			switch {
			case t.ReadOnly:
				tools[i] += " (read-only)"
			case t.Destructive:
				tools[i] += " (destructive)"
			}
		}
		fmt.Fprintf(w, "         tools: %s\n", list(tools))
		fmt.Fprintf(w, "         skills: %s\n", list(s.Skills))
		for _, wa := range s.Warnings {
			fmt.Fprintf(w, "         warning: %s\n", wa)
		}
	}
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
