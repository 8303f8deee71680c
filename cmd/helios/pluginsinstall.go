package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/agentplugins"
	"github.com/helios-agents/helios/skillinstall"
)

// pluginsBundleCmds are `helios plugins install / list / enable / disable /
// update / sync / verify / uninstall / approve`: agent plugins (bundles of
// skills, commands, agents, hooks and MCP servers) installed from git and
// locked in <root>/helios-plugins.json. Each takes --project.
func pluginsBundleCmds(g *globals) []*cobra.Command {
	var project, yes bool
	open := func() (*skillinstall.Plugins, error) { return g.pluginInstaller(project) }
	change := func(do func(ctx context.Context, cmd *cobra.Command, in *skillinstall.Plugins, a []string) (skillinstall.PluginResult, error)) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, a []string) error {
			in, err := open()
			if err != nil {
				return err
			}
			res, err := do(cmd.Context(), cmd, in, a)
			if err != nil {
				return err
			}
			if err := g.printPluginResult(cmd, res); err != nil {
				return err
			}
			if len(res.Skipped) > 0 {
				names := make([]string, len(res.Skipped))
				for i, s := range res.Skipped {
					names[i] = s.Name
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "helios: %d plugin(s) not installed or updated: %s (the warnings above say why)\n", len(res.Skipped), strings.Join(names, ", "))
				return exitError{exitFail}
			}
			return nil
		}
	}
	approver := func(cmd *cobra.Command) skillinstall.Approver {
		if yes {
			return func(string, []string) bool { return true }
		}
		if !onTerminal() {
			return nil
		}
		in := bufio.NewReader(cmd.InOrStdin())
		return func(name string, runs []string) bool {
			w := cmd.ErrOrStderr()
			fmt.Fprintf(w, "Plugin %s runs, as you (hooks) or as MCP servers:\n", name)
			for _, r := range runs {
				fmt.Fprintf(w, "  %s\n", r)
			}
			fmt.Fprintf(w, "Allow plugin %s to run these? [y/N] ", name)
			line, _ := in.ReadString('\n')
			a := strings.ToLower(strings.TrimSpace(line))
			return a == "y" || a == "yes"
		}
	}

	var opts skillinstall.PluginInstallOptions
	var listOnly bool
	install := &cobra.Command{
		Use:   "install SOURCE[#REF]",
		Short: "Install agent plugins (skills, commands, agents, hooks, MCP servers) from a plugin or a marketplace, locked by commit and file digests",
		Long: "Install the plugin SOURCE is, or the plugins of the marketplace it holds (--plugin NAME, repeatable;\n" +
			"--plugin '*' for all). SOURCE is as for `helios skills add`: a git URL, a local repository,\n" +
			"OWNER/REPO on GitHub or a tree URL, with #REF. A plugin is a folder with .claude-plugin/plugin.json,\n" +
			".codex-plugin/plugin.json or plugin.json, or only skills/, commands/, agents/, hooks/hooks.json,\n" +
			".mcp.json (named after the folder). The hooks and MCP servers a plugin would run are shown and\n" +
			"asked about on a terminal; --yes approves them; otherwise they stay off until\n" +
			"`helios plugins approve NAME`. --list shows each plugin's parts and installs nothing.",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if !listOnly {
				return change(func(ctx context.Context, cmd *cobra.Command, in *skillinstall.Plugins, a []string) (skillinstall.PluginResult, error) {
					o := opts
					o.Approve = approver(cmd)
					return in.Install(ctx, a[0], o)
				})(cmd, a)
			}
			in, err := open()
			if err != nil {
				return err
			}
			l, err := in.List(cmd.Context(), a[0])
			if err != nil {
				return err
			}
			return g.printPluginListing(cmd, a[0], l)
		},
	}
	install.Flags().StringArrayVar(&opts.Plugins, "plugin", nil, "install this plugin of the marketplace (repeatable; '*' for all)")
	install.Flags().BoolVar(&listOnly, "list", false, "show each plugin of the source and its parts, and install nothing")
	install.Flags().BoolVarP(&yes, "yes", "y", false, "approve the hooks and MCP servers the plugins run")

	var updateOpts skillinstall.PluginUpdateOptions
	update := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Move plugins to the newest commit of their ref and report, per part, what changed",
		Long: "Move plugins to the newest commit of their ref. A plugin is compared by its files, never by its\n" +
			"version string. A change to what it runs (hooks, MCP servers, executable) turns those parts off\n" +
			"until approved again (asked on a terminal; --yes approves).",
		RunE: change(func(ctx context.Context, cmd *cobra.Command, in *skillinstall.Plugins, names []string) (skillinstall.PluginResult, error) {
			o := updateOpts
			o.Approve = approver(cmd)
			return in.Update(ctx, names, o)
		}),
	}
	update.Flags().BoolVar(&updateOpts.Force, "force", false, "replace local changes to the plugins updated")
	update.Flags().BoolVarP(&yes, "yes", "y", false, "approve what the updated plugins run")

	var skill string
	disable := &cobra.Command{
		Use:   "disable NAME",
		Short: "Turn an installed plugin off, or with --skill one of its skills",
		Args:  args(cobra.ExactArgs(1)),
		RunE: change(func(ctx context.Context, _ *cobra.Command, in *skillinstall.Plugins, a []string) (skillinstall.PluginResult, error) {
			if skill != "" {
				return in.SetSkill(ctx, a[0], skill, false)
			}
			return in.SetEnabled(ctx, a[0], false)
		}),
	}
	disable.Flags().StringVar(&skill, "skill", "", "turn off only this skill of the plugin")
	enable := &cobra.Command{
		Use:   "enable NAME",
		Short: "Turn an installed plugin on, or with --skill one of its skills",
		Args:  args(cobra.ExactArgs(1)),
		RunE: change(func(ctx context.Context, _ *cobra.Command, in *skillinstall.Plugins, a []string) (skillinstall.PluginResult, error) {
			if skill != "" {
				return in.SetSkill(ctx, a[0], skill, true)
			}
			return in.SetEnabled(ctx, a[0], true)
		}),
	}
	enable.Flags().StringVar(&skill, "skill", "", "turn back on only this skill of the plugin")

	cmds := []*cobra.Command{install, pluginsListCmd(g, &project), enable, disable, update, {
		Use:   "sync",
		Short: "Install exactly what helios-plugins.json records: the locked commits, every file checked against its digest",
		Args:  args(cobra.NoArgs),
		RunE: change(func(ctx context.Context, _ *cobra.Command, in *skillinstall.Plugins, _ []string) (skillinstall.PluginResult, error) {
			return in.Sync(ctx)
		}),
	}, pluginsVerifyCmd(g, open), {
		Use:   "uninstall NAME...",
		Short: "Delete installed plugins and their entries",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE: change(func(ctx context.Context, _ *cobra.Command, in *skillinstall.Plugins, names []string) (skillinstall.PluginResult, error) {
			return in.Uninstall(ctx, names)
		}),
	}, {
		Use:   "approve NAME",
		Short: "Approve the hooks, MCP servers and executable an installed plugin runs, as they are now",
		Args:  args(cobra.ExactArgs(1)),
		RunE: change(func(ctx context.Context, _ *cobra.Command, in *skillinstall.Plugins, a []string) (skillinstall.PluginResult, error) {
			return in.Approve(ctx, a[0])
		}),
	}}
	for _, c := range cmds {
		c.Flags().BoolVar(&project, "project", false,
			"the project root, <work dir>/.helios/plugins (default: ~/.helios/plugins)")
	}
	return cmds
}

