package assembly

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/otelsetup"
	"github.com/helios-agents/helios/plugins/host"
	"github.com/helios-agents/helios/runpin"
)

// PluginConfig is one entry of "plugins": a plugin binary (built with
// plugins/sdk) that the kernel starts, supervises and stops.
type PluginConfig struct {
	// Name is the capability's name: its skills are listed with source
	// "capability:<name>", its hook handlers under it. Required, unique.
	Name string `json:"name"`
	// Command is the executable, relative to the config file's folder.
	// Required.
	Command string `json:"command"`
	// Args are its arguments.
	Args []string `json:"args"`
	// Env is added to the plugin's environment. A plugin does not inherit
	// the kernel's (API keys stay with the kernel): it gets PATH, HOME,
	// USER, LOGNAME, LANG, LC_ALL, LC_CTYPE, TMPDIR and TZ, plus these.
	Env map[string]string `json:"env"`
	// SHA256 pins the executable: the hex SHA-256 it must have, checked
	// before every start (`helios plugins check` prints it). Default: not
	// checked.
	SHA256 string `json:"sha256"`
	// StartTimeout bounds a start: process, handshake, AutoMTLS and its
	// self-description. Default "10s".
	StartTimeout Duration `json:"startTimeout"`
	// CallTimeout bounds each call to the plugin: a hook handler, a skill
	// load, a tool call. Default "10s".
	CallTimeout Duration `json:"callTimeout"`
}

// PluginHostConfigs turns the "plugins" key into the configs plugins/host
// launches, with commands resolved against base and plugin output logged to
// logger.
func PluginHostConfigs(cfg Config, base string, logger *slog.Logger) ([]host.Config, error) {
	if p := pluginProblems(cfg.Plugins); len(p) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrConfig, strings.Join(p, "; "))
	}
	var out []host.Config
	for _, p := range cfg.Plugins {
		keys := make([]string, 0, len(p.Env))
		for k := range p.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		env := make([]string, 0, len(keys))
		for _, k := range keys {
			env = append(env, k+"="+p.Env[k])
		}
		out = append(out, host.Config{
			Name:         p.Name,
			Command:      resolve(base, p.Command),
			Args:         p.Args,
			Env:          env,
			SHA256:       p.SHA256,
			StartTimeout: time.Duration(p.StartTimeout),
			CallTimeout:  time.Duration(p.CallTimeout),
			Logger:       logger,
		})
	}
	return out, nil
}

// openPlugins starts every configured plugin, in order, adding each to
// opened so that a failed assembly stops it; the error names the plugin.
// Once assembled, Kernel.Close stops them: a capability that is an
// io.Closer is closed with the kernel.
func openPlugins(ctx context.Context, cfg Config, base string, opts Options, pins *runpin.Pins, tel *telemetry.T, handover string, opened *[]io.Closer) ([]kernel.Capability, error) {
	configs, err := PluginHostConfigs(cfg, base, opts.Logger)
	if err != nil {
		return nil, err
	}
	var caps []kernel.Capability
	for i, hc := range configs {
		// A plugin whose executable the model could change and did is
		// off, with one warning: the rest start.
		if err := pins.Check(runpin.Argv(append([]string{hc.Command}, hc.Args...), base)); err != nil {
			w := contract.Warning{Source: "config", Path: fmt.Sprintf("plugins[%d]", i), Message: fmt.Sprintf("plugin %q is off: %v", hc.Name, err)}
			if opts.Logger != nil {
				opts.Logger.Warn(w.Message)
			}
			if opts.OnWarning != nil {
				opts.OnWarning(w)
			}
			continue
		}
		hc.Telemetry = tel
		if handover != "" {
			// The plugin exports where the kernel does, under its own
			// service.name (plugins/sdk reads it).
			hc.Env = append(hc.Env, otelsetup.HandoverEnv+"="+handover)
		}
		c, err := host.Launch(ctx, hc)
		if err != nil {
			return nil, err
		}
		*opened = append(*opened, c)
		caps = append(caps, c)
	}
	return caps, nil
}
