package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/plugins"
)

// Defaults of Config's durations.
const (
	DefaultStartTimeout   = 10 * time.Second
	DefaultCallTimeout    = 10 * time.Second
	DefaultRestartBackoff = time.Second
	// MaxRestartBackoff caps the doubling backoff.
	MaxRestartBackoff = time.Minute
)

// Errors callers can test for.
var (
	// ErrChecksum: the binary's SHA-256 is not the configured one; the
	// plugin was not started.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrCrashed: the plugin died during the call.
	ErrCrashed = errors.New("plugin crashed")
	// ErrDown: the plugin died earlier and its restart is not due yet (or
	// failed).
	ErrDown = errors.New("plugin is down")
	// ErrClosed: Close was called.
	ErrClosed = errors.New("plugin closed")
)

// inheritedEnv are the variables a plugin gets from the kernel's
// environment; everything else (API keys first) stays in the kernel.
var inheritedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"}

// Config configures one plugin.
type Config struct {
	// Name is the capability's name in the kernel: its skills' source is
	// "capability:<Name>" and its hook handlers are listed under it.
	// Required.
	Name string
	// Command is the plugin executable. Required.
	Command string
	// Args are its arguments.
	Args []string
	// Env are "NAME=value" entries added to the plugin's environment, which
	// otherwise holds only PATH, HOME, USER, LOGNAME, LANG, LC_ALL,
	// LC_CTYPE, TMPDIR and TZ from the kernel's.
	Env []string
	// SHA256 is the hex SHA-256 the executable must have; it is checked
	// before every start, and a mismatch refuses the start. Empty: not
	// checked.
	SHA256 string
	// StartTimeout bounds a start: process, handshake, AutoMTLS and the
	// first Describe. 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// CallTimeout bounds every call to the plugin (hook, skill load, tool).
	// 0 means DefaultCallTimeout.
	CallTimeout time.Duration
	// RestartBackoff is the wait before restarting a plugin that died; it
	// doubles with each consecutive failure up to MaxRestartBackoff, and
	// resets at the first call that succeeds. 0 means
	// DefaultRestartBackoff.
	RestartBackoff time.Duration
	// Logger receives the plugin's stderr and the host's warnings, with a
	// "plugin" attribute. Nil discards.
	Logger *slog.Logger
	// Telemetry records each start and restart of the process as a span
	// (plugin.start, plugin.restart) and counts restarts. Nil records
	// nothing.
	Telemetry *telemetry.T
}

// Capability is a running plugin adapted to kernel.Capability. Install it
// in kernel.Config.Plugins: the kernel then mounts its hook handlers in the
// plugin band, after every builtin. It is safe for concurrent use.
type Capability struct {
	cfg    Config
	logger *slog.Logger
	env    []string
	want   []byte // configured SHA-256, nil when none
	mounts []plugins.Mount
	// procAttr sets up the process (the parent-death signal); tests replace
	// it to exercise the plugin's own parent watch.
	procAttr func() *syscall.SysProcAttr

	restartMu sync.Mutex // one start at a time
	failing   atomic.Bool
	wg        sync.WaitGroup // background kills and watches
	stop      chan struct{}  // closed by Close

	mu         sync.Mutex
	cur        *instance // nil while down
	desc       plugins.Description
	failures   int
	restarts   int
	retryAt    time.Time
	lastErr    error
	closed     bool
	invalidate func()
}

// instance is one process of the plugin.
type instance struct {
	client pluginClient
	rpc    plugins.Capability // the plugin's side of the wire
	pid    int
	// handshake is how long the process start, handshake and AutoMTLS
	// took; started adds the skills watch and the first Describe.
	handshake, started time.Duration
	ctx                context.Context // lives as long as the instance is used
	cancel             context.CancelFunc

	gen       atomic.Uint64 // moves at each "skills changed"
	watchOK   atomic.Bool   // the plugin reports its changes
	described uint64        // gen of the cached Describe; guarded by Capability.mu
}

var (
	_ kernel.Capability   = (*Capability)(nil)
	_ kernel.Describer    = (*Capability)(nil)
	_ kernel.HookProvider = (*Capability)(nil)
	_ kernel.ToolProvider = (*Capability)(nil)
	_ skills.Provider     = (*Capability)(nil)
	_ skills.Watchable    = (*Capability)(nil)
)

