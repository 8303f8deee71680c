package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/helios-agents/helios/kernel/skills/skillfs"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// Config configures a Kernel. The zero value is a kernel for the current
// directory with the default user skill roots and no capabilities.
type Config struct {
	// WorkDir is the agent's work dir. Empty means the current directory.
	WorkDir string
	// UserSkillRoots are read directly with the OS, in order. Nil means
	// DefaultUserSkillRoots(); an empty non-nil slice reads none.
	UserSkillRoots []string
	// Project provides the project skills (caps/skills). Nil means none.
	Project skills.Provider
	// Capabilities are in-process capabilities; their mounts are builtins.
	Capabilities []Capability
	// CommandHooks run the person's own hook commands (caps/cmdhooks, the
	// config's "hooks" key): their mounts run after every builtin of the
	// same point and before every plugin, with origin "command".
	CommandHooks []Capability
	// Plugins are out-of-process capabilities; their mounts always run after
	// every builtin of the same point.
	Plugins []Capability
	// SkillsMode is how skills reach the model; the zero value is
	// skills.ModeCatalog.
	SkillsMode skills.Mode
	// CatalogBudget bounds what the model sees of the skills (C13). Zero
	// fields take the defaults: ContextWindow skills.DefaultContextWindow,
	// Chars skills.DefaultBudgetPercent of it (tokens × 4 characters),
	// ToolsMax skills.DefaultToolsMax. A negative Chars or ToolsMax means
	// no bound.
	CatalogBudget skills.Budget
	// SkillWatcher, when set, watches every folder of skills (user roots, and
	// each provider with a SetRootWatcher method) so that catalogs are
	// served from cache until something changes. Nil: folders are read at
	// every snapshot. To have the kernel close it, list it in Resources.
	SkillWatcher skillfs.RootWatcher
	// SkillLimits bounds every read of a skill file: discovery reads only
	// the frontmatter, loads refuse an oversized file. Given to the user
	// roots and to each provider with a SetSkillLimits method. The zero
	// value is the defaults (64 KiB, 8 MiB).
	SkillLimits skillfs.Limits
	// Model is the default model for sessions. When nil, ModelErr says why
	// (which config key or variable to set), and OpenSession fails with it
	// unless the session brings its own model.
	Model model.Model
	// ModelErr is why there is no Model, returned by OpenSession.
	ModelErr error
	// Store is the default session store.
	Store session.Store
	// MaxSteps and ContextBudget are session defaults (see SessionConfig).
	MaxSteps int
	// ContextBudget: see MaxSteps.
	ContextBudget int
	// Resources are closed by Close after the capabilities, last first
	// (the assembly hands over the watcher it made, for example).
	Resources []io.Closer
	// Logger receives warnings. Nil discards.
	Logger *slog.Logger
	// OnWarning also receives each warning the kernel logs as a
	// contract.Warning: hook-handler failures, tools refused or dropped for
	// a taken name, a capability's messages or tools unavailable, and what
	// the catalog budget cut.
	OnWarning func(contract.Warning)
	// Permissions decides every tool call after tool:before (C31): deny
	// refuses it with the reason for the model, ask asks the person
	// (SessionConfig.Confirm) or refuses when no one can be asked. Nil
	// allows every call.
	Permissions Permissions
	// Telemetry records spans and metrics of turns, model requests, tool
	// calls, hook handlers and skill snapshots and loads. Nil (the default)
	// records nothing and costs a nil check.
	Telemetry *telemetry.T
	// Agents configures subagents (the Agent tool). Its zero value offers
	// no Agent tool.
	Agents AgentsConfig
	// Secrets are replaced by [REDACTED] in every event a session appends
	// (a tool that printed a key, a hook's message), so the log, the next
	// model request and what shows the log never hold them. Nil hides
	// nothing.
	Secrets *redact.Secrets
}

// DefaultUserSkillRoots returns ~/.helios/skills, ~/.agents/skills, then
// ~/.claude/skills (where Claude Code users keep theirs: read after
// Helios's own roots, so a name there never shadows one of them), with the
// home directory from os.UserHomeDir (so HOME decides).
func DefaultUserSkillRoots() ([]string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("user skill roots: %w", err)
	}
	return []string{filepath.Join(home, ".helios", "skills"), filepath.Join(home, ".agents", "skills"), filepath.Join(home, ".claude", "skills")}, nil
}

