package assembly

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/sandbox"
)

// openHooks makes the capability of the config's "hooks" key, or nothing
// when it configures no event Helios runs. An event Helios does not run is
// one warning naming it. The commands get the environment the model's
// commands get (they are the person's code, not the model's, but they need
// no more of the kernel's), unconfined.
func openHooks(cfg Config, base, workDir string, box sandbox.Config, opts Options) ([]kernel.Capability, error) {
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
	var transcript func(string) string
	if cfg.Sessions.Store != StorePostgres {
		dir, err := sessionsDir(cfg.Sessions, base)
		if err != nil {
			return nil, err
		}
		transcript = func(id string) string {
			p := filepath.Join(dir, id+".jsonl")
			if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
				return "" // a session of another store (an embedder's)
			}
			return p
		}
	}
	h, err := cmdhooks.New(cmdhooks.Config{
		Settings:   cfg.Hooks,
		WorkDir:    workDir,
		Env:        sandbox.Environ(box),
		Transcript: transcript,
		Logger:     opts.Logger,
		OnWarning:  opts.OnWarning,
		PluginRoot: cfg.hooksFrom.PluginRoot,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return []kernel.Capability{h}, nil
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
