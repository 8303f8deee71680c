package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/commands"
	"github.com/helios-agents/helios/cmd/helios/tui"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/workfs"
)

func commandsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "commands",
		Short: "Slash commands: Markdown prompt templates in .helios/commands and .claude/commands",
		Args:  args(cobra.NoArgs),
		RunE:  groupHelp,
	}
	c.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the slash commands of the work dir and home, project first; exit 1 if one cannot be read",
		Long: "List the slash commands helios run /NAME and the UI's /NAME run: Markdown files in <work>/.helios/commands,\n" +
			"<work>/.claude/commands, ~/.helios/commands and ~/.claude/commands, in that order (the first of a name wins;\n" +
			"subfolders give a:b names). The folders are read again each time: a new file shows at once. A file that\n" +
			"cannot be read (broken frontmatter) is listed with its error.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, done, err := g.commandSet(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			cmds, warnings := set.List()
			out := commandsJSON{Commands: []commandJSON{}, Warnings: warnings}
			if out.Warnings == nil {
				out.Warnings = []string{}
			}
			failed := false
			for _, c := range cmds {
				j := commandJSON{Command: c}
				if c.Err != nil {
					j.Error = c.Err.Error()
					failed = true
				}
				out.Commands = append(out.Commands, j)
			}
			if g.json {
				err = writeJSON(cmd.OutOrStdout(), out)
			} else {
				printCommands(cmd.OutOrStdout(), cmd.ErrOrStderr(), out)
			}
			if err == nil && failed {
				return exitError{exitFail}
			}
			return err
		},
	})
	return c
}

// commandsJSON is the `commands list --json` contract.
type commandsJSON struct {
	Commands []commandJSON `json:"commands"`
	Warnings []string      `json:"warnings"`
}

type commandJSON struct {
	commands.Command
	Error string `json:"error,omitempty"`
}

func printCommands(w, errw io.Writer, out commandsJSON) {
	if len(out.Commands) == 0 {
		fmt.Fprintln(w, "no commands (add Markdown files to .claude/commands or ~/.claude/commands)")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range out.Commands {
		desc := c.Description
		if c.Error != "" {
			desc = "error: " + c.Error
		}
		fmt.Fprintf(tw, "/%s\t%s\t%s\t%s\n", sanitize.Text(c.Name), c.Source, sanitize.Text(c.ArgumentHint), sanitize.Text(clip(desc, 100)))
	}
	tw.Flush()
	for _, warn := range out.Warnings {
		fmt.Fprintf(errw, "warning: %s\n", sanitize.Text(warn))
	}
}

// commandSet reads the commands of the work dir and home. !`cmd` runs in
// the sandbox the config gives the Bash tool.
func (g *globals) commandSet(ctx context.Context) (*commands.Set, func(), error) {
	c, err := g.readConfig()
	if err != nil {
		return nil, nil, err
	}
	box, wd, err := assembly.OpenSandbox(ctx, c.cfg, assembly.Options{BaseDir: c.base, WorkDir: c.workDir, Logger: g.logger})
	if err != nil {
		return nil, nil, err
	}
	work, err := workfs.New(wd)
	if err != nil {
		box.Close()
		return nil, nil, err
	}
	// The installed plugins' commands, namespaced /<plugin>:<command>;
	// their warnings are the kernel's to tell, not the command's.
	installed, _ := assembly.InstalledPlugins(wd, assembly.Options{ProjectPlugins: c.trusted})
	set := commands.New(commands.Config{Work: work, Runner: box, Plugins: assembly.PluginCommands(installed)})
	return set, func() { work.Close(); box.Close() }, nil
}

// slashPrompt expands `helios run /name args…` into the prompt to send,
// printing the expansion's warnings on errw. ok is false when a[0] is no
// slash command: a[0] is then the prompt itself.
func (g *globals) slashPrompt(ctx context.Context, a []string, errw io.Writer) (prompt string, allowedTools []string, ok bool, err error) {
	first, rest, _ := strings.Cut(a[0], " ")
	name, isSlash := strings.CutPrefix(first, "/")
	if !isSlash || name == "" || strings.Contains(name, "/") {
		if len(a) > 1 {
			return "", nil, false, usageError{fmt.Errorf("run takes one PROMPT (quote it), or /COMMAND and its arguments; got %d arguments", len(a))}
		}
		return "", nil, false, nil
	}
	args := strings.TrimSpace(strings.Join(append([]string{rest}, a[1:]...), " "))
	set, done, err := g.commandSet(ctx)
	if err != nil {
		return "", nil, false, err
	}
	defer done()
	ex, err := set.Expand(ctx, name, args)
	if errors.Is(err, commands.ErrNotFound) {
		return "", nil, false, fmt.Errorf("%w (helios commands list shows them)", err)
	}
	if err != nil {
		return "", nil, false, err
	}
	for _, w := range ex.Warnings {
		fmt.Fprintf(errw, "helios: /%s: %s\n", sanitize.Text(name), sanitize.Text(w))
	}
	if ex.Command.Model != "" {
		fmt.Fprintf(errw, "helios: /%s: model %q is not applied: the session uses model.name\n", sanitize.Text(name), sanitize.Text(ex.Command.Model))
	}
	return ex.Prompt, ex.Command.AllowedTools, true, nil
}

// chatCommands adapts the commands to what the UI consumes. A broken file
// completes with its error as its description; running it shows the error.
type chatCommands struct{ set *commands.Set }

func (c chatCommands) List() []tui.SlashCommand {
	cmds, _ := c.set.List()
	out := make([]tui.SlashCommand, 0, len(cmds))
	for _, cmd := range cmds {
		// Names and text from files are made safe for the terminal (C19).
		sc := tui.SlashCommand{Name: sanitize.Text(cmd.Name), Description: sanitize.Text(cmd.Description), ArgumentHint: sanitize.Text(cmd.ArgumentHint)}
		if cmd.Err != nil {
			sc.Description, sc.ArgumentHint = sanitize.Text("error: "+cmd.Err.Error()), ""
		}
		out = append(out, sc)
	}
	return out
}

// AllowedTools are the command's allowed-tools, which pre-approve calls
// during the turn it starts.
func (c chatCommands) AllowedTools(_ context.Context, name string) []string {
	cmd, _, err := c.set.Get(name)
	if err != nil {
		return nil
	}
	return cmd.AllowedTools
}

func (c chatCommands) Expand(ctx context.Context, name, args string) (string, []string, error) {
	ex, err := c.set.Expand(ctx, name, args)
	return ex.Prompt, ex.Warnings, err
}