// Launch starts the plugin and asks it to describe itself. A plugin that
// cannot start (missing file, wrong checksum, failed handshake, no answer in
// time) is an error naming it; nothing is left running.
func Launch(ctx context.Context, cfg Config) (*Capability, error) {
	c, err := newCapability(cfg)
	if err != nil {
		return nil, err
	}
	if err := c.launch(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Capability) launch(ctx context.Context) error {
	ctx, span := c.cfg.Telemetry.PluginStart(ctx, c.cfg.Name, 0)
	inst, d, err := c.start(ctx)
	c.cfg.Telemetry.End(span, err)
	if err != nil {
		return err
	}
	c.cur, c.desc, c.mounts = inst, d, d.Mounts
	c.logger.Debug("plugin started", slog.Int("pid", inst.pid), slog.Duration("took", inst.started))
	return nil
}

func newCapability(cfg Config) (*Capability, error) {
	switch {
	case cfg.Name == "":
		return nil, errors.New("configure plugin: no name")
	case cfg.Command == "":
		return nil, fmt.Errorf("plugin %q: no command", cfg.Name)
	}
	c := &Capability{cfg: cfg, logger: cfg.Logger, procAttr: sysProcAttr, stop: make(chan struct{})}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	c.logger = c.logger.With(slog.String("plugin", cfg.Name))
	if c.cfg.StartTimeout <= 0 {
		c.cfg.StartTimeout = DefaultStartTimeout
	}
	if c.cfg.CallTimeout <= 0 {
		c.cfg.CallTimeout = DefaultCallTimeout
	}
	if c.cfg.RestartBackoff <= 0 {
		c.cfg.RestartBackoff = DefaultRestartBackoff
	}
	if cfg.SHA256 != "" {
		sum, err := hex.DecodeString(strings.TrimSpace(cfg.SHA256))
		if err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("plugin %q: sha256 %q is not 64 hex digits", cfg.Name, cfg.SHA256)
		}
		c.want = sum
	}
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			c.env = append(c.env, k+"="+v)
		}
	}
	for _, kv := range cfg.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("plugin %q: env entry %q is not NAME=value", cfg.Name, kv)
		}
		c.env = append(c.env, kv)
	}
	return c, nil
}

// Name returns the configured name.
func (c *Capability) Name() string { return c.cfg.Name }

// Description returns the plugin's EXTENSION.md description, as last
// described.
func (c *Capability) Description() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.desc.Description
}

// Status is a snapshot of a plugin's state.
type Status struct {
	// PID is the plugin's process, 0 while it is down.
	PID int
	// Handshake is how long its last start took up to a working
	// connection: process, go-plugin handshake and AutoMTLS. Started adds
	// the skills watch and the first Describe.
	Handshake, Started time.Duration
	// Restarts counts starts after the first.
	Restarts int
	// Down says why it is down; nil while it runs.
	Down error
	// Description is what it last said about itself.
	Description plugins.Description
}

// Status reports the plugin's state.
func (c *Capability) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Status{Restarts: c.restarts, Description: c.desc}
	if c.cur != nil {
		s.PID, s.Handshake, s.Started = c.cur.pid, c.cur.handshake, c.cur.started
	} else {
		s.Down = c.lastErr
		if c.closed {
			s.Down = ErrClosed
		}
	}
	return s
}

// Mounts returns a hook handler per mount the plugin described at launch;
// each calls the plugin's current process. Names are the capability's name,
// or "<name>/<mount>" when the plugin named the mount.
func (c *Capability) Mounts() []hooks.Mount {
	ms := make([]hooks.Mount, 0, len(c.mounts))
	for _, m := range c.mounts {
		name := ""
		if m.Name != "" {
			name = c.cfg.Name + "/" + m.Name
		}
		ms = append(ms, hooks.Mount{Point: m.Point, Name: name, Handler: c.handler(m)})
	}
	return ms
}

// handler is a remote hook handler: the payload crosses the wire in the
// point's encoding (plugins/internal/wire), and "pass" is the explicit
// handled=false, never a zero value. An answer the point cannot take is the
// handler's error.
func (c *Capability) handler(m plugins.Mount) hooks.Handler {
	point, mount, op := m.Point, m.Name, "hook "+m.Point
	return func(ctx context.Context, in any) (hooks.Result, error) {
		var r plugins.HookResult
		err := c.call(ctx, op, func(ctx context.Context, inst *instance) (err error) {
			r, err = inst.rpc.Handle(ctx, point, mount, in)
			return err
		})
		if err != nil || !r.Handled {
			return hooks.Pass, err
		}
		return hooks.Handled(r.Value), nil
	}
}

// Tools returns the plugin's tools as last described; each call goes to the
// plugin's current process. A plugin that is down has no tools for now.
func (c *Capability) Tools(ctx context.Context) ([]contract.Tool, error) {
	if _, err := c.use(ctx); err != nil {
		return nil, fmt.Errorf("plugin %q: %w", c.cfg.Name, err)
	}
	c.mu.Lock()
	ts := c.desc.Tools
	c.mu.Unlock()
	out := make([]contract.Tool, 0, len(ts))
	for _, t := range ts {
		name := t.Name
		out = append(out, contract.Tool{
			Name:        name,
			Description: t.Description,
			Schema:      t.Schema,
			Call: func(ctx context.Context, args json.RawMessage) (res contract.ToolResult, err error) {
				err = c.call(ctx, "tool "+name, func(ctx context.Context, inst *instance) (err error) {
					res, err = inst.rpc.CallTool(ctx, name, args)
					return err
				})
				return res, err
			},
		})
	}
	return out, nil
}

