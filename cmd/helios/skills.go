package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"
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
	var wide bool
	c := &cobra.Command{
		Use:   "list",
		Short: "Show the merged catalog: which skills the model gets, from where, and why others were left out",
		Long: "Show the merged catalog: which skills the model gets, from where, and why others were left out.\n" +
			"On a terminal, descriptions are cut to fit its width (or $COLUMNS); --wide or --json show them whole,\n" +
			"as does output to a pipe or a file.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				cat := k.Catalog(cmd.Context())
				view := k.CatalogView(cat, k.CatalogBudget())
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
				opts := listOptions{}
				if !wide {
					opts.width = termWidth(cmd.OutOrStdout())
				}
				if len(out.Skills) == 0 {
					opts.roots = searchedRoots(k.SkillRoots())
				}
				printList(bw, out, opts)
				return bw.Flush()
			})
		},
	}
	c.Flags().BoolVar(&wide, "wide", false, "show whole descriptions, however wide the terminal")
	return c
}

// listOptions shape the table of `skills list`.
type listOptions struct {
	// width is the terminal's: descriptions are cut so that rows fit it
	// (as far as the other columns leave room). 0 shows them whole.
	width int
	// roots are the roots searched, told when there is no skill.
	roots []searchedRoot
}

// searchedRoot is a skills root and whether it exists.
type searchedRoot struct {
	path    string
	missing bool
}

// searchedRoots tells which of the roots exist, for the empty state.
func searchedRoots(roots []string) []searchedRoot {
	out := make([]searchedRoot, 0, len(roots))
	for _, r := range roots {
		_, err := os.Stat(r)
		out = append(out, searchedRoot{path: r, missing: errors.Is(err, os.ErrNotExist)})
	}
	return out
}

// termWidth is the width of the terminal w writes to, else $COLUMNS when
// it is set, else 0: output to a pipe or a file keeps whole rows.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
			return cols
		}
	}
	if cols, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && cols > 0 {
		return cols
	}
	return 0
}

// minDescription is the fewest characters of a description a cut row
// keeps, even when the other columns leave less room (the row then
// overflows).
const minDescription = 20

func printList(w io.Writer, l listJSON, opts listOptions) {
	if len(l.Skills) == 0 {
		printEmpty(w, opts.roots)
	} else {
		type row struct{ name, source, desc, base string }
		rows := make([]row, len(l.Skills))
		nameW, sourceW, baseW := len("NAME"), len("SOURCE"), len("BASE DIR")
		for i, s := range l.Skills {
			name := s.Name
			if s.DisableModelInvocation {
				name += " (hidden from model)"
			}
			rows[i] = row{sanitize.Text(name), sanitize.Text(s.Source), s.Description, sanitize.Text(s.BaseDir)}
			if opts.width > 0 {
				rows[i].base = homeShort(rows[i].base)
				nameW = max(nameW, utf8.RuneCountInString(rows[i].name))
				sourceW = max(sourceW, utf8.RuneCountInString(rows[i].source))
				baseW = max(baseW, utf8.RuneCountInString(rows[i].base))
			}
		}
		descW := 0 // whole
		if opts.width > 0 {
			// Three gaps of 2 between four columns.
			descW = max(minDescription, opts.width-nameW-sourceW-baseW-3*2)
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION\tBASE DIR")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.name, r.source, clip(r.desc, descW), r.base)
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

// printEmpty is the empty state: no skill, the roots searched, and how to
// get skills. nil roots (not looked up) print only the first line.
func printEmpty(w io.Writer, roots []searchedRoot) {
	switch {
	case roots == nil:
		fmt.Fprintln(w, "No skills.")
		return
	case len(roots) == 0:
		fmt.Fprintln(w, "No skills: no skills root is configured (skills.userRoots and skills.projectRoots are empty).")
		fmt.Fprintln(w, "\nInstall skills with `helios skills add SOURCE` (a git repository).")
		return
	default:
		fmt.Fprintln(w, "No skills. Searched these roots, in order:")
		for _, r := range roots {
			if r.missing {
				fmt.Fprintf(w, "  %s (missing)\n", sanitize.Text(r.path))
			} else {
				fmt.Fprintf(w, "  %s\n", sanitize.Text(r.path))
			}
		}
	}
	fmt.Fprintln(w, "\nInstall skills with `helios skills add SOURCE` (a git repository), or put a folder with a SKILL.md in one of these roots.")
}

// homeShort writes a path under the home directory with ~, to leave the
// description room.
func homeShort(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == string(filepath.Separator) {
		return p
	}
	if rest, ok := strings.CutPrefix(p, home); ok && (rest == "" || rest[0] == filepath.Separator) {
		return "~" + rest
	}
	return p
}

// clip shows untrusted text on one line of at most n runes (any length
// when n is 0): hidden characters made visible (package sanitize),
// whitespace collapsed, the rest cut with an ellipsis.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(sanitize.Text(s)), " ")
	if n <= 0 {
		return s
	}
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
