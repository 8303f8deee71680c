package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/watch"
)

// Plugin is what a plugin author passes to Serve: any value, which offers
// hook handlers by implementing HookProvider and tools by implementing
// ToolProvider. A plugin with only skills implements neither (nil will
// do): its skills come from its folder.
type Plugin = any

// HookProvider is a plugin with hook handlers. Hooks is called once, by
// New; the handlers are called concurrently.
type HookProvider interface {
	Hooks() []Hook
}

// ToolProvider is a plugin with tools. Tools is called once, by New; the
// model sees each tool's Name, Description and Schema, and Call runs in the
// plugin, concurrently with others.
type ToolProvider interface {
	Tools() []Tool
}

// Config configures a plugin. The zero value serves the folder of the
// executable.
type Config struct {
	// Dir holds the plugin's EXTENSION.md and its skills/ folder. Empty
	// means the directory of the running executable (symlinks resolved), so
	// a plugin is installed by copying that folder.
	Dir string
	// Logger receives the SDK's own warnings. Nil means Logger().
	Logger *slog.Logger
}

// ExtensionDoc is the file that names and describes a plugin.
const ExtensionDoc = "EXTENSION.md"

// Server is a plugin's implementation of plugins.Capability: what Serve
// serves, and what a plugin's own tests can call in process.
type Server struct {
	dir    string
	doc    frontmatter.ExtensionDoc
	logger *slog.Logger

	hooks  map[mountKey]Hook
	mounts []plugins.Mount
	tools  map[string]contract.Tool
	list   []plugins.Tool

	src      *skillfs.DirSource
	watcher  *watch.Watcher
	watchErr error // why skills/ is not watched, when it is not
	done     chan struct{}

	mu     sync.Mutex
	subs   map[int]func()
	nextID int
	closed bool
}

type mountKey struct{ point, name string }

var _ plugins.Capability = (*Server)(nil)

// New builds the server of p: it reads <Dir>/EXTENSION.md and starts
// watching <Dir>/skills. A missing EXTENSION.md names the plugin after its
// folder, with no description (it is then not listed in <extensions>); one
// that does not parse is an error. Close releases the watcher.
func New(p Plugin, cfg Config) (*Server, error) {
	dir := cfg.Dir
	if dir == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find plugin folder: %w", err)
		}
		if exe, err = filepath.EvalSymlinks(exe); err != nil {
			return nil, fmt.Errorf("find plugin folder: %w", err)
		}
		dir = filepath.Dir(exe)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("find plugin folder: %w", err)
	}
	s := &Server{
		dir:    dir,
		logger: cfg.Logger,
		hooks:  map[mountKey]Hook{},
		tools:  map[string]contract.Tool{},
		done:   make(chan struct{}),
		subs:   map[int]func(){},
	}
	if s.logger == nil {
		s.logger = Logger()
	}
	file := filepath.Join(dir, ExtensionDoc)
	// Only the frontmatter is read, and at most skillfs.DefaultMaxFrontmatter
	// of it, as the kernel reads an extension's EXTENSION.md.
	switch data, err := skillfs.ReadHead(skillfs.OSFS{}, file, 0); {
	case errors.Is(err, os.ErrNotExist):
		s.doc = frontmatter.ExtensionDoc{Name: filepath.Base(dir)}
	case err != nil:
		return nil, err // it names the file
	default:
		if s.doc, err = frontmatter.ParseExtensionDoc(file, data); err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		if s.doc.Name == "" {
			s.doc.Name = filepath.Base(dir)
		}
	}

	var hooks []Hook
	if hp, ok := p.(HookProvider); ok {
		hooks = hp.Hooks()
	}
	for _, h := range hooks {
		if h.Point == "" || h.Handle == nil {
			return nil, fmt.Errorf("add hook %q on %q: a hook needs a point and a handler", h.Name, h.Point)
		}
		k := mountKey{h.Point, h.Name}
		if _, dup := s.hooks[k]; dup {
			return nil, fmt.Errorf("add hook %q on %q: two hooks of that name", h.Name, h.Point)
		}
		s.hooks[k] = h
		s.mounts = append(s.mounts, plugins.Mount{Point: h.Point, Name: h.Name})
	}
	var tools []Tool
	if tp, ok := p.(ToolProvider); ok {
		tools = tp.Tools()
	}
	for _, t := range tools {
		if t.Name == "" || t.Call == nil {
			return nil, fmt.Errorf("add tool %q: a tool needs a name and a Call", t.Name)
		}
		if _, dup := s.tools[t.Name]; dup {
			return nil, fmt.Errorf("add tool %q: two tools of that name", t.Name)
		}
		s.tools[t.Name] = t
		s.list = append(s.list, plugins.Tool{Name: t.Name, Description: t.Description, Schema: t.Schema})
	}

	s.src = &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.CapabilitySource(s.doc.Name), Roots: []string{filepath.Join(dir, "skills")}}
	s.watchSkills()
	return s, nil
}

