package assembly

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/helios-agents/helios/kernel/skills/skillfs"

	"github.com/helios-agents/helios/caps/agentplugins"
	"github.com/helios-agents/helios/caps/agents"
	"github.com/helios-agents/helios/caps/extdir"
	"github.com/helios-agents/helios/caps/instructions"
	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/otelsetup"
	"github.com/helios-agents/helios/runpin"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

// ConfigFileName is the name looked for in the work dir.
const ConfigFileName = "helios.config.json"

// Options are the caller's overrides. The zero value uses the config as is.
type Options struct {
	// BaseDir is the folder the config's relative paths (workDir,
	// extensions, plugin commands, sessions.dir…) resolve against: the
	// config file's folder when the config came from a file. Empty: the
	// current directory. Load sets it to the file's folder.
	BaseDir string
	// WorkDir overrides the config's workDir (the CLI's --work-dir).
	WorkDir string
	// Logger receives the kernel's warnings. Nil discards.
	Logger *slog.Logger
	// OnWarning receives each warning the assembly and the kernel report
	// (config, hooks, plugins, MCP servers, tools, the catalog budget),
	// besides Logger.
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
	// AgentDirs are more folders of subagent definitions (installed
	// plugins' agents folders, each with its source "plugin:<name>"), read
	// after the user's and the config's agents.dirs.
	AgentDirs []agents.Dir
	// Secrets collects the values to replace by [REDACTED] in everything
	// the kernel logs, stores and exports. Build adds the secrets the
	// config names (the value of model.apiKeyEnv, the PostgreSQL URL's
	// password), so a caller that prints (the CLI's stdout and stderr)
	// can redact with the same set; it may add its own (helios mcp's
	// --token-env). Nil: Build makes one of its own.
	Secrets *redact.Secrets
	// Trusted are the digests a trust recorded (RunDigests): the files the
	// config's hooks, MCP stdio servers and plugins run that lie where the
	// model can write. Before each run such a file is hashed again; one
	// that changed, vanished or is not recorded keeps its hook, server or
	// plugin off, with one warning naming it. Nil: Build records them as
	// they are when it runs (a config the user named is trusted as
	// loaded), and checks them the same way for the rest of the process.
	Trusted map[string]string
	// PluginRoots are the installed agent-plugin roots to load, in merge
	// order (see package agentplugins). Nil: the user's, ~/.helios/plugins;
	// an empty non-nil slice loads none.
	PluginRoots []agentplugins.Root
	// ProjectPlugins adds the work dir's installed plugins
	// (<work>/.helios/plugins) after PluginRoots. Set it only when the work
	// dir's config is trusted: what a project ships could otherwise run.
	ProjectPlugins bool
}

// Load reads the config file at path and assembles a kernel, with the
// file's folder as the base of its relative paths (opts.BaseDir is
// replaced). An empty path means no config file: the defaults, relative to
// opts.BaseDir, with the work dir from opts or the current directory.
func Load(ctx context.Context, path string, opts Options) (*kernel.Kernel, error) {
	if path == "" {
		return Build(ctx, Config{}, opts)
	}
	cfg, base, err := ReadConfig(path)
	if err != nil {
		return nil, err
	}
	opts.BaseDir = base
	return Build(ctx, cfg, opts)
}

// ReadConfig reads and strictly decodes a config file, returning it with the
// folder that relative paths in it are resolved against. An empty path is the
// default config, relative to the current directory.
func ReadConfig(path string) (Config, string, error) {
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Config{}, "", fmt.Errorf("read config: current directory: %w", err)
		}
		return Config{}, wd, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Config{}, "", fmt.Errorf("read config %s: %w", path, err)
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

// readConfigFile reads the config file at path, at most one byte more than
// MaxConfigSize.
// A pipe works (--config <(...)); its reader blocks as a file's would not.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return data, nil // ParseConfig refuses it when it is over MaxConfigSize
}

