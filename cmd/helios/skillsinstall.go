package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/skillinstall"
)

// skillsInstallCmds are `helios skills add / update / sync / verify /
// remove`: skills installed from git and pinned in a lockfile. Each takes
// --project.
func skillsInstallCmds(g *globals) []*cobra.Command {
	var project bool
	open := func() (*skillinstall.Installer, error) { return g.installer(project) }
	// change runs a command that changes the root and prints its result.
	var change installChange = func(do func(ctx context.Context, in *skillinstall.Installer, a []string) (skillinstall.Result, error)) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, a []string) error {
			in, err := open()
			if err != nil {
				return err
			}
			res, err := do(cmd.Context(), in, a)
			if errors.Is(err, skillinstall.ErrNotLocked) {
				return fmt.Errorf("%w%s", err, g.otherRootHint(cmd, project, a))
			}
			if err != nil {
				return err
			}
			if err := g.printResult(cmd, res, g.otherRootHint(cmd, project, nil)); err != nil {
				return err
			}
			if len(res.Skipped) > 0 {
				// The others are installed; the exit status still tells a
				// script that not everything asked for is.
				fmt.Fprintf(cmd.ErrOrStderr(), "helios: %d skill(s) not installed: %s (the warnings above say why)\n", len(res.Skipped), skippedNames(res.Skipped))
				return exitError{exitFail}
			}
			return nil
		}
	}
	cmds := []*cobra.Command{skillsAddCmd(g, open, change), skillsUpdateCmd(change), {
		Use:   "sync",
		Short: "Install exactly what the lockfile records: the locked commits, every file checked against its digest",
		Args:  args(cobra.NoArgs),
		RunE: change(func(ctx context.Context, in *skillinstall.Installer, _ []string) (skillinstall.Result, error) {
			return in.Sync(ctx)
		}),
	}, skillsVerifyCmd(g, open, &project), {
		Use:   "remove NAME...",
		Short: "Delete installed skills and their lockfile entries",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE: change(func(ctx context.Context, in *skillinstall.Installer, names []string) (skillinstall.Result, error) {
			return in.Remove(ctx, names)
		}),
	}}
	for _, c := range cmds {
		c.Flags().BoolVar(&project, "project", false,
			"the project root, <work dir>/.helios/skills with <work dir>/helios-lock.json (default: ~/.helios/skills with ~/.helios/helios-lock.json)")
	}
	return cmds
}

// installChange makes the RunE of a command that changes an install root.
type installChange func(do func(ctx context.Context, in *skillinstall.Installer, a []string) (skillinstall.Result, error)) func(*cobra.Command, []string) error

func skillsAddCmd(g *globals, open func() (*skillinstall.Installer, error), change installChange) *cobra.Command {
	var opts skillinstall.AddOptions
	var list bool
	install := change(func(ctx context.Context, in *skillinstall.Installer, a []string) (skillinstall.Result, error) {
		return in.Add(ctx, a[0], opts)
	})
	c := &cobra.Command{
		Use:   "add SOURCE[#REF]",
		Short: "Install skills from a git repository and lock their commit and file digests",
		Long: "Install the skills of a git repository — every folder with a SKILL.md, at any depth — and record\n" +
			"each one's source, ref, commit and file digests in the lockfile. SOURCE is a git URL (https, ssh,\n" +
			"git@host:path, file://), a local repository, OWNER/REPO on GitHub (when no such local path exists;\n" +
			"./OWNER/REPO is a path) or https://github.com/OWNER/REPO/tree/REF[/PATH] (the skills under PATH);\n" +
			"REF a branch, tag or commit (default: the default branch). A skill that conflicts with what is\n" +
			"installed is skipped with a warning, the others are installed, and the exit status is 1.\n" +
			"--list shows the source's skills and installs nothing.",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if !list {
				return install(cmd, a)
			}
			in, err := open()
			if err != nil {
				return err
			}
			l, err := in.List(cmd.Context(), a[0])
			if err != nil {
				return err
			}
			return g.printListing(cmd, a[0], l)
		},
	}
	c.Flags().BoolVar(&list, "list", false, "show each skill of the source (name, path, description) and install nothing")
	c.Flags().StringArrayVar(&opts.Skills, "skill", nil, "install only the skill of this frontmatter name (repeatable)")
	c.Flags().BoolVar(&opts.Force, "force", false, "replace a folder the lockfile does not know, a skill locked from another source, or local changes")
	return c
}

func skillsUpdateCmd(change installChange) *cobra.Command {
	var opts skillinstall.UpdateOptions
	c := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Move locked skills to the newest commit of their ref and rewrite the lockfile",
		RunE: change(func(ctx context.Context, in *skillinstall.Installer, names []string) (skillinstall.Result, error) {
			return in.Update(ctx, names, opts)
		}),
	}
	c.Flags().BoolVar(&opts.Force, "force", false, "replace local changes to the skills updated")
	return c
}

// skillsVerifyCmd exits 1 when a locked skill differs from its lock.
func skillsVerifyCmd(g *globals, open func() (*skillinstall.Installer, error), project *bool) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check every locked skill against the lockfile; exit 1 naming each changed, missing or extra file",
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
			}
			if err == nil && len(rep.Skills) == 0 && !g.json {
				_, err = fmt.Fprintf(w, "No skills locked in %s.%s\n", rep.Lock, g.otherRootHint(cmd, *project, nil))
			} else if err == nil && !g.json {
				printVerify(w, rep)
			}
			if err == nil && !rep.OK {
				return exitError{exitFail}
			}
			return err
		},
	}
}

