package assembly

import (
	"cmp"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/runpin"
	"github.com/helios-agents/helios/sandbox"
)

// openHooks makes the capability of the config's "hooks" key, or nothing
// when it configures no event Helios runs. An event Helios does not run is
// one warning naming it. The commands are the person's code: they run
// unconfined and inherit Helios's environment, as Claude Code's hooks do,
// but for the secrets Helios holds (secretEnvNames, opts.Secrets).
// transcript names a session's transcript for "transcript_path".
func openHooks(cfg Config, base, workDir string, envFile func(string) string, opts Options, pins *runpin.Pins, transcript func(string) string) ([]kernel.Capability, error) {
	for _, w := range HookWarnings(cfg) {
		if opts.Logger != nil {
			opts.Logger.Warn("config", slog.String("key", w.Path), slog.String("message", w.Message))
		}
		if opts.OnWarning != nil {
			opts.OnWarning(w)
		}
	}
	if !cmdhooks.Configured(cfg.Hooks) {
		return nil, nil
	}
	h, err := cmdhooks.New(cmdhooks.Config{
		Settings:   cfg.Hooks,
		WorkDir:    workDir,
		Hide:       secretEnvNames(cfg),
		Secrets:    opts.Secrets,
		EnvFile:    envFile,
		Transcript: transcript,
		Logger:     opts.Logger,
		OnWarning:  opts.OnWarning,
		PluginRoot: cfg.hooksFrom.PluginRoot,
		Pins:       pins,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return []kernel.Capability{h}, nil
}

// secretEnvNames are the variables the config reads a secret from: the
// model's API key, the database URL, and for each MCP server its bearer
// token and the variables its env and headers take values from.
func secretEnvNames(cfg Config) []string {
	out := []string{cmp.Or(cfg.Sessions.Postgres.URLEnv, DefaultPostgresURLEnv)}
	if env := apiKeyEnv(cfg.Model); env != "" {
		out = append(out, env)
	}
	for _, s := range cfg.MCP.Servers {
		if s.BearerTokenEnv != "" {
			out = append(out, s.BearerTokenEnv)
		}
		for _, v := range mcpValues(s) {
			if v.path[0] != "env" && v.path[0] != "headers" {
				continue
			}
			for _, m := range varRef().FindAllStringSubmatch(v.value, -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// envFiles returns where each session's CLAUDE_ENV_FILE is:
// <sessions dir>/env/<id>.sh, beside the session's state and out of the
// model's reach. Nil when no hook runs (nothing would write one), when
// there is no sessions dir, or when that folder is one the model's
// commands may write (a sessions.dir in the work dir or a writable path):
// then a warning says so, since a file the model writes must not set the
// environment of its own commands through a hook's channel.
func envFiles(cfg Config, base, workDir string, box sandbox.Config, opts Options) func(string) string {
	if !cmdhooks.Configured(cfg.Hooks) {
		return nil
	}
	dir, err := sessionsDir(cfg.Sessions, base)
	if err != nil {
		return nil
	}
	dir = filepath.Join(dir, "env")
	for _, root := range append([]string{workDir}, box.Writable...) {
		if within(root, dir) && !within(filepath.Join(workDir, ".helios"), dir) {
			w := contract.Warning{Source: "config", Path: "sessions.dir", Message: fmt.Sprintf(
				"%s is in %s, which the model's commands may write: hooks get no CLAUDE_ENV_FILE", dir, root)}
			if opts.Logger != nil {
				opts.Logger.Warn("config", slog.String("key", w.Path), slog.String("message", w.Message))
			}
			if opts.OnWarning != nil {
				opts.OnWarning(w)
			}
			return nil
		}
	}
	return func(id string) string {
		if id == "" || id == "." || id == ".." || filepath.Base(id) != id {
			return "" // no session, or an id that is no file name
		}
		return filepath.Join(dir, id+".sh")
	}
}

// within says whether path is root or lies under it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// HookWarnings lists what is ignored of the config's "hooks" key: the
// events Helios does not run (one warning naming them all), then each
// unknown field by its JSON path (a newer Claude Code's).
func HookWarnings(cfg Config) []contract.Warning {
	var out []contract.Warning
	if unknown := cmdhooks.Unknown(cfg.Hooks); len(unknown) > 0 {
		out = append(out, contract.Warning{Source: "config", Path: "hooks", Message: fmt.Sprintf(
			"Helios does not run the event(s) %s: their hooks are ignored (Helios runs %s)",
			strings.Join(unknown, ", "), strings.Join(cmdhooks.Events(), ", "))})
	}
	for _, w := range cfg.hooksFrom.Warnings {
		path, _, _ := strings.Cut(w, ": ")
		if cfg.hooksFrom.File != "" {
			path = "hooks"
		}
		out = append(out, contract.Warning{Source: "config", Path: path, Message: w})
	}
	return out
}
