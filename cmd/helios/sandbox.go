package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/sandbox"
)

func sandboxCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Inspect how the model's commands are confined",
		Args:  args(cobra.NoArgs),
		RunE:  groupHelp,
	}
	c.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Show what this machine supports and the effective policy; exit 1 if the configured mode cannot be enforced",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.readConfig()
			if err != nil {
				return err
			}
			box, wd, err := assembly.OpenSandbox(cmd.Context(), c.cfg, assembly.Options{BaseDir: c.base, WorkDir: c.workDir})
			if err != nil {
				return err
			}
			defer box.Close()
			r := box.Report(wd)
			if g.json {
				err = writeJSON(cmd.OutOrStdout(), r)
			} else {
				printSandbox(cmd.OutOrStdout(), r)
			}
			if err == nil && !r.Enforceable {
				return exitError{exitFail}
			}
			return err
		},
	})
	return c
}

func printSandbox(w io.Writer, r sandbox.Report) {
	s := r.Support
	switch {
	case s.LandlockABI > 0:
		fmt.Fprintf(w, "landlock  ABI %d (file rules: %s; signal and abstract socket scopes: %s; path Unix socket rules: %s)\n", s.LandlockABI,
			yes(s.LandlockABI >= sandbox.MinLandlockABI), yes(s.LandlockABI >= 6), yes(s.LandlockABI >= 9))
	default:
		fmt.Fprintf(w, "landlock  not available: %s\n", s.LandlockError)
	}
	if s.Seccomp {
		fmt.Fprintln(w, "seccomp   available")
	} else {
		fmt.Fprintf(w, "seccomp   not available: %s\n", s.SeccompError)
	}
	if s.UserNSError != "" {
		fmt.Fprintf(w, "userns    not available: %s\n", s.UserNSError)
	} else {
		fmt.Fprintln(w, "userns    available (user, mount, PID, IPC and net namespaces for each command)")
	}
	if s.Simulated != "" {
		fmt.Fprintf(w, "          (lowered by %s=%s)\n", sandbox.SimulateEnv, s.Simulated)
	}
	if r.Mode == "off" {
		fmt.Fprintln(w, "policy    off: commands run unconfined, with the allowlisted environment (tools.sandbox.mode)")
		return
	}
	if r.RunsAsRoot {
		fmt.Fprintf(w, "root      Helios runs as root; its commands lose %s\n", r.Dropped)
	}
	net := "off"
	if r.Network {
		net = "on"
	}
	fmt.Fprintf(w, "policy    %s, network %s\n", r.Mode, net)
	fmt.Fprintln(w, "  read    everywhere")
	fmt.Fprintf(w, "  write   %s ($TMPDIR: a temp dir per session under %s)\n", strings.Join(r.Writable, ", "), r.TempRoot)
	if len(r.Protected) > 0 {
		fmt.Fprintf(w, "  read-only inside: %s\n", strings.Join(r.Protected, ", "))
	}
	if len(r.UnixSockets) > 0 {
		fmt.Fprintf(w, "  sockets %s\n", strings.Join(r.UnixSockets, ", "))
	}
	fmt.Fprintln(w, "  not confined: plugins and MCP servers (trusted code, from a config you chose or trusted)")
	if len(r.Protections) > 0 {
		fmt.Fprintln(w, "protections")
		for _, p := range r.Protections {
			fmt.Fprintf(w, "  %-16s %s\n  %-16s by %s\n", p.Name, p.Promise, "", p.Mechanism)
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning   %s\n", warn)
	}
	if !r.Enforceable {
		fmt.Fprintf(w, "FAIL      %s\n", r.Error)
		return
	}
	fmt.Fprintf(w, "ok        enforced by %s (a confined test command ran)\n", r.Enforcement)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