// pluginInstaller manages the user plugins root, or with project the work dir's.
func (g *globals) pluginInstaller(project bool) (*skillinstall.Plugins, error) {
	if !project {
		cfg, err := skillinstall.UserPluginConfig()
		if err != nil {
			return nil, err
		}
		return skillinstall.NewPlugins(cfg)
	}
	cfg, err := g.installConfig(true)
	if err != nil {
		return nil, err
	}
	return skillinstall.NewPlugins(skillinstall.ProjectPluginConfig(cfg.Tree))
}

func pluginsVerifyCmd(g *globals, open func() (*skillinstall.Plugins, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check every installed plugin against helios-plugins.json; exit 1 naming each changed, missing or extra file",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := open()
			if err != nil {
				return err
			}
			rep, err := in.Verify(cmd.Context())
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if g.json {
				err = writeJSON(w, rep)
			} else {
				printVerify(w, skillinstall.Report{Root: rep.Root, Lock: rep.State, OK: rep.OK, Skills: rep.Plugins})
			}
			if err == nil && !rep.OK {
				return exitError{exitFail}
			}
			return err
		},
	}
}

// pluginListJSON is one row of `plugins list --json`.
type pluginListJSON struct {
	Name           string   `json:"name"`
	Scope          string   `json:"scope"` // user, project or config (a plugins[] executable)
	Dir            string   `json:"dir,omitempty"`
	Enabled        bool     `json:"enabled"`
	Approved       bool     `json:"approved"`
	Skills         []string `json:"skills"`
	DisabledSkills []string `json:"disabledSkills,omitempty"`
	Commands       []string `json:"commands"`
	Agents         []string `json:"agents"`
	Hooks          bool     `json:"hooks"`
	MCPServers     []string `json:"mcpServers"`
	Executable     string   `json:"executable,omitempty"`
	Runs           []string `json:"runs"`
}

