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
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	kskills "github.com/helios-agents/helios/kernel/skills"
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
		return Config{}, wd, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Config{}, "", fmt.Errorf("config %s: %w", path, err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return Config{}, "", fmt.Errorf("config: %w", err)
	}
	cfg, err := ParseConfig(abs, data)
	return cfg, filepath.Dir(abs), err
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

	workDir := opts.WorkDir
	switch {
	case workDir != "":
	case cfg.WorkDir != "":
		workDir = resolve(base, cfg.WorkDir)
	default:
		if workDir, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("work dir: %w", err)
		}
	}
	mode, err := kskills.ParseMode(string(cfg.Skills.Mode))
	if err != nil {
		return nil, fmt.Errorf("%w: skills.mode: %v", ErrConfig, err)
	}
	if cfg.Skills.MaxFrontmatter < 0 {
		return nil, fmt.Errorf("%w: skills.maxFrontmatter: %d is negative", ErrConfig, cfg.Skills.MaxFrontmatter)
	}
	if cfg.Skills.MaxFileSize < 0 {
		return nil, fmt.Errorf("%w: skills.maxFileSize: %d is negative", ErrConfig, cfg.Skills.MaxFileSize)
	}
	skillLimits := kskills.Limits{MaxFrontmatter: cfg.Skills.MaxFrontmatter, MaxFileSize: cfg.Skills.MaxFileSize}
	var userRoots []string
	if cfg.Skills.UserRoots != nil {
		userRoots = []string{}
		for _, r := range *cfg.Skills.UserRoots {
			p, err := expandHome(r)
			if err != nil {
				return nil, fmt.Errorf("%w: skills.userRoots: %v", ErrConfig, err)
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
		if e.Dir == "" {
			return nil, fmt.Errorf("%w: extensions[%d].dir: missing", ErrConfig, i)
		}
		c, err := extdir.OpenLimited(resolve(base, e.Dir), skillLimits)
		if err != nil {
			return nil, fmt.Errorf("extensions[%d]: %w", i, err)
		}
		caps = append(caps, c)
	}

	// The builtin tools share the project's port. Write and Edit tell the
	// kernel at once, so the next step's catalog sees the change.
	var kref *kernel.Kernel
	toolSet, err := tools.New(tools.Config{
		FS:          port,
		BashTimeout: time.Duration(cfg.Tools.BashTimeout),
		MaxOutput:   cfg.Tools.MaxOutput,
		OnWrite: func(path string) {
			if kref != nil {
				kref.InvalidatePath(path)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: tools: %v", ErrConfig, err)
	}
	caps = append([]kernel.Capability{toolsCapability{toolSet}}, caps...)

	var resources []io.Closer
	var skillWatcher kskills.RootWatcher
	if opts.Watch {
		w, err := newWatcher(cfg.Skills.Watch)
		if err != nil {
			return nil, fmt.Errorf("%w: skills.watch: %v", ErrConfig, err)
		}
		if w != nil {
			opened = append(opened, w)
			resources = append(resources, w)
			skillWatcher = rootWatcher{w}
		}
	}

	plugins, err := openPlugins(ctx, cfg, base, opts.Logger, &opened)
	if err != nil {
		return nil, err
	}

	m, noModel := openModel(cfg.Model)
	dir, err := sessionsDir(cfg.Sessions, base)
	if err != nil {
		return nil, err
	}
	k, err = kernel.New(kernel.Config{
		WorkDir:        port.Dir(),
		UserSkillRoots: userRoots,
		Project:        project,
		Capabilities:   caps,
		Plugins:        plugins,
		SkillsMode:     mode,
		SkillWatcher:   skillWatcher,
		SkillLimits:    skillLimits,
		Model:          m,
		NoModel:        noModel,
		Store:          &lazyStore{dir: dir},
		MaxSteps:       cfg.Sessions.MaxSteps,
		ContextBudget:  cfg.Sessions.ContextBudget,
		Resources:      resources,
		Logger:         opts.Logger,
		OnWarning:      opts.OnWarning,
	})
	if err != nil {
		return nil, err
	}
	kref = k
	return k, nil
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
