package assembly

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/helios-agents/helios/sandbox"
)

// sandboxConfig turns the tools.env, tools.passEnv and tools.sandbox keys
// into the sandbox configuration of the model's commands in workDir ("":
// not known yet, its protected paths are not checked). Every
// problem is reported, each naming its JSON path: a writable path or an
// allowed socket that is relative, does not exist or lies in a protected
// path of the work dir or of another writable path, a socket path that is
// no socket, and a variable that may never reach a command (the one named
// by model.apiKeyEnv, any HELIOS_* variable).
func sandboxConfig(cfg Config, workDir string, logger *slog.Logger) (sandbox.Config, error) {
	var deny []string
	if key := apiKeyEnv(cfg.Model); key != "" {
		deny = []string{key}
	}
	var errs []error
	roots := cfg.Tools.Sandbox.Writable
	if workDir != "" {
		roots = append([]string{workDir}, roots...)
	}
	for i, p := range cfg.Tools.Sandbox.Writable {
		if err := sandbox.CheckWritable(p, roots); err != nil {
			errs = append(errs, fmt.Errorf("%w: tools.sandbox.writable[%d]: %v", ErrConfig, i, err))
		}
	}
	for i, p := range cfg.Tools.Sandbox.UnixSockets {
		if err := sandbox.CheckUnixSocket(p, roots); err != nil {
			errs = append(errs, fmt.Errorf("%w: tools.sandbox.unixSockets[%d]: %v", ErrConfig, i, err))
		}
	}
	for i, name := range cfg.Tools.PassEnv {
		if err := sandbox.CheckEnvName(name, deny); err != nil {
			errs = append(errs, fmt.Errorf("%w: tools.passEnv[%d]: %v", ErrConfig, i, err))
		}
	}
	var env []string
	for _, name := range sortedStrings(cfg.Tools.Env) {
		if err := sandbox.CheckEnvName(name, deny); err != nil {
			errs = append(errs, fmt.Errorf("%w: tools.env.%s: %v", ErrConfig, name, err))
		}
		env = append(env, name+"="+cfg.Tools.Env[name])
	}
	if err := errors.Join(errs...); err != nil {
		return sandbox.Config{}, err
	}
	return sandbox.Config{
		Mode:        cfg.Tools.Sandbox.Mode.mode(),
		Writable:    resolved(cfg.Tools.Sandbox.Writable),
		UnixSockets: resolved(cfg.Tools.Sandbox.UnixSockets),
		Network:     cfg.Tools.Sandbox.Network,
		Env:         env,
		PassEnv:     cfg.Tools.PassEnv,
		Deny:        deny,
		Logger:      logger,
	}, nil
}

// OpenSandbox makes the sandbox of the model's commands as Build would,
// without assembling a kernel (`helios sandbox check`). It returns the work
// dir, symlinks resolved, with it.
func OpenSandbox(_ context.Context, cfg Config, opts Options) (*sandbox.Sandbox, string, error) {
	if err := cfg.Validate(); err != nil {
		return nil, "", err
	}
	base, err := baseDir(opts.BaseDir)
	if err != nil {
		return nil, "", err
	}
	workDir, err := workDirOf(cfg, base, opts)
	if err != nil {
		return nil, "", err
	}
	if real, err := filepath.EvalSymlinks(workDir); err == nil {
		workDir = real
	}
	sc, err := sandboxConfig(cfg, workDir, opts.Logger)
	if err != nil {
		return nil, "", err
	}
	s, err := sandbox.New(sc)
	return s, workDir, err
}

// resolved returns paths with their symlinks resolved: Landlock rules and
// mounts hold resolved paths.
func resolved(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		out[i] = p
	}
	return out
}

// apiKeyEnv is the variable holding the model's API key ("" for none).
func apiKeyEnv(m ModelConfig) string {
	if m.APIKeyEnv != nil {
		return *m.APIKeyEnv
	}
	return DefaultAPIKeyEnv
}

func sortedStrings(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