func pluginsListCmd(g *globals, project *bool) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List installed plugins (user and project) with their parts, and the configured plugins[] executables",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := []pluginListJSON{}
			var warns []agentplugins.Warning
			roots := []bool{false, true}
			if *project {
				roots = []bool{true}
			}
			for _, proj := range roots {
				in, err := g.pluginInstaller(proj)
				if err != nil {
					if proj && !*project {
						continue
					}
					return err
				}
				scope := "user"
				if proj {
					scope = "project"
				}
				got, w := agentplugins.LoadInstalled(in.Root(), scope)
				warns = append(warns, w...)
				for _, p := range got {
					out = append(out, installedJSON(p))
				}
			}
			if c, err := g.readConfig(); err == nil {
				if hcs, err := assembly.PluginHostConfigs(c.cfg, c.base, nil); err == nil {
					for _, hc := range hcs {
						out = append(out, pluginListJSON{Name: hc.Name, Scope: "config", Enabled: true, Approved: true,
							Executable: hc.Command, Skills: []string{}, Commands: []string{}, Agents: []string{}, MCPServers: []string{}, Runs: []string{"executable: " + hc.Command}})
					}
				} else {
					fmt.Fprintf(cmd.ErrOrStderr(), "helios: warning: plugins[]: %v\n", err)
				}
			}
			for _, w := range warns {
				fmt.Fprintf(cmd.ErrOrStderr(), "helios: warning: %s\n", w)
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"plugins": out})
			}
			w := cmd.OutOrStdout()
			if len(out) == 0 {
				_, err := fmt.Fprintln(w, "No plugins installed or configured.")
				return err
			}
			for _, p := range out {
				state := "on"
				if !p.Enabled {
					state = "off"
				}
				runs := "runs nothing"
				switch {
				case len(p.Runs) > 0 && p.Approved:
					runs = "runs code: approved"
				case len(p.Runs) > 0:
					runs = "runs code: NOT approved, off (" + agentplugins.ApproveHint(p.Name) + ")"
				}
				fmt.Fprintf(w, "%s (%s, %s): %s; %s\n", p.Name, p.Scope, state, partsLine(p), runs)
			}
			return nil
		},
	}
}

