package assembly

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/helios-agents/helios/caps/extdir"
	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/internal/bytesize"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/redact"
	kskills "github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/kernel/telemetry/otelsetup"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/kernel/workfs"
)

// ConfigFileName is the name looked for in the work dir.
const ConfigFileName = "helios.config.json"

// Options are the caller's overrides. The zero value uses the config as is.
type Options struct {
	// WorkDir overrides the config's workDir (the CLI's --work-dir).
	WorkDir string
	// Logger receives the kernel's warnings. Nil discards.
	Logger *slog.Logger
	// OnWarning receives hook-handler failures.
	OnWarning func(contract.Warning)
	// Watch starts the file watchers of skills.watch, for long-running
	// commands (skills watch, run, the UI). One-shot commands leave it off:
	// they read the folders once and exit.
	Watch bool
	// TelemetryStdout is where the stdout telemetry exporters write. Nil is
	// os.Stdout; a command whose stdout is data passes its stderr.
	TelemetryStdout io.Writer
	// NoMCP leaves the config's MCP servers off: `helios mcp` serves the
	// local catalog, and a server that started its own servers could start
	// itself, over and over.
	NoMCP bool
	// Capabilities are the application's own in-process capabilities. They
	// are installed as builtins, in this order, after the kernel's own
	// (the builtin tools and the config's extensions) and before every
	// plugin: their hook handlers run before any plugin's, and their skills
	// merge after the extensions'. A name that collides with a configured
	// capability is an error naming both. The kernel closes those that are
	// io.Closers; a failed Build leaves them open.
	Capabilities []kernel.Capability
	// Secrets collects the values to replace by [REDACTED] in everything
	// the kernel logs, stores and exports. Build adds the secrets the
	// config names (the value of model.apiKeyEnv, the PostgreSQL URL's
	// password), so a caller that prints (the CLI's stdout and stderr)
	// can redact with the same set; it may add its own (helios mcp's
	// --token-env). Nil: Build makes one of its own.
	Secrets *redact.Secrets
}

// Load reads the config file at path and assembles a kernel. An empty path
// means no config file: the defaults, with the work dir from opts or the
// current directory.
func Load(ctx context.Context, path string, opts Options) (*kernel.Kernel, error) {
	cfg, base, err := ReadConfig(path)
	if err != nil {
		return nil, err
	}
	return Build(ctx, cfg, base, opts)
}

// ReadConfig reads and strictly decodes a config file, returning it with the
// folder that relative paths in it are resolved against. An empty path is the
// default config, relative to the current directory.
func ReadConfig(path string) (Config, string, error) {
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Config{}, "", fmt.Errorf("config: work dir: %w", err)
		}
		return Config{}, wd, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Config{}, "", fmt.Errorf("config %s: %w", path, err)
	}
	data, err := readConfigFile(abs)
	if err != nil {
		return Config{}, "", err
	}
	cfg, err := ParseConfig(abs, data)
	return cfg, filepath.Dir(abs), err
}

// MaxConfigSize bounds a config file: a Helios config is a few KiB, and a
// path given by mistake (a log, a device) must not be read whole.
const MaxConfigSize = 4 << 20

// readConfigFile reads the config file at path, at most MaxConfigSize bytes.
// A pipe works (--config <(...)); its reader blocks as a file's would not.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("config: %w", err)
	case len(data) > MaxConfigSize:
		return nil, fmt.Errorf("%w: %s: the file is over the limit of %s; a Helios config is a few KiB (is this the right file?)", ErrConfig, path, bytesize.Text(MaxConfigSize))
	}
	return data, nil
}

// FindConfig returns <workDir>/helios.config.json when it exists, else "".
func FindConfig(workDir string) (string, error) {
	p := filepath.Join(workDir, ConfigFileName)
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("config %s: %w", p, err)
	case fi.IsDir():
		return "", fmt.Errorf("config %s: is a directory", p)
	}
	return p, nil
}