// installer manages the user root, or with project the work dir's.
func (g *globals) installer(project bool) (*skillinstall.Installer, error) {
	cfg, err := g.installConfig(project)
	if err != nil {
		return nil, err
	}
	return skillinstall.New(cfg)
}

// installConfig is the user root, or with project the work dir's.
func (g *globals) installConfig(project bool) (skillinstall.Config, error) {
	if !project {
		return skillinstall.UserConfig()
	}
	wd := g.workDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return skillinstall.Config{}, err
		}
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return skillinstall.Config{}, err
	}
	if fi, err := os.Stat(wd); err != nil {
		return skillinstall.Config{}, fmt.Errorf("work dir: %w", err)
	} else if !fi.IsDir() {
		return skillinstall.Config{}, fmt.Errorf("work dir %s: not a directory", wd)
	}
	return skillinstall.ProjectConfig(wd), nil
}

// otherRootHint points at the other root (the project's without project,
// the user's with it) when its lockfile holds one of names — or, with no
// names, any skill: " (pdf is locked in /w/helios-lock.json: helios skills
// remove --project pdf)". "" when it does not, or cannot be read.
func (g *globals) otherRootHint(cmd *cobra.Command, project bool, names []string) string {
	cfg, err := g.installConfig(!project)
	if err != nil {
		return ""
	}
	l, err := skillinstall.ReadLock(cfg.LockFile)
	if err != nil || len(l.Skills) == 0 {
		return ""
	}
	var there []string
	for _, s := range l.Skills {
		if len(names) == 0 || slices.Contains(names, s.Name) {
			there = append(there, s.Name)
		}
	}
	if len(there) == 0 {
		return ""
	}
	what := strings.Join(there, ", ") + " is"
	switch {
	case len(names) == 0:
		what = fmt.Sprintf("%d skill(s) are", len(there))
	case len(there) > 1:
		what = strings.Join(there, ", ") + " are"
	}
	how := cmd.CommandPath()
	if !project {
		how += " --project"
	}
	if len(names) > 0 {
		how += " " + strings.Join(there, " ")
	}
	if project {
		how += " (without --project)"
	}
	return fmt.Sprintf(" (%s locked in %s: %s)", what, cfg.LockFile, how)
}

func skippedNames(s []skillinstall.Skip) string {
	names := make([]string, len(s))
	for i, k := range s {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// printListing prints what add --list found: a table of name, path and
// description, then how to install one.
func (g *globals) printListing(cmd *cobra.Command, spec string, l skillinstall.Listing) error {
	w := cmd.OutOrStdout()
	if g.json {
		return writeJSON(w, l)
	}
	for _, warn := range l.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "helios: warning: %s\n", warn)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPATH\tDESCRIPTION")
	for _, s := range l.Skills {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Path, oneLine(s.Description))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d skill(s) in %s at %s (commit %s); nothing installed. Install: helios skills add %s [--skill NAME]...\n",
		len(l.Skills), l.Source, l.Ref, short(l.Commit), spec)
	return err
}

// oneLine folds a description's line breaks so the table keeps one row a skill.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (g *globals) printResult(cmd *cobra.Command, res skillinstall.Result, hint string) error {
	w := cmd.OutOrStdout()
	if g.json {
		return writeJSON(w, res)
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "helios: warning: %s\n", warn)
	}
	for _, c := range res.Skills {
		switch c.Action {
		case skillinstall.Removed:
			fmt.Fprintf(w, "removed %s (%s)\n", c.Name, c.Dir)
		case skillinstall.Updated:
			fmt.Fprintf(w, "updated %s: %s -> %s (%s#%s, %d file(s)) in %s\n", c.Name, short(c.From), short(c.Commit), c.Source, c.Ref, c.Files, c.Dir)
		default:
			fmt.Fprintf(w, "%s %s: %s#%s at %s, path %s, %d file(s) in %s\n", c.Action, c.Name, c.Source, c.Ref, short(c.Commit), c.Path, c.Files, c.Dir)
		}
	}
	if len(res.Skills) == 0 && len(res.Skipped) == 0 {
		fmt.Fprintf(w, "No skills locked in %s.%s\n", res.Lock, hint)
		return nil
	}
	fmt.Fprintf(w, "lockfile: %s\n", res.Lock)
	return nil
}

// printVerify prints r, each name escaped (sanitize.Text): a file a
// repository names "\x1b]0;…" must not reach the terminal raw.
func printVerify(w io.Writer, r skillinstall.Report) {
	bad := 0
	for _, c := range r.Skills {
		switch {
		case c.OK:
			fmt.Fprintf(w, "%s: ok\n", sanitize.Text(c.Name))
			continue
		case !c.Installed:
			fmt.Fprintf(w, "%s: not installed (%s)\n", sanitize.Text(c.Name), sanitize.Text(c.Dir))
		default:
			for _, k := range []struct {
				what  string
				files []string
			}{{"changed", c.Changed}, {"missing", c.Missing}, {"extra", c.Extra}, {"unreadable", c.Unreadable}} {
				for _, f := range k.files {
					fmt.Fprintf(w, "%s: %s: %s\n", sanitize.Text(c.Name), k.what, sanitize.Text(f))
				}
			}
		}
		bad++
	}
	fmt.Fprintf(w, "%d skill(s) checked against %s: %d differ\n", len(r.Skills), sanitize.Text(r.Lock), bad)
}