// Watch hands the capability its registration's invalidate function: it is
// called when the plugin says its skills changed, and when the plugin dies
// or comes back. A plugin that cannot report its changes is read at every
// snapshot instead (skills.ErrNotWatched).
func (c *Capability) Watch(invalidate func(), done <-chan struct{}) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && !c.cur.watchOK.Load() {
		return skills.ErrNotWatched
	}
	c.invalidate = invalidate
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case <-done:
		case <-c.stop:
		}
		c.mu.Lock()
		c.invalidate = nil
		c.mu.Unlock()
	}()
	return nil
}

// Skills returns the plugin's skills. They come from the last Describe
// until the plugin says they changed. A plugin that is down (or fails to
// answer) costs a warning and an incomplete catalog, never its skills: they
// are listed as last described, and load again once it is back.
func (c *Capability) Skills(ctx context.Context) (skills.Set, error) {
	d, err := c.describe(ctx)
	if err != nil {
		w := contract.Warning{
			Source:  skills.CapabilitySource(c.cfg.Name),
			Message: fmt.Sprintf("plugin unavailable (%v); its skills are listed as last seen and the catalog is incomplete until it answers again", err),
		}
		set := c.skillSet(d)
		set.Incomplete = true
		set.Warnings = append(set.Warnings, w)
		return set, nil
	}
	return c.skillSet(d), nil
}

// describe returns the current description, asking the plugin again only
// when its skills changed since the last answer (or it cannot say). On error
// it returns the last description with the error.
func (c *Capability) describe(ctx context.Context) (plugins.Description, error) {
	var (
		d    plugins.Description
		used *instance
		gen  uint64
	)
	err := c.call(ctx, "describe", func(ctx context.Context, inst *instance) (err error) {
		used, gen = inst, inst.gen.Load()
		c.mu.Lock()
		cached := inst.watchOK.Load() && inst.described == gen
		d = c.desc
		c.mu.Unlock()
		if cached {
			return nil
		}
		d, err = inst.rpc.Describe(ctx)
		return err
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		return c.desc, err
	}
	if c.cur == used {
		c.desc, used.described = d, gen
	}
	return d, nil
}

// skillSet turns a description's skills into the kernel's, each loading
// through the plugin.
func (c *Capability) skillSet(d plugins.Description) skills.Set {
	src := skills.CapabilitySource(c.cfg.Name)
	set := skills.Set{Incomplete: d.SkillsIncomplete}
	for _, w := range d.Warnings {
		w.Source = src
		set.Warnings = append(set.Warnings, w)
	}
	for _, s := range d.Skills {
		if !filepath.IsAbs(s.BaseDir) {
			set.Warnings = append(set.Warnings, contract.Warning{Source: src, Path: s.File, Message: fmt.Sprintf("skill %q skipped: its base directory %q is not absolute, so its scripts could not be found", s.Name, s.BaseDir)})
			continue
		}
		set.Skills = append(set.Skills, skills.Skill{
			Name:                   s.Name,
			Description:            s.Description,
			Source:                 src,
			BaseDir:                s.BaseDir,
			File:                   s.File,
			DisableModelInvocation: s.DisableModelInvocation,
			Load:                   c.loader(s.Name),
		})
	}
	return set
}

// loader reads a skill over the wire at every load: no body is cached.
func (c *Capability) loader(name string) func(context.Context) (skills.Content, error) {
	return func(ctx context.Context) (skills.Content, error) {
		var sc plugins.SkillContent
		err := c.call(ctx, "load skill "+name, func(ctx context.Context, inst *instance) (err error) {
			sc, err = inst.rpc.LoadSkill(ctx, name)
			return err
		})
		return skills.Content{Name: sc.Name, Body: sc.Body}, err
	}
}

// Close kills the plugin's process, then what is left of its process group
// (the processes it started), and waits until it is gone. Later calls
// do nothing.
func (c *Capability) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.stop)
	c.mu.Unlock()
	// A start under way finishes first; seeing closed, it kills what it
	// started.
	c.restartMu.Lock()
	c.mu.Lock()
	inst := c.cur
	c.cur = nil
	c.mu.Unlock()
	c.restartMu.Unlock()
	if inst != nil {
		inst.kill()
	}
	c.wg.Wait()
	return nil
}

// fileSHA256 returns the hex SHA-256 of a file.
func fileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
