package assembly

import (
	"os"
	"path/filepath"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/runpin"
)

// RunDigests returns what a trust of cfg records beside the config's own
// digest: the SHA-256 of each file its hook commands, MCP stdio servers
// and plugins run (runpin.Command, mcpclient.ServerConfig.Files) that
// lies where the model can write (the work dir and
// tools.sandbox.writable), by absolute path. Build checks them before
// each run (Options.Trusted).
func RunDigests(cfg Config, opts Options) (map[string]string, error) {
	base, err := baseDir(opts.BaseDir)
	if err != nil {
		return nil, err
	}
	roots, files, err := runFiles(cfg, base, opts)
	if err != nil {
		return nil, err
	}
	return runpin.Record(roots, files), nil
}

// runPins are the pins of the files cfg runs: opts.Trusted, or when it is
// nil (a config the user named, trusted as loaded) their digests now.
func runPins(cfg Config, base string, opts Options) (*runpin.Pins, error) {
	roots, files, err := runFiles(cfg, base, opts)
	if err != nil {
		return nil, err
	}
	sums := opts.Trusted
	if sums == nil {
		sums = runpin.Record(roots, files)
	}
	return runpin.New(roots, sums), nil
}

// runFiles returns the model-writable roots (the work dir and
// tools.sandbox.writable, with their symlinks resolved) and the files
// cfg's hooks, stdio servers and plugins run.
func runFiles(cfg Config, base string, opts Options) (roots, files []string, err error) {
	workDir, err := workDirOf(cfg, base, opts)
	if err != nil {
		return nil, nil, err
	}
	if abs, err := filepath.Abs(workDir); err == nil {
		workDir = abs
	}
	if real, err := filepath.EvalSymlinks(workDir); err == nil {
		workDir = real
	}
	roots = append([]string{workDir}, resolved(cfg.Tools.Sandbox.Writable)...)
	if cmdhooks.Configured(cfg.Hooks) {
		h, err := cmdhooks.New(cmdhooks.Config{Settings: cfg.Hooks, WorkDir: workDir, Env: os.Environ(), PluginRoot: cfg.hooksFrom.PluginRoot})
		if err != nil {
			return nil, nil, err
		}
		files = append(files, h.Files()...)
	}
	if len(cfg.MCP.Servers)+len(cfg.MCPServers) > 0 {
		box, err := sandboxConfig(cfg, workDir, nil)
		if err != nil {
			return nil, nil, err
		}
		servers, _, err := mcpServerConfigs(cfg, base, workDir, box)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range servers {
			if !s.Disabled {
				files = append(files, s.Files()...)
			}
		}
	}
	for _, p := range cfg.Plugins {
		files = append(files, runpin.Argv(append([]string{resolve(base, p.Command)}, p.Args...), base)...)
	}
	return roots, files, nil
}
