package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

func skillsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "skills",
		Short: "List, load, validate and install skills",
		Args:  args(cobra.NoArgs),
		RunE:  groupHelp,
	}
	c.AddCommand(skillsListCmd(g), skillsLoadCmd(g), skillsValidateCmd(g), skillsWatchCmd(g), skillsCatalogCmd(g))
	c.AddCommand(skillsInstallCmds(g)...)
	return c
}

// listJSON is the `skills list --json` contract; scripts depend on it.
type listJSON struct {
	Complete bool               `json:"complete"`
	Skills   []skillJSON        `json:"skills"`
	Warnings []contract.Warning `json:"warnings"`
}

type skillJSON struct {
	Name                   string `json:"name"`
	Description            string `json:"description"`
	Source                 string `json:"source"`
	BaseDir                string `json:"baseDir"`
	File                   string `json:"file,omitempty"`
	DisableModelInvocation bool   `json:"disableModelInvocation,omitempty"`
}

func toSkillJSON(s skills.Skill) skillJSON {
	return skillJSON{s.Name, s.Description, s.Source, s.BaseDir, s.File, s.DisableModelInvocation}
}

func skillsListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Show the merged catalog: which skills the model gets, from where, and why others were left out",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				cat := k.Catalog(cmd.Context())
				view := k.CatalogView(cat)
				// Sized once: with 10,000 skills, growing these by append
				// copied tens of MB.
				out := listJSON{
					Complete: cat.Complete,
					Skills:   make([]skillJSON, 0, len(cat.Skills)),
					Warnings: make([]contract.Warning, 0, len(cat.Warnings)+len(view.Warnings)),
				}
				for _, s := range cat.Skills {
					out.Skills = append(out.Skills, toSkillJSON(s))
				}
				out.Warnings = append(out.Warnings, cat.Warnings...)
				out.Warnings = append(out.Warnings, view.Warnings...)
				if g.json {
					return writeListJSON(cmd.OutOrStdout(), out)
				}
				// Buffered: the table writes each cell and its padding
				// apart, a system call each when unbuffered (10,000 skills
				// took a second).
				bw := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
				printList(bw, out)
				return bw.Flush()
			})
		},
	}
}

func printList(w io.Writer, l listJSON) {
	if len(l.Skills) == 0 {
		fmt.Fprintln(w, "No skills.")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION\tBASE DIR")
		for _, s := range l.Skills {
			name := s.Name
			if s.DisableModelInvocation {
				name += " (hidden from model)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sanitize.Text(name), sanitize.Text(s.Source), clip(s.Description, 60), sanitize.Text(s.BaseDir))
		}
		tw.Flush()
	}
	if !l.Complete {
		fmt.Fprintln(w, "\nThe catalog is INCOMPLETE: a source could not be read fully (see the warnings).")
	}
	if len(l.Warnings) > 0 {
		fmt.Fprintf(w, "\nWarnings (%d):\n", len(l.Warnings))
		for _, wa := range l.Warnings {
			fmt.Fprintf(w, "  %s\n", sanitize.Text(wa.String()))
		}
	}
}

// clip shows untrusted text on one line of at most n runes: hidden
// characters made visible (package sanitize), whitespace collapsed, the
// rest cut with an ellipsis.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(sanitize.Text(s)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func skillsLoadCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "load NAME",
		Short: "Print exactly the text the model receives when it loads a skill",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				text, err := k.LoadSkill(cmd.Context(), a[0])
				if err != nil {
					return err
				}
				text = sanitize.Text(text) // the body already is; the base dir may not be
				_, err = io.WriteString(cmd.OutOrStdout(), text)
				if err == nil && !strings.HasSuffix(text, "\n") {
					_, err = io.WriteString(cmd.OutOrStdout(), "\n")
				}
				return err
			})
		},
	}
}

// validateJSON is the `skills validate --json` output.
type validateJSON struct {
	OK       bool             `json:"ok"`
	Skills   []skillfs.Report `json:"skills"`
	Problems []validateMissed `json:"problems"`
	Errors   int              `json:"errors"`
	Warnings int              `json:"warnings"`
}

type validateMissed struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func skillsValidateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "validate [PATH...]",
		Short: "Check skill folders, flat .md skills or roots strictly against the Agent Skills spec",
		Long: "Check skills strictly: every spec violation is an error (exit 1), unknown keys are warnings.\n" +
			"PATH may be a skill folder, a flat .md skill or a root of skills; without PATH, every configured root that exists.",
		RunE: func(cmd *cobra.Command, paths []string) error {
			var err error
			if len(paths) == 0 {
				if paths, err = g.configuredRoots(cmd); err != nil {
					return err
				}
			}
			var out validateJSON
			out.Skills = []skillfs.Report{}
			out.Problems = []validateMissed{}
			for _, p := range paths {
				rs, err := skillfs.Validate(skillfs.OSFS{}, p)
				if err != nil {
					out.Problems = append(out.Problems, validateMissed{p, err.Error()})
					out.Errors++
					continue
				}
				for _, r := range rs {
					out.Errors += len(r.Errors)
					out.Warnings += len(r.Warnings)
				}
				out.Skills = append(out.Skills, rs...)
			}
			out.OK = out.Errors == 0
			w := cmd.OutOrStdout()
			if g.json {
				if err := writeJSON(w, out); err != nil {
					return err
				}
			} else {
				printValidate(w, out)
			}
			if !out.OK {
				return exitError{exitFail}
			}
			return nil
		},
	}
}

func printValidate(w io.Writer, v validateJSON) {
	for _, p := range v.Problems {
		fmt.Fprintf(w, "%s: error: %s\n", sanitize.Text(p.Path), sanitize.Text(p.Message))
	}
	for _, r := range v.Skills {
		for _, e := range r.Errors {
			fmt.Fprintf(w, "%s: error: %s\n", sanitize.Text(r.Path), sanitize.Text(e))
		}
		for _, wa := range r.Warnings {
			fmt.Fprintf(w, "%s: warning: %s\n", sanitize.Text(r.Path), sanitize.Text(wa))
		}
		for _, in := range r.Info {
			fmt.Fprintf(w, "%s: info: %s\n", sanitize.Text(r.Path), sanitize.Text(in))
		}
	}
	fmt.Fprintf(w, "%d skill(s) checked: %d error(s), %d warning(s)\n", len(v.Skills), v.Errors, v.Warnings)
}

// configuredRoots lists every configured skills root that exists: user,
// project, then capability roots.
func (g *globals) configuredRoots(cmd *cobra.Command) ([]string, error) {
	k, err := g.openKernel(cmd.Context())
	if err != nil {
		return nil, err
	}
	defer k.Close()
	var out []string
	for _, r := range k.SkillRoots() {
		if _, err := os.Stat(r); err == nil {
			out = append(out, r)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return out, nil
}
