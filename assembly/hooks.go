package assembly

import (
	"fmt"
	"log/slog"
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
// no more of the kernel's), unconfined. transcript names a session's
// transcript for "transcript_path".
func openHooks(cfg Config, base, workDir string, box sandbox.Config, opts Options, transcript func(string) string) ([]kernel.Capability, error) {
	if unknown := cmdhooks.Unknown(cfg.Hooks); len(unknown) > 0 {
		w := contract.Warning{Source: "config", Path: "hooks", Message: fmt.Sprintf(
			"Helios does not run the event(s) %s: their hooks are ignored (Helios runs %s)",
			strings.Join(unknown, ", "), strings.Join(cmdhooks.Events(), ", "))}
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
		Env:        sandbox.Environ(box),
		Transcript: transcript,
		Logger:     opts.Logger,
		OnWarning:  opts.OnWarning,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return []kernel.Capability{h}, nil
}
