package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/cmd/helios/internal/trust"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/kernel/sanitize"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and found a problem (or failed)
	exitUsage = 2 // the command line itself is wrong
)

// globals are the flags every command shares.
type globals struct {
	workDir string
	config  string
	json    bool
	watch   bool // start the file watchers (long-running commands only)
	noMCP   bool // leave the config's MCP servers off (helios mcp)
	// logger receives the kernel's warnings (a failing hook handler, a
	// plugin's stderr, a watcher that cannot observe a root). Commands that
	// print to the terminal set it to stderr; the UI leaves it silent.
	logger *slog.Logger
	// stderr is the process's stderr: the stdout telemetry exporters write
	// there, since stdout carries the command's output (or a protocol).
	stderr io.Writer
	// loaded is the config, once read (see readConfig).
	loaded *loadedConfig
	// secrets are replaced by [REDACTED] in everything the command writes
	// to stdout and stderr; the assembly adds the config's (the model key,
	// the database password), helios mcp its token.
	secrets *redact.Secrets
	// askTTY says stdin and stderr are this process's terminal: `helios
	// run` asks the person there (see askOnTerminal).
	askTTY bool
}

// exitError carries an exit code out of a command without printing more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError marks errors in the command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// A reader that goes away ends the command: at the next write, or at
	// once when stdout is a pipe (see outWriter and watchClosed).
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := &outWriter{w: stdout, onFail: func() { cancel(errStdoutClosed) }}
	stop := watchClosed(stdout, func() { cancel(errStdoutClosed) })
	defer stop()
	askTTY := askOnTerminal(stderr)
	secrets := redact.New()
	stdout, stderr = secrets.Writer(out), secrets.Writer(stderr)

	g := &globals{stderr: stderr, secrets: secrets, askTTY: askTTY}
	root := &cobra.Command{
		Use:           "helios",
		Short:         "Helios: a kernel for AI coding agents",
		Long:          "Helios assembles an agent kernel from helios.config.json: skills from user, project and capability sources, and hooks on ordered mount points.",
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints "helios version <v>" (see version).
		Version: version(),
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&g.workDir, "work-dir", "", "the agent's work dir (default: the current directory)")
	pf.StringVar(&g.config, "config", "", "config file (default: <work-dir>/helios.config.json when it exists and you trusted it: see helios trust)")
	pf.BoolVar(&g.json, "json", false, "print data as JSON")

	root.AddCommand(skillsCmd(g), agentsCmd(g), hooksCmd(g), runCmd(g), sessionsCmd(g), chatCmd(g), pluginsCmd(g), sandboxCmd(g), mcpCmd(g), trustCmd(g), contextCmd(g))
	root.AddCommand(commandsCmd(g), permissionsCmd(g), acpCmd(g))
	root.RunE = rootChat(g) // helios alone opens the UI (chat.go)

	err := root.ExecuteContext(ctx)
	var ee exitError
	var ue usageError
	werr := out.failed()
	switch {
	case errors.Is(werr, syscall.EPIPE) || (werr == nil && errors.Is(context.Cause(ctx), errStdoutClosed)):
		return exitPipe // no one reads: nothing to say, and no one to say it to
	case werr != nil:
		fmt.Fprintf(stderr, "helios: write output: %v\n", werr)
		return exitFail
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue), isCobraUsage(err):
		fmt.Fprintf(stderr, "helios: %v\nRun 'helios --help' for usage.\n", err)
		return exitUsage
	default:
		// Errors quote servers and files (a model endpoint's message).
		fmt.Fprintf(stderr, "helios: %s\n", sanitize.Text(err.Error()))
		return exitFail
	}
}

// isCobraUsage recognizes cobra's own "unknown command" error, which it
// returns as a plain error.
func isCobraUsage(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command ")
}