// Build assembles a kernel from a decoded config. base is the folder relative
// paths in cfg resolve against. On failure everything already opened is
// closed and the errors are joined.
func Build(ctx context.Context, cfg Config, base string, opts Options) (k *kernel.Kernel, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Secrets == nil {
		opts.Secrets = redact.New()
	}
	opts.Secrets.Add(configSecrets(cfg)...)
	if opts.Logger != nil {
		opts.Logger = slog.New(opts.Secrets.Handler(opts.Logger.Handler()))
	}
	var opened []io.Closer
	defer func() {
		if err != nil {
			errs := []error{err}
			for i := len(opened) - 1; i >= 0; i-- {
				errs = append(errs, opened[i].Close())
			}
			k, err = nil, errors.Join(errs...)
		}
	}()

	workDir, err := workDirOf(cfg, base, opts)
	if err != nil {
		return nil, err
	}
	mode, err := kskills.ParseMode(string(cfg.Skills.Mode))
	if err != nil {
		return nil, fmt.Errorf("%w: skills.mode: %w", ErrConfig, err)
	}
	budget, err := catalogBudget(cfg)
	if err != nil {
		return nil, err
	}
	skillLimits := skillfs.Limits{MaxFrontmatter: cfg.Skills.MaxFrontmatter, MaxFileSize: cfg.Skills.MaxFileSize}
	var userRoots []string
	if cfg.Skills.UserRoots != nil {
		userRoots = []string{}
		for _, r := range *cfg.Skills.UserRoots {
			p, err := expandHome(r)
			if err != nil {
				return nil, fmt.Errorf("skills.userRoots: %w", err)
			}
			userRoots = append(userRoots, resolve(base, p))
		}
	}
	var projectRoots []string
	if cfg.Skills.ProjectRoots != nil {
		projectRoots = append([]string{}, *cfg.Skills.ProjectRoots...)
	}

	port, err := workfs.New(workDir)
	if err != nil {
		return nil, fmt.Errorf("work dir: %w", err)
	}
	project := capskills.New(port, projectRoots)
	opened = append(opened, project)

	var caps []kernel.Capability
	for i, e := range cfg.Extensions {
		c, err := extdir.OpenLimited(resolve(base, e.Dir), skillLimits)
		if err != nil {
			return nil, fmt.Errorf("extensions[%d]: %w", i, err)
		}
		caps = append(caps, c)
	}

	box, err := sandboxConfig(cfg, port.Dir(), opts.Logger)
	if err != nil {
		return nil, err
	}
	// The builtin tools share the project's port. Write and Edit tell the
	// kernel at once, so the next step's catalog sees the change.
	var kref *kernel.Kernel
	toolSet, err := tools.New(tools.Config{
		FS:          port,
		BashTimeout: time.Duration(cfg.Tools.BashTimeout),
		MaxOutput:   cfg.Tools.MaxOutput,
		Sandbox:     box,
		OnWrite: func(path string) {
			if kref != nil {
				kref.InvalidatePath(path)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("builtin tools: %w", err)
	}
	opened = append(opened, toolSet)
	caps = append([]kernel.Capability{toolsCapability{toolSet}}, caps...)
	if err := checkOwnCapabilities(opts.Capabilities, cfg, project, caps); err != nil {
		return nil, err
	}

	var resources []io.Closer
	var skillWatcher skillfs.RootWatcher
	if opts.Watch {
		w, err := newWatcher(cfg.Skills.Watch)
		if err != nil {
			return nil, fmt.Errorf("skills watcher: %w", err)
		}
		if w != nil {
			opened = append(opened, w)
			resources = append(resources, w)
			skillWatcher = rootWatcher{w}
		}
	}

	telCfg, err := telemetryConfig(cfg.Telemetry, base, os.Getenv)
	if err != nil {
		return nil, err
	}
	prov, err := openTelemetry(ctx, telCfg, opts)
	if err != nil {
		return nil, err
	}
	var tel *telemetry.T
	if prov != nil {
		opened = append(opened, prov)
		// Closed last (Resources close last first): spans of the plugins'
		// and the watcher's shutdown are still recorded.
		resources = append([]io.Closer{prov}, resources...)
		tel = prov.T
	}

	plugins, err := openPlugins(ctx, cfg, base, opts.Logger, tel, otelsetup.Handover(telCfg), &opened)
	if err != nil {
		return nil, err
	}

	// MCP servers are out-of-process capabilities too: their skills merge
	// after every local source's.
	servers, err := openMCP(cfg, base, port.Dir(), box, opts, tel, &opened)
	if err != nil {
		return nil, err
	}
	plugins = append(plugins, servers...)

	m, noModel := openModel(cfg.Model, opts.Logger)
	store, err := newSessionStore(cfg.Sessions, base)
	if err != nil {
		return nil, err
	}
	commandHooks, err := openHooks(cfg, base, port.Dir(), box, opts)
	if err != nil {
		return nil, err
	}
	resources = append(resources, store)
	k, err = kernel.New(kernel.Config{
		WorkDir:        port.Dir(),
		UserSkillRoots: userRoots,
		Project:        project,
		Capabilities:   append(caps, opts.Capabilities...), // the application's own, after the configured builtins
		CommandHooks:   commandHooks,
		Plugins:        plugins,
		SkillsMode:     mode,
		CatalogBudget:  budget,
		SkillWatcher:   skillWatcher,
		SkillLimits:    skillLimits,
		Model:          m,
		NoModel:        noModel,
		Store:          store,
		MaxSteps:       cfg.Sessions.MaxSteps,
		ContextBudget:  cfg.Sessions.ContextBudget,
		Resources:      resources,
		Logger:         opts.Logger,
		OnWarning:      opts.OnWarning,
		Telemetry:      tel,
		Secrets:        opts.Secrets,
	})
	if err != nil {
		return nil, err
	}
	kref = k
	return k, nil
}

// workDirOf is the work dir: opts.WorkDir, else the config's workDir, else
// the current directory.
func workDirOf(cfg Config, base string, opts Options) (string, error) {
	switch {
	case opts.WorkDir != "":
		return opts.WorkDir, nil
	case cfg.WorkDir != "":
		return resolve(base, cfg.WorkDir), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("work dir: %w", err)
	}
	return wd, nil
}

// checkOwnCapabilities refuses an Options capability that is nil, has no
// name, repeats another, or shares its name with a configured one (the
// builtin tools, the project skills, an extension or a plugin), naming
// both. It runs before any plugin starts.
func checkOwnCapabilities(own []kernel.Capability, cfg Config, project kernel.Capability, configured []kernel.Capability) error {
	taken := map[string]string{project.Name(): "the project skills capability"}
	for i, c := range configured {
		what := "the builtin tools"
		if i > 0 {
			what = fmt.Sprintf("extensions[%d] (%s)", i-1, cfg.Extensions[i-1].Dir)
		}
		taken[c.Name()] = what
	}
	for i, p := range cfg.Plugins {
		taken[p.Name] = fmt.Sprintf("plugins[%d]", i)
	}
	var errs []error
	for i, c := range own {
		at := fmt.Sprintf("Options.Capabilities[%d]", i)
		if c == nil {
			errs = append(errs, fmt.Errorf("assembly: %s is nil", at))
			continue
		}
		name := c.Name()
		switch other, dup := taken[name]; {
		case name == "":
			errs = append(errs, fmt.Errorf("assembly: %s has an empty name", at))
		case dup:
			errs = append(errs, fmt.Errorf("assembly: %s is named %q, like %s", at, name, other))
		default:
			taken[name] = at
		}
	}
	return errors.Join(errs...)
}

func resolve(base, p string) string {
	if p == "" {
		return base
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// expandHome turns a leading "~/" (or a lone "~") into the home directory.
func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}