// Build assembles a kernel from a decoded config; relative paths in cfg
// resolve against opts.BaseDir. On failure everything already opened is
// closed and the errors are joined.
func Build(ctx context.Context, cfg Config, opts Options) (k *kernel.Kernel, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base, err := baseDir(opts.BaseDir)
	if err != nil {
		return nil, err
	}
	if opts.Secrets == nil {
		opts.Secrets = redact.New()
	}
	opts.Secrets.Add(configSecrets(cfg)...)
	if opts.Logger != nil {
		opts.Logger = slog.New(opts.Secrets.Handler(opts.Logger.Handler()))
	}
	pins, err := runPins(cfg, base, opts)
	if err != nil {
		return nil, err
	}
	a := &assembler{cfg: cfg, base: base, opts: opts, pins: pins}
	defer func() {
		if err != nil {
			k, err = nil, a.closeOpened(err)
		}
	}()
	kc, err := a.local()
	if err != nil {
		return nil, err
	}
	if err := a.remote(ctx, &kc); err != nil {
		return nil, err
	}
	if err := a.runtime(&kc); err != nil {
		return nil, err
	}
	k, err = kernel.New(kc)
	if err != nil {
		return nil, err
	}
	a.kernel = k
	return k, nil
}

// assembler holds what Build has opened so far, to close it should a later
// step fail, and the kernel's resources, which the kernel closes.
type assembler struct {
	cfg  Config
	base string
	opts Options
	// opened are closed, last first, when Build fails.
	opened []io.Closer
	// resources are the kernel's to close (kernel.Config.Resources).
	resources []io.Closer
	// box is the sandbox configuration of the model's commands, which the
	// MCP servers' and the hook commands' environments follow too.
	box sandbox.Config
	// envFile is where each session's CLAUDE_ENV_FILE is, for the hook
	// commands and Bash (nil: none).
	envFile func(sessionID string) string
	// tel is the kernel's telemetry (nil: off); handover is what a plugin
	// needs to export where the kernel does.
	tel      *telemetry.T
	handover string
	// kernel is the assembled kernel, for the builtin tools to tell of a
	// write.
	kernel *kernel.Kernel
	// pins guard the files the hooks, MCP servers and plugins run.
	pins *runpin.Pins
	// plugins are the installed agent plugins (agentPlugins), and
	// pluginSkills their skills' capabilities.
	plugins      []agentplugins.Installed
	pluginSkills []kernel.Capability
}

// closeOpened closes what Build opened, last first, joining the errors
// with err.
func (a *assembler) closeOpened(err error) error {
	errs := []error{err}
	for i := len(a.opened) - 1; i >= 0; i-- {
		errs = append(errs, a.opened[i].Close())
	}
	return errors.Join(errs...)
}

