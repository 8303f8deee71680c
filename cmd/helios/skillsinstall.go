package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

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
			if err != nil {
				return err
			}
			return g.printResult(cmd, res)
		}
	}
	cmds := []*cobra.Command{skillsAddCmd(change), skillsUpdateCmd(change), {
		Use:   "sync",
		Short: "Install exactly what the lockfile records: the locked commits, every file checked against its digest",
		Args:  args(cobra.NoArgs),
		RunE: change(func(ctx context.Context, in *skillinstall.Installer, _ []string) (skillinstall.Result, error) {
			return in.Sync(ctx)
		}),
	}, skillsVerifyCmd(g, open), {
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

func skillsAddCmd(change installChange) *cobra.Command {
	var opts skillinstall.AddOptions
	c := &cobra.Command{
		Use:   "add SOURCE[#REF]",
		Short: "Install skills from a git repository and lock their commit and file digests",
		Long: "Install the skills of a git repository — every folder with a SKILL.md, at any depth — and record\n" +
			"each one's source, ref, commit and file digests in the lockfile. SOURCE is a git URL (https, ssh,\n" +
			"git@host:path, file://) or a local repository; REF a branch, tag or commit (default: the default branch).",
		Args: args(cobra.ExactArgs(1)),
		RunE: change(func(ctx context.Context, in *skillinstall.Installer, a []string) (skillinstall.Result, error) {
			return in.Add(ctx, a[0], opts)
		}),
	}
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
func skillsVerifyCmd(g *globals, open func() (*skillinstall.Installer, error)) *cobra.Command {
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
			} else {
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
	if !project {
		cfg, err := skillinstall.UserConfig()
		if err != nil {
			return nil, err
		}
		return skillinstall.New(cfg)
	}
	wd := g.workDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(wd); err != nil {
		return nil, fmt.Errorf("work dir: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("work dir %s: not a directory", wd)
	}
	return skillinstall.New(skillinstall.ProjectConfig(wd))
}

func (g *globals) printResult(cmd *cobra.Command, res skillinstall.Result) error {
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
	if len(res.Skills) == 0 {
		fmt.Fprintf(w, "No skills locked in %s.\n", res.Lock)
		return nil
	}
	fmt.Fprintf(w, "lockfile: %s\n", res.Lock)
	return nil
}

func printVerify(w io.Writer, r skillinstall.Report) {
	if len(r.Skills) == 0 {
		fmt.Fprintf(w, "No skills locked in %s.\n", r.Lock)
		return
	}
	bad := 0
	for _, c := range r.Skills {
		switch {
		case c.OK:
			fmt.Fprintf(w, "%s: ok\n", c.Name)
			continue
		case !c.Installed:
			fmt.Fprintf(w, "%s: not installed (%s)\n", c.Name, c.Dir)
		default:
			for _, k := range []struct {
				what  string
				files []string
			}{{"changed", c.Changed}, {"missing", c.Missing}, {"extra", c.Extra}, {"unreadable", c.Unreadable}} {
				for _, f := range k.files {
					fmt.Fprintf(w, "%s: %s: %s\n", c.Name, k.what, f)
				}
			}
		}
		bad++
	}
	fmt.Fprintf(w, "%d skill(s) checked against %s: %d differ\n", len(r.Skills), r.Lock, bad)
}