func installedJSON(p agentplugins.Installed) pluginListJSON {
	rel := func(xs []string) []string {
		out := []string{}
		for _, x := range xs {
			if r, err := filepath.Rel(p.Root, x); err == nil {
				x = r
			}
			out = append(out, filepath.ToSlash(x))
		}
		return out
	}
	j := pluginListJSON{Name: p.Name, Scope: p.Scope, Dir: p.Root, Enabled: p.Enabled, Approved: p.Approved,
		DisabledSkills: p.DisabledSkills, Commands: rel(p.Parts.Commands), Agents: rel(p.Parts.Agents),
		Hooks: len(p.Parts.Hooks) > 0, MCPServers: []string{}, Runs: p.Runs, Skills: []string{}}
	for _, root := range p.Parts.Skills {
		if _, err := os.Stat(filepath.Join(root, "SKILL.md")); err == nil {
			j.Skills = append(j.Skills, filepath.Base(root))
			continue
		}
		es, _ := os.ReadDir(root)
		for _, e := range es {
			if _, err := os.Stat(filepath.Join(root, e.Name(), "SKILL.md")); err == nil {
				j.Skills = append(j.Skills, e.Name())
			}
		}
	}
	for s := range p.Parts.MCPServers {
		j.MCPServers = append(j.MCPServers, s)
	}
	if p.Parts.Executable != "" {
		j.Executable = rel([]string{p.Parts.Executable})[0]
	}
	if j.Runs == nil {
		j.Runs = []string{}
	}
	return j
}

// partsLine is "skills a, b (off: b); commands c; agents d; hooks; MCP servers e".
func partsLine(p pluginListJSON) string {
	var parts []string
	if len(p.Skills) > 0 {
		s := "skills " + strings.Join(p.Skills, ", ")
		if len(p.DisabledSkills) > 0 {
			s += " (off: " + strings.Join(p.DisabledSkills, ", ") + ")"
		}
		parts = append(parts, s)
	}
	base := func(xs []string) string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = strings.TrimSuffix(path.Base(x), ".md")
		}
		return strings.Join(out, ", ")
	}
	if len(p.Commands) > 0 {
		parts = append(parts, "commands "+base(p.Commands))
	}
	if len(p.Agents) > 0 {
		parts = append(parts, "agents "+base(p.Agents))
	}
	if p.Hooks {
		parts = append(parts, "hooks")
	}
	if len(p.MCPServers) > 0 {
		parts = append(parts, "MCP servers "+strings.Join(p.MCPServers, ", "))
	}
	if p.Executable != "" {
		parts = append(parts, "executable "+p.Executable)
	}
	if len(parts) == 0 {
		return "no parts"
	}
	return strings.Join(parts, "; ")
}

func offerParts(o skillinstall.PluginOffer) string {
	skills := make([]string, len(o.Parts.Skills))
	for i, s := range o.Parts.Skills {
		skills[i] = path.Base(s)
	}
	return partsLine(pluginListJSON{Skills: skills, Commands: o.Parts.Commands, Agents: o.Parts.Agents, Hooks: o.Parts.Hooks,
		MCPServers: o.Parts.MCPServers, Executable: o.Parts.Executable})
}

func (g *globals) printPluginListing(cmd *cobra.Command, spec string, l skillinstall.PluginListing) error {
	w := cmd.OutOrStdout()
	if g.json {
		return writeJSON(w, l)
	}
	for _, warn := range l.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "helios: warning: %s\n", warn)
	}
	for _, o := range l.Plugins {
		for _, warn := range o.Warnings {
			fmt.Fprintf(cmd.ErrOrStderr(), "helios: warning: %s\n", warn)
		}
		fmt.Fprintf(w, "%s (%s): %s\n", o.Name, o.Dialect, offerParts(o))
		for _, r := range o.Runs {
			fmt.Fprintf(w, "    runs %s\n", r)
		}
	}
	how := "helios plugins install " + spec
	if l.Marketplace {
		how += " --plugin NAME..."
	}
	_, err := fmt.Fprintf(w, "%d plugin(s) in %s; nothing installed. Install: %s\n", len(l.Plugins), spec, how)
	return err
}