// watchSkills watches skills/ so that the kernel hears of every change. When
// the folder cannot be watched (no inotify left, say), the kernel is told so
// and asks for the skills every time instead.
func (s *Server) watchSkills() {
	w, err := watch.New(watch.Config{FollowSymlinks: true, Logger: s.logger})
	if err != nil {
		s.watchErr = fmt.Errorf("skills folder not watched: %w", err)
		return
	}
	s.src.Watcher = skillfs.WatcherOf(w)
	if err := s.src.Watch(s.notify, s.done); err != nil {
		w.Close()
		s.src.Watcher = nil
		s.watchErr = fmt.Errorf("skills folder not watched: %w", err)
		return
	}
	s.watcher = w
}

// Dir returns the plugin's folder.
func (s *Server) Dir() string { return s.dir }

// Close stops watching the skills folder. Later calls do nothing.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	if s.watcher != nil {
		return s.watcher.Close()
	}
	return nil
}

// Describe reports the plugin's name, description, mounts, tools and skills.
func (s *Server) Describe(ctx context.Context) (plugins.Description, error) {
	set, err := s.src.Skills(ctx)
	if err != nil {
		return plugins.Description{}, fmt.Errorf("read skills: %w", err)
	}
	d := plugins.Description{
		Name:             s.doc.Name,
		Description:      s.doc.Description,
		Mounts:           s.mounts,
		Tools:            s.list,
		SkillsIncomplete: set.Incomplete,
		Warnings:         set.Warnings,
	}
	for _, sk := range set.Skills {
		d.Skills = append(d.Skills, plugins.Skill{
			Name:                   sk.Name,
			Description:            sk.Description,
			BaseDir:                sk.BaseDir,
			File:                   sk.File,
			DisableModelInvocation: sk.DisableModelInvocation,
		})
	}
	return d, nil
}

// ErrUnknown is wrapped when the kernel names a skill, tool or hook the
// plugin does not have.
var ErrUnknown = errors.New("unknown")

// LoadSkill reads a skill's file now.
func (s *Server) LoadSkill(ctx context.Context, name string) (plugins.SkillContent, error) {
	set, err := s.src.Skills(ctx)
	if err != nil {
		return plugins.SkillContent{}, fmt.Errorf("read skills: %w", err)
	}
	for _, sk := range set.Skills {
		if sk.Name == name {
			c, err := sk.Load(ctx)
			if err != nil {
				return plugins.SkillContent{}, err
			}
			return plugins.SkillContent{Name: c.Name, Body: c.Body}, nil
		}
	}
	return plugins.SkillContent{}, fmt.Errorf("%w skill %q", ErrUnknown, name)
}

// CallTool runs a tool. A panic is the call's error, not the plugin's end.
func (s *Server) CallTool(ctx context.Context, name string, args json.RawMessage) (res contract.ToolResult, err error) {
	t, ok := s.tools[name]
	if !ok {
		return contract.ToolResult{}, fmt.Errorf("%w tool %q", ErrUnknown, name)
	}
	defer s.catchPanic("tool", name, &err)
	return t.Call(ctx, args)
}

// Handle runs the hook described as Mount{point, mount} on in, the point's
// payload (a ToolBeforeIn for tool:before, ...; a custom point's JSON as a
// json.RawMessage), as the kernel's call does. A panic is the call's error,
// not the plugin's end.
func (s *Server) Handle(ctx context.Context, point, mount string, in any) (res plugins.HookResult, err error) {
	h, ok := s.hooks[mountKey{point, mount}]
	if !ok {
		return plugins.HookResult{}, fmt.Errorf("%w hook %q on %q", ErrUnknown, mount, point)
	}
	defer s.catchPanic("hook", point, &err)
	v, handled, err := h.Handle(ctx, in)
	if err != nil || !handled {
		return plugins.HookResult{}, err
	}
	return plugins.HookResult{Handled: true, Value: v}, nil
}

// catchPanic turns a panic of the handler of a tool or hook (kind) into
// the call's error.
func (s *Server) catchPanic(kind, name string, err *error) {
	if v := recover(); v != nil {
		what := kind + " " + name
		s.logger.Error("plugin handler panicked", slog.String("handler", what), slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
		*err = fmt.Errorf("%s panicked: %v", what, v)
	}
}

// WatchSkills acknowledges at once, then reports each change of skills/
// until ctx is done. When skills/ cannot be watched it says so after the
// acknowledgement, and the kernel asks every time instead.
func (s *Server) WatchSkills(ctx context.Context, changed func()) error {
	changed()
	if s.watchErr != nil {
		return s.watchErr
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("plugin closed")
	}
	id := s.nextID
	s.nextID++
	s.subs[id] = changed
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, id)
		s.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		return nil
	case <-s.done:
		return errors.New("plugin closed")
	}
}

// notify tells every watching kernel that the skills changed.
func (s *Server) notify() {
	s.mu.Lock()
	fns := make([]func(), 0, len(s.subs))
	for _, fn := range s.subs {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
