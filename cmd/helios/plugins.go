package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/plugins/host"
)

func pluginsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "plugins",
		Short: "Install and manage agent plugins (skills, commands, agents, hooks, MCP servers); check or write go-plugin executables",
		Args:  args(cobra.NoArgs),
		RunE:  groupHelp,
	}
	c.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Start each configured plugin: checksum, handshake, description and mounts, one line per plugin",
		Long: "Start each plugin of helios.config.json as the kernel would (checksum, go-plugin handshake with AutoMTLS, " +
			"its self-description), print one line per plugin, and stop it; then read every installed agent plugin " +
			"(user and project roots) and name each part that cannot load. Exit 1 if any plugin cannot be used or any part cannot load.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.readConfig()
			if err != nil {
				return err
			}
			configs, err := assembly.PluginHostConfigs(c.cfg, c.base, nil)
			if err != nil {
				return err
			}
			out := pluginsJSON{Plugins: []pluginJSON{}}
			failed := false
			for _, hc := range configs {
				r := host.Check(cmd.Context(), hc)
				failed = failed || r.Err != nil
				out.Plugins = append(out.Plugins, toPluginJSON(r))
			}
			var bad bool
			out.Installed, bad = g.checkInstalled()
			failed = failed || bad
			if g.json {
				if err := writeJSON(cmd.OutOrStdout(), out); err != nil {
					return err
				}
			} else {
				printPlugins(cmd.OutOrStdout(), out)
				printInstalledCheck(cmd.OutOrStdout(), out.Installed)
			}
			if failed {
				return exitError{exitFail}
			}
			return nil
		},
	})
	c.AddCommand(pluginsInitCmd())
	c.AddCommand(pluginsBundleCmds(g)...)
	return c
}

// pluginsJSON is the `plugins check --json` contract.
type pluginsJSON struct {
	Plugins []pluginJSON `json:"plugins"`
	// Installed are the installed agent plugins, each part checked.
	Installed []installedCheckJSON `json:"installed,omitempty"`
}

type pluginJSON struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Pinned  bool   `json:"pinned"`
	// The rest is known once the plugin started.
	ProtocolVersion int         `json:"protocolVersion,omitempty"`
	HandshakeMS     float64     `json:"handshakeMs,omitempty"`
	StartMS         float64     `json:"startMs,omitempty"`
	OwnName         string      `json:"ownName,omitempty"`
	Description     string      `json:"description,omitempty"`
	Mounts          []mountJSON `json:"mounts,omitempty"`
	Skills          []string    `json:"skills,omitempty"`
	Tools           []string    `json:"tools,omitempty"`
	Warnings        []string    `json:"warnings,omitempty"`
}

type mountJSON struct {
	Point string `json:"point"`
	Name  string `json:"name,omitempty"`
}

func toPluginJSON(r host.Report) pluginJSON {
	p := pluginJSON{Name: r.Name, Command: r.Command, OK: r.Err == nil, SHA256: r.SHA256, Pinned: r.Pinned}
	if r.Err != nil {
		p.Error = r.Err.Error()
	}
	if r.Started == 0 {
		return p
	}
	d := r.Description
	p.ProtocolVersion = r.ProtocolVersion
	p.HandshakeMS = millis(r.Handshake)
	p.StartMS = millis(r.Started)
	p.OwnName, p.Description = d.Name, d.Description
	for _, m := range d.Mounts {
		p.Mounts = append(p.Mounts, mountJSON{m.Point, m.Name})
	}
	for _, s := range d.Skills {
		p.Skills = append(p.Skills, s.Name)
	}
	for _, t := range d.Tools {
		p.Tools = append(p.Tools, t.Name)
	}
	for _, w := range d.Warnings {
		p.Warnings = append(p.Warnings, w.String())
	}
	return p
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func printPlugins(w io.Writer, l pluginsJSON) {
	if len(l.Plugins) == 0 {
		fmt.Fprintln(w, "No plugins configured.")
		return
	}
	for _, p := range l.Plugins {
		if !p.OK {
			fmt.Fprintf(w, "FAIL  %s: %s\n", p.Name, p.Error)
			continue
		}
		pin := "not pinned"
		if p.Pinned {
			pin = "pinned, matches"
		}
		var mounts []string
		for _, m := range p.Mounts {
			if m.Name != "" {
				mounts = append(mounts, m.Point+" ("+m.Name+")")
			} else {
				mounts = append(mounts, m.Point)
			}
		}
		fmt.Fprintf(w, "ok    %s: sha256 %s (%s); handshake v%d with AutoMTLS in %.0fms; mounts %s; skills %s; tools %s; %q\n",
			p.Name, p.SHA256, pin, p.ProtocolVersion, p.HandshakeMS, list(mounts), list(p.Skills), list(p.Tools), clip(p.Description, 80))
		for _, wa := range p.Warnings {
			fmt.Fprintf(w, "      warning: %s\n", wa)
		}
	}
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