// Kernel is an assembled kernel.
type Kernel struct {
	cfg      Config
	workDir  string
	manifest string // the <extensions> manifest, rendered by New
	logger   *slog.Logger
	caps     []installed
	hooks    *hooks.Registry
	skills   *skills.Registry
	regs     []*skills.Registration
	userSrc  *skillfs.DirSource
	budget   skills.Budget

	// outcome is the budget's last outcome logged, so a person is told once
	// per change, not at every step.
	outcomeMu  sync.Mutex
	outcome    string
	outcomeCut bool

	// recentErr is the last error reading the store for recency, warned
	// about once.
	recentMu  sync.Mutex
	recentErr string

	closeOnce sync.Once
	closeErr  error
}

type installed struct {
	Capability
	origin  hooks.Origin
	project bool // the project skills provider: its skills are "project", not "capability:<name>"
}

// New assembles a kernel. On error nothing is left open; closing the
// capabilities passed in stays the caller's job.
func New(cfg Config) (*Kernel, error) {
	k := &Kernel{cfg: cfg, logger: cfg.Logger}
	if k.logger == nil {
		k.logger = slog.New(slog.DiscardHandler)
	}
	wd := cfg.WorkDir
	if wd == "" {
		wd = "."
	}
	abs, err := filepath.Abs(wd)
	if err != nil {
		return nil, fmt.Errorf("resolve work dir %q: %w", wd, err)
	}
	k.workDir = abs
	k.budget = resolveBudget(cfg.CatalogBudget)

	roots := cfg.UserSkillRoots
	if roots == nil {
		if roots, err = DefaultUserSkillRoots(); err != nil {
			return nil, fmt.Errorf("find user skill roots: %w", err)
		}
	}
	k.userSrc = &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceUser, Roots: roots, Watcher: cfg.SkillWatcher, Limits: cfg.SkillLimits}

	// The project provider is usually a capability itself (caps/skills); it
	// is installed first, as a builtin.
	if c, ok := cfg.Project.(Capability); ok {
		k.caps = append(k.caps, installed{c, hooks.Builtin, true})
	}
	for _, c := range cfg.Capabilities {
		k.caps = append(k.caps, installed{c, hooks.Builtin, false})
	}
	for _, c := range cfg.CommandHooks {
		k.caps = append(k.caps, installed{c, hooks.Command, false})
	}
	for _, c := range cfg.Plugins {
		k.caps = append(k.caps, installed{c, hooks.Plugin, false})
	}
	seen := map[string]bool{}
	for _, c := range k.caps {
		if c.Name() == "" {
			return nil, errors.New("install capabilities: a capability has an empty name")
		}
		if seen[c.Name()] {
			return nil, fmt.Errorf("install capability %q: installed twice", c.Name())
		}
		seen[c.Name()] = true
	}

	k.hooks = hooks.New(hooks.Config{Scope: hooks.ScopeRun, Logger: k.logger, OnWarning: cfg.OnWarning, Telemetry: cfg.Telemetry})
	if err := k.hooks.Declare(hooks.InstructionsLoaded.Point); err != nil {
		return nil, err
	}
	for _, p := range []hooks.Point{hooks.SubagentStart.Point, hooks.SubagentStop.Point, hooks.PermissionRequest.Point} {
		if err := k.hooks.Declare(p); err != nil {
			return nil, err
		}
	}
	if err := k.hooks.Mount(hooks.ContextPrepare.Bind("environment", k.environment)); err != nil {
		return nil, err
	}
	if err := k.mountAll(k.hooks); err != nil {
		return nil, err
	}
	// Fail early on session mounts too, rather than at the first session.
	if _, err := k.NewSessionHooks(k.cfg.Model); err != nil {
		return nil, err
	}

	k.manifest = k.renderManifest()

	// Sources merge in this order, first wins: user, project, capabilities
	// (builtins, then plugins).
	k.skills = skills.NewRegistry(skills.RegistryConfig{Logger: k.logger})
	k.register(skills.SourceUser, k.userSrc)
	if cfg.Project != nil {
		k.register(skills.SourceProject, cfg.Project)
	}
	for _, c := range k.caps {
		if p, ok := c.Capability.(skills.Provider); ok && !c.project {
			k.register(skills.CapabilitySource(c.Name()), p)
		}
	}
	return k, nil
}

