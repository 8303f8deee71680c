package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/cmd/helios/tui"
	"github.com/helios-agents/helios/kernel"
)

func chatCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "chat",
		Short: "Open the interactive terminal UI (what helios alone does on a terminal)",
		Long: "Open the interactive terminal UI: talk to the agent in the work dir, with the answer streaming and each\n" +
			"tool call shown as it happens. /skill:<name> loads a skill into the conversation (a popup completes\n" +
			"the names and follows the skill folders live), /skills lists the catalog, /help shows the keys,\n" +
			"/quit or Ctrl-C leaves. Without a model configured the UI still opens to browse and load skills.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !onTerminal() {
				return errors.New("chat needs a terminal (stdin and stdout)")
			}
			return runChat(cmd, g)
		},
	}
}

// rootChat runs `helios` alone: the UI on a terminal; the help when stdin or
// stdout is not one (a script or a pipe wants the usage, not a TTY error).
func rootChat(g *globals) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if !onTerminal() {
			return cmd.Help()
		}
		return runChat(cmd, g)
	}
}

func onTerminal() bool {
	return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}

// runChat opens the kernel with its watchers, runs the UI until the user
// quits, then closes the kernel (releasing the watchers).
func runChat(cmd *cobra.Command, g *globals) error {
	ctx := cmd.Context()
	g.watch = true
	k, err := g.openKernel(ctx)
	if err != nil {
		return err
	}
	defer k.Close()
	cfg := tui.Config{
		Kernel:   chatKernel{k},
		ModelErr: k.ModelErr(),
		Model:    g.modelName(),
		WorkDir:  k.WorkDir(),
		Redact:   g.secrets.String,
	}
	if c := g.loaded; c != nil {
		cfg.Notices, cfg.ConfigIgnored = c.notices, c.ignored != ""
	}
	if set, done, err := g.commandSet(ctx); err == nil {
		defer done()
		cfg.Commands = chatCommands{set}
	} else {
		cfg.Notices = append(cfg.Notices, "slash commands are off: "+err.Error())
	}
	if cfg.ModelErr == nil {
		cfg.OpenSession = func(ctx context.Context, observe func(kernel.Update), confirm tui.Confirm) (tui.Session, error) {
			s, err := k.OpenSession(ctx, kernel.SessionConfig{Observe: observe, Confirm: confirm})
			if err != nil {
				return nil, err
			}
			return s, nil
		}
	}
	res, err := tui.Run(ctx, cfg)
	if res.SessionID != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "session %s (helios run --resume %s \"...\" continues it)\n", res.SessionID, res.SessionID)
	}
	return errors.Join(err, k.Close())
}

// modelName is the configured model's name for the status line ("" when
// the config cannot say).
func (g *globals) modelName() string {
	c, err := g.readConfig()
	if err != nil {
		return ""
	}
	return c.cfg.Model.Name
}

// chatKernel adapts the kernel to what the UI consumes.
type chatKernel struct{ *kernel.Kernel }

// The status line shows what the catalog budget cut.
var _ tui.CatalogViewer = chatKernel{}

func (k chatKernel) OnSkillsChanged(fn func()) func() { return k.Skills().OnChange(fn) }