// local opens what lives in this process and the work dir: the skill
// roots, the project's skills, the extensions, the builtin tools and the
// application's own capabilities (checked against the configured ones
// before any plugin starts), and the skills watcher.
func (a *assembler) local() (kernel.Config, error) {
	cfg, base := a.cfg, a.base
	workDir, err := workDirOf(cfg, base, a.opts)
	if err != nil {
		return kernel.Config{}, err
	}
	perms, err := permissionSet(cfg, base, workDir)
	if err != nil {
		return kernel.Config{}, err
	}
	budget, err := catalogBudget(cfg)
	if err != nil {
		return kernel.Config{}, err
	}
	userRoots, err := userSkillRoots(cfg.Skills, base)
	if err != nil {
		return kernel.Config{}, err
	}
	var projectRoots []string
	if cfg.Skills.ProjectRoots != nil {
		projectRoots = append([]string{}, *cfg.Skills.ProjectRoots...)
	}
	port, err := workfs.New(workDir)
	if err != nil {
		return kernel.Config{}, fmt.Errorf("open work dir: %w", err)
	}
	// Before the model runs, so the sandbox and the port protect them.
	if err := port.MakeStateDirs(); err != nil {
		port.Close()
		return kernel.Config{}, fmt.Errorf("open work dir: %w", err)
	}
	project := capskills.New(port, projectRoots)
	a.opened = append(a.opened, project)
	limits := skillfs.Limits{MaxFrontmatter: cfg.Skills.MaxFrontmatter, MaxFileSize: cfg.Skills.MaxFileSize}
	caps, err := a.builtins(port, limits, readDenied(perms))
	if err != nil {
		return kernel.Config{}, err
	}
	if err := checkOwnCapabilities(a.opts.Capabilities, cfg, project, caps); err != nil {
		return kernel.Config{}, err
	}
	// The plugins first: each one's skills are a set of roots the watcher
	// holds beside skills.watch.projectWatchers.
	a.pluginSkills = a.agentPlugins(port)
	watcher, err := a.skillWatcher()
	if err != nil {
		return kernel.Config{}, err
	}
	agentsCfg, err := a.agents(port)
	if err != nil {
		return kernel.Config{}, err
	}
	return kernel.Config{
		Agents:         agentsCfg,
		Permissions:    perms,
		WorkDir:        port.Dir(),
		UserSkillRoots: userRoots,
		Project:        project,
		Capabilities:   append(caps, a.opts.Capabilities...), // the application's own, after the configured builtins
		SkillsMode:     cfg.Skills.Mode.mode(),
		CatalogBudget:  budget,
		SkillWatcher:   watcher,
		SkillLimits:    limits,
		Logger:         a.opts.Logger,
		OnWarning:      a.opts.OnWarning,
		Secrets:        a.opts.Secrets,
	}, nil
}