// rootWatched is a provider that reads folders and can be told to watch them.
type rootWatched interface {
	SetRootWatcher(skillfs.RootWatcher)
}

// skillLimited is a provider that reads skill files and can be bounded.
type skillLimited interface {
	SetSkillLimits(skillfs.Limits)
}

// register adds a provider to the skill registry, giving it the kernel's
// watcher and read limits first when it reads folders.
func (k *Kernel) register(source string, p skills.Provider) {
	if w, ok := p.(rootWatched); ok && k.cfg.SkillWatcher != nil {
		w.SetRootWatcher(k.cfg.SkillWatcher)
	}
	if l, ok := p.(skillLimited); ok {
		l.SetSkillLimits(k.cfg.SkillLimits)
	}
	k.regs = append(k.regs, k.skills.Register(source, p))
}

// InvalidatePath is the synchronous entry point for first-party file tools:
// after Write or Edit touched path, the provider whose catalog it can affect
// is invalidated at once, so the next step's snapshot sees the change
// without waiting for the OS event. It reports whether anything was
// invalidated.
func (k *Kernel) InvalidatePath(path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(k.workDir, path)
	}
	return k.skills.InvalidatePath(path)
}

// mountAll mounts every capability's mounts of r's scope, with the origin the
// capability was installed with.
func (k *Kernel) mountAll(r *hooks.Registry) error {
	var errs []error
	for _, c := range k.caps {
		hp, ok := c.Capability.(HookProvider)
		if !ok {
			continue
		}
		run, session := hooks.SplitByScope(hp.Mounts())
		ms := run
		if r.Scope() == hooks.ScopeSession {
			ms = session
		}
		for _, m := range ms {
			m.Origin = c.origin
			if m.Name == "" {
				m.Name = c.Name()
			}
			if err := r.Mount(m); err != nil {
				errs = append(errs, fmt.Errorf("capability %q: %w", c.Name(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// environment is the builtin context:prepare handler: where the agent works,
// so relative paths and the Bash tool's cwd mean something to the model. The
// date has day granularity, so the prompt prefix stays cacheable all day.
func (k *Kernel) environment(context.Context, PrepareIn) (string, bool, error) {
	return texts.Text("environment.md.tmpl", map[string]any{
		"WorkDir": k.workDir, "OS": runtime.GOOS, "Arch": runtime.GOARCH, "Date": time.Now().Format(time.DateOnly),
	}), true, nil
}

// WorkDir returns the absolute work dir.
func (k *Kernel) WorkDir() string { return k.workDir }

// UserSkillRoots returns the user-level roots read.
func (k *Kernel) UserSkillRoots() []string { return k.userSrc.Roots }

// SkillRoots lists the folders skills are read from, in merge order: the
// user-level roots, then the roots of every capability that reads folders
// (one with a Roots() []string method), project first.
func (k *Kernel) SkillRoots() []string {
	out := append([]string{}, k.userSrc.Roots...)
	for _, c := range k.caps {
		if r, ok := c.Capability.(interface{ Roots() []string }); ok {
			out = append(out, r.Roots()...)
		}
	}
	return out
}

// Capabilities returns the installed capabilities in capability order:
// the project's, the builtins, the command hooks, then the plugins.
func (k *Kernel) Capabilities() []Capability {
	out := make([]Capability, len(k.caps))
	for i, c := range k.caps {
		out[i] = c.Capability
	}
	return out
}

// SessionStore returns the default session store (nil when none).
func (k *Kernel) SessionStore() session.Store { return k.cfg.Store }

// SkillsMode returns how skills reach the model.
func (k *Kernel) SkillsMode() skills.Mode { return k.cfg.SkillsMode }

// Hooks returns the run-scope hook registry.
func (k *Kernel) Hooks() *hooks.Registry { return k.hooks }

// Skills returns the skill registry (for snapshots and change listeners).
func (k *Kernel) Skills() *skills.Registry { return k.skills }

// NewSessionHooks returns a fresh session-scope registry: the kernel's own
// compactor, which summarizes with m (the session's model), then every
// capability's session mounts, builtins before plugins.
func (k *Kernel) NewSessionHooks(m model.Model) (*hooks.Registry, error) {
	r := hooks.New(hooks.Config{Scope: hooks.ScopeSession, Logger: k.logger, OnWarning: k.cfg.OnWarning, Telemetry: k.cfg.Telemetry})
	if err := r.Mount(hooks.ContextCompact.Bind("compactor", compactor(m))); err != nil {
		return nil, err
	}
	if err := k.mountAll(r); err != nil {
		return nil, err
	}
	return r, nil
}

// DescribeHooks lists every point of both scopes: the standard points in
// lifecycle order, then custom points, each with its handlers in dispatch
// order.
func (k *Kernel) DescribeHooks() ([]hooks.PointInfo, error) {
	sess, err := k.NewSessionHooks(k.cfg.Model)
	if err != nil {
		return nil, err
	}
	byName := map[string]hooks.PointInfo{}
	var custom []hooks.PointInfo
	std := map[string]bool{}
	for _, p := range hooks.StandardPoints() {
		std[p.Name] = true
	}
	for _, p := range append(sess.Describe(), k.hooks.Describe()...) {
		byName[p.Name] = p
		if !std[p.Name] {
			custom = append(custom, p)
		}
	}
	out := make([]hooks.PointInfo, 0, len(byName))
	for _, p := range hooks.StandardPoints() {
		out = append(out, byName[p.Name])
	}
	return append(out, custom...), nil
}

// Telemetry returns the kernel's instruments (nil when telemetry is off).
func (k *Kernel) Telemetry() *telemetry.T { return k.cfg.Telemetry }

// Extensions renders the <extensions> manifest: one line per installed
// capability that has a description, in capability order. Capabilities with
// an empty description (such as the synthesized skills capability) are not
// listed. With none to list, the manifest is empty. It is rendered once, in
// New: names and descriptions come from files and plugins, so they are
// escaped as the skills catalog is (hidden characters made visible, markup
// escaped, whitespace collapsed), with one warning naming each extension
// whose text held hidden characters.
func (k *Kernel) Extensions() string { return k.manifest }

// renderManifest renders what Extensions returns, warning about hidden
// characters.
func (k *Kernel) renderManifest() string {
	var b strings.Builder
	for _, c := range k.caps {
		d, ok := c.Capability.(Describer)
		if !ok {
			continue
		}
		desc, found := sanitize.Clean(strings.Join(strings.Fields(d.Description()), " "))
		if desc == "" {
			continue
		}
		name, nameFound := sanitize.Clean(c.Name())
		switch {
		case nameFound.Count > 0:
			k.logger.Warn("extension name holds hidden characters; the model sees them escaped", slog.String("extension", name), slog.String("found", nameFound.String()))
		case found.Count > 0:
			k.logger.Warn("extension description holds hidden characters; the model sees them escaped", slog.String("extension", name), slog.String("found", found.String()))
		}
		fmt.Fprintf(&b, "- %s: %s\n", markup.Replace(name), markup.Replace(desc))
	}
	if b.Len() == 0 {
		return ""
	}
	return "<extensions>\n" + b.String() + "</extensions>"
}

// markup escapes what could close or open a tag of the prompt.
var markup = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// SkillsPrompt is the base prompt's section on skills. It describes skills by
// their role, never by a tool-name pattern: skill tools carry their authors'
// names.
func (k *Kernel) SkillsPrompt() string {
	return texts.Text("skills_prompt.md.tmpl", map[string]any{"Tools": k.cfg.SkillsMode == skills.ModeTools})
}

// Close releases the skill registrations, closes every capability that is an
// io.Closer, then the Resources, joining their errors. Later calls return the
// first call's result.
func (k *Kernel) Close() error {
	k.closeOnce.Do(func() { k.closeErr = k.close() })
	return k.closeErr
}

func (k *Kernel) close() error {
	for _, g := range k.regs {
		g.Close()
	}
	var errs []error
	for i := len(k.caps) - 1; i >= 0; i-- {
		if c, ok := k.caps[i].Capability.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close capability %q: %w", k.caps[i].Name(), err))
			}
		}
	}
	for i := len(k.cfg.Resources) - 1; i >= 0; i-- {
		if err := k.cfg.Resources[i].Close(); err != nil {
			errs = append(errs, fmt.Errorf("close: %w", err))
		}
	}
	return errors.Join(errs...)
}