// args wraps a cobra argument validator so its errors count as usage errors.
func args(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := v(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// groupHelp runs a command group given no subcommand. A group must be
// runnable: cobra checks Args only on runnable commands, so without it
// `helios skills bogus` would print help and exit 0 instead of being a usage
// error.
func groupHelp(cmd *cobra.Command, _ []string) error { return cmd.Help() }

// openKernel assembles the kernel the flags describe.
func (g *globals) openKernel(ctx context.Context) (*kernel.Kernel, error) {
	c, err := g.readConfig()
	if err != nil {
		return nil, err
	}
	opts := assembly.Options{BaseDir: c.base, WorkDir: c.workDir, Watch: g.watch, NoMCP: g.noMCP, Logger: g.logger, TelemetryStdout: g.stderr, Secrets: g.secrets, Trusted: c.runs, ProjectPlugins: c.trusted}
	if g.logger == nil {
		// A command that logs nothing still tells what the config costs:
		// an MCP server off for an unset variable, ignored hooks.
		opts.OnWarning = func(w contract.Warning) {
			if w.Source == "config" {
				fmt.Fprintf(g.stderr, "helios: warning: %s\n", sanitize.Text(w.Message))
			}
		}
	}
	return assembly.Build(ctx, c.cfg, opts)
}

// withKernel assembles the kernel the flags describe, runs fn with it and
// closes it.
func (g *globals) withKernel(cmd *cobra.Command, fn func(*kernel.Kernel) error) error {
	k, err := g.openKernel(cmd.Context())
	if err != nil {
		return err
	}
	defer k.Close()
	return fn(k)
}

// loadedConfig is the config the flags name, read once per command.
type loadedConfig struct {
	cfg     assembly.Config
	base    string // what relative paths in cfg resolve against
	workDir string // --work-dir, made absolute; "" when not given
	// ignored is the untrusted config found in the work dir and not
	// applied; notices say so, once on stderr and in the UI.
	ignored string
	notices []string
	// runs are the digests `helios trust` recorded of what the work dir's
	// config runs; nil for --config, whose files are hashed at load.
	runs map[string]string
	// trusted: the config was named (--config) or is the work dir's and
	// trusted, so the work dir's installed plugins load too.
	trusted bool
}

// readConfig reads the config the flags name, once: --config FILE (the
// user's explicit choice, always applied), else <work-dir>/helios.config.json
// when the user trusted its content (see `helios trust`), else the
// defaults. --work-dir wins over the config's workDir. An untrusted file
// found in the work dir is not applied at all; its notice goes to stderr
// the first time.
func (g *globals) readConfig() (*loadedConfig, error) {
	if g.loaded != nil {
		return g.loaded, nil
	}
	workDir := g.workDir
	if workDir != "" {
		var err error
		if workDir, err = filepath.Abs(workDir); err != nil {
			return nil, err
		}
		if fi, err := os.Stat(workDir); err != nil {
			return nil, fmt.Errorf("--work-dir: %w", err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("--work-dir %s: not a directory", workDir)
		}
	}
	c := &loadedConfig{workDir: workDir}
	if g.config != "" {
		cfg, base, err := assembly.ReadConfig(g.config)
		if err != nil {
			return nil, err
		}
		c.cfg, c.base, c.trusted = cfg, base, true
	} else {
		lookIn := workDir
		if lookIn == "" {
			var err error
			if lookIn, err = os.Getwd(); err != nil {
				return nil, err
			}
		}
		store, err := trust.DefaultStore()
		if err != nil {
			return nil, err
		}
		found, err := trust.ReadWorkDir(lookIn, store)
		if err != nil {
			return nil, err
		}
		c.cfg, c.base, c.ignored, c.notices, c.runs = found.Config, found.Base, found.Ignored, found.Notices, found.Runs
		c.trusted = found.Path != ""
		for _, n := range c.notices {
			fmt.Fprintf(g.stderr, "helios: %s\n", n)
		}
	}
	g.loaded = c
	return c, nil
}

// stderrLogger logs warnings and errors as text lines on stderr.
func stderrLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