func (g *globals) printPluginResult(cmd *cobra.Command, res skillinstall.PluginResult) error {
	w := cmd.OutOrStdout()
	if g.json {
		return writeJSON(w, res)
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "helios: warning: %s\n", warn)
	}
	for _, c := range res.Plugins {
		switch c.Action {
		case skillinstall.Removed:
			fmt.Fprintf(w, "uninstalled %s (%s)\n", c.Name, c.Dir)
			continue
		case skillinstall.Updated:
			fmt.Fprintf(w, "updated %s: %s -> %s (%s#%s) in %s\n", c.Name, short(c.From), short(c.Commit), c.Source, c.Ref, c.Dir)
			for _, ch := range c.Changes {
				fmt.Fprintf(w, "    %s\n", ch)
			}
		default:
			fmt.Fprintf(w, "%s %s: %s#%s at %s, path %s, in %s: %s\n", c.Action, c.Name, c.Source, c.Ref, short(c.Commit), c.Path, c.Dir, offerParts(c.PluginOffer))
		}
		switch {
		case len(c.Runs) == 0:
		case c.Approved:
			fmt.Fprintf(w, "    runs (approved): %s\n", strings.Join(c.Runs, "; "))
		case c.ApprovalDropped:
			fmt.Fprintf(w, "    what it runs changed, so its hooks and MCP servers are OFF until approved: helios plugins approve %s\n", c.Name)
		default:
			fmt.Fprintf(w, "    its hooks and MCP servers are OFF (not approved): %s; approve with: helios plugins approve %s\n", strings.Join(c.Runs, "; "), c.Name)
		}
	}
	_, err := fmt.Fprintf(w, "state: %s\n", res.State)
	return err
}

// installedCheckJSON is one installed agent plugin in `plugins check --json`.
type installedCheckJSON struct {
	Name     string   `json:"name"`
	Scope    string   `json:"scope"`
	OK       bool     `json:"ok"`
	Parts    string   `json:"parts"`
	Approved bool     `json:"approved"`
	Warnings []string `json:"warnings"`
}

// checkInstalled reads every installed agent plugin of the user and the
// project root, part by part; bad is true when any part cannot load.
func (g *globals) checkInstalled() (out []installedCheckJSON, bad bool) {
	for _, proj := range []bool{false, true} {
		in, err := g.pluginInstaller(proj)
		if err != nil {
			continue
		}
		scope := "user"
		if proj {
			scope = "project"
		}
		got, warns := agentplugins.LoadInstalled(in.Root(), scope)
		byPlugin := map[string][]string{}
		for _, w := range warns {
			byPlugin[w.Plugin] = append(byPlugin[w.Plugin], w.String())
		}
		for _, p := range got {
			j := installedJSON(p)
			c := installedCheckJSON{Name: p.Name, Scope: scope, Parts: partsLine(j), Approved: p.Approved, Warnings: byPlugin[p.Name]}
			delete(byPlugin, p.Name)
			if c.Warnings == nil {
				c.Warnings = []string{}
			}
			if c.Parts == "no parts" {
				c.Warnings = append(c.Warnings, fmt.Sprintf("plugin %s: loads nothing: no skills, commands, agents, hooks, MCP servers or executable in %s", p.Name, p.Root))
			}
			c.OK = len(c.Warnings) == 0
			bad = bad || !c.OK
			out = append(out, c)
		}
		for _, name := range slices.Sorted(maps.Keys(byPlugin)) { // a plugin that did not load at all
			out = append(out, installedCheckJSON{Name: name, Scope: scope, Parts: "did not load", Warnings: byPlugin[name]})
			bad = true
		}
	}
	return out, bad
}

func printInstalledCheck(w io.Writer, l []installedCheckJSON) {
	for _, p := range l {
		status := "ok  "
		if !p.OK {
			status = "FAIL"
		}
		fmt.Fprintf(w, "%s  %s (%s, installed): %s\n", status, p.Name, p.Scope, p.Parts)
		for _, wa := range p.Warnings {
			fmt.Fprintf(w, "      warning: %s\n", wa)
		}
	}
}