// builtins opens the extensions, then the builtin tools, confined by the
// config's sandbox, then the project instructions (unless turned off);
// the tools come first in the list.
func (a *assembler) builtins(port *workfs.FS, limits skillfs.Limits, hidden func(string) bool) ([]kernel.Capability, error) {
	var exts []kernel.Capability
	for i, e := range a.cfg.Extensions {
		c, err := extdir.OpenLimited(resolve(a.base, e.Dir), limits)
		if err != nil {
			return nil, fmt.Errorf("open extensions[%d]: %w", i, err)
		}
		exts = append(exts, c)
	}
	box, err := sandboxConfig(a.cfg, port.Dir(), a.opts.Logger)
	if err != nil {
		return nil, err
	}
	a.box = box
	a.envFile = envFiles(a.cfg, a.base, port.Dir(), box, a.opts)
	// The builtin tools share the project's port. Write and Edit tell the
	// kernel at once, so the next step's catalog sees the change.
	toolSet, err := tools.New(tools.Config{
		FS:          port,
		BashTimeout: time.Duration(a.cfg.Tools.BashTimeout),
		MaxOutput:   a.cfg.Tools.MaxOutput,
		Sandbox:     box,
		EnvFile:     a.envFile,
		Hidden:      hidden,
		OnWrite: func(path string) {
			if a.kernel != nil {
				a.kernel.InvalidatePath(path)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("open builtin tools: %w", err)
	}
	a.opened = append(a.opened, toolSet)
	caps := append([]kernel.Capability{toolsCapability{toolSet}}, exts...)
	if a.cfg.Instructions.On() {
		instr, err := instructions.New(instructions.Config{Port: port, MaxBytes: a.cfg.Instructions.MaxBytes, Logger: a.opts.Logger,
			OnLoaded: func(ctx context.Context, in kernel.InstructionsLoadedIn) {
				if a.kernel != nil {
					_ = hooks.InstructionsLoaded.Dispatch(ctx, a.kernel.Hooks(), in) // a failing handler is a warning
				}
			}})
		if err != nil {
			return nil, err
		}
		a.opened = append(a.opened, instr)
		caps = append(caps, instr)
	}
	return caps, nil
}

// skillWatcher starts the watcher of skills.watch when opts.Watch asks
// for one; nil otherwise, and when skills.watch.mode is "off".
func (a *assembler) skillWatcher() (skillfs.RootWatcher, error) {
	if !a.opts.Watch {
		return nil, nil
	}
	w, err := newWatcher(a.cfg.Skills.Watch, len(a.pluginSkills))
	if err != nil {
		return nil, fmt.Errorf("start skills watcher: %w", err)
	}
	if w == nil {
		return nil, nil
	}
	a.opened = append(a.opened, w)
	a.resources = append(a.resources, w)
	return skillfs.WatcherOf(w), nil
}

// remote starts telemetry, then what runs in other processes: the plugins
// and the MCP servers, whose skills merge after every local source's.
func (a *assembler) remote(ctx context.Context, kc *kernel.Config) error {
	telCfg, err := telemetryConfig(a.cfg.Telemetry, a.base, os.Getenv)
	if err != nil {
		return err
	}
	prov, err := openTelemetry(ctx, telCfg, a.opts)
	if err != nil {
		return err
	}
	if prov != nil {
		a.opened = append(a.opened, prov)
		// Closed last (Resources close last first): spans of the plugins'
		// and the watcher's shutdown are still recorded.
		a.resources = append([]io.Closer{prov}, a.resources...)
		a.tel = prov.T
	}
	a.handover = otelsetup.Handover(telCfg)
	plugins, err := openPlugins(ctx, a.cfg, a.base, a.opts, a.pins, a.tel, a.handover, &a.opened)
	if err != nil {
		return err
	}
	// The installed agent plugins follow the configured executables: their
	// skills, then their own executables.
	plugins = append(append(plugins, a.pluginSkills...), a.pluginExecutables(ctx)...)
	servers, err := openMCP(a.withPluginServers(a.cfg), a.base, kc.WorkDir, a.box, a.opts, a.pins, a.tel, &a.opened)
	if err != nil {
		return err
	}
	kc.Plugins = append(plugins, servers...)
	kc.Telemetry = a.tel
	return nil
}

// runtime adds what sessions run on: the model, the session store, the
// step loop's bounds and the person's hook commands.
func (a *assembler) runtime(kc *kernel.Config) error {
	m, noModel := openModel(a.cfg.Model, a.opts.Logger)
	store, err := newSessionStore(a.cfg.Sessions, a.base)
	if err != nil {
		return err
	}
	sessions, transcript, err := a.transcripts(store, kc.WorkDir)
	if err != nil {
		return err
	}
	commandHooks, err := openHooks(a.cfg, a.base, kc.WorkDir, a.envFile, a.opts, a.pins, transcript)
	if err != nil {
		return err
	}
	kc.Model, kc.ModelErr = m, noModel
	kc.Store = sessions
	kc.MaxSteps, kc.ContextBudget = a.cfg.Sessions.MaxSteps, a.cfg.Sessions.ContextBudget
	// The plugins' hooks run after the person's own.
	kc.CommandHooks = append(commandHooks, a.pluginHooks(kc.WorkDir, transcript)...)
	kc.Resources = append(a.resources, sessions)
	return nil
}

// baseDir is Options.BaseDir made absolute; "" is the current directory.
func baseDir(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve Options.BaseDir: %w", err)
	}
	return abs, nil
}

// userSkillRoots is skills.userRoots, each with a leading ~ expanded and
// resolved against base; nil (the kernel's default roots) when the key is
// absent.
func userSkillRoots(cfg SkillsConfig, base string) ([]string, error) {
	if cfg.UserRoots == nil {
		return nil, nil
	}
	roots := []string{}
	for _, r := range *cfg.UserRoots {
		p, err := expandHome(r)
		if err != nil {
			return nil, fmt.Errorf("resolve skills.userRoots: %w", err)
		}
		roots = append(roots, resolve(base, p))
	}
	return roots, nil
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
		return "", fmt.Errorf("find work dir: %w", err)
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
		switch {
		case i > len(cfg.Extensions):
			what = "the project instructions"
		case i > 0:
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
			errs = append(errs, fmt.Errorf("add %s: nil capability", at))
			continue
		}
		name := c.Name()
		switch other, dup := taken[name]; {
		case name == "":
			errs = append(errs, fmt.Errorf("add %s: empty name", at))
		case dup:
			errs = append(errs, fmt.Errorf("add %s: named %q, like %s", at, name, other))
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
