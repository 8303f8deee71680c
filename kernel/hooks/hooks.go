package hooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// Kind says how a point combines its handlers.
type Kind int

const (
	// Concat runs every handler and joins their results in dispatch order.
	Concat Kind = iota
	// FirstWin runs handlers until one handles the call.
	FirstWin
)

// String returns "concat" or "firstWin".
func (k Kind) String() string {
	switch k {
	case Concat:
		return "concat"
	case FirstWin:
		return "firstWin"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Scope says which registry a point lives in.
type Scope int

const (
	// ScopeRun points live in the kernel's single run registry.
	ScopeRun Scope = iota
	// ScopeSession points live in each session's own registry.
	ScopeSession
)

// String returns "run" or "session".
func (s Scope) String() string {
	switch s {
	case ScopeRun:
		return "run"
	case ScopeSession:
		return "session"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Origin says who mounted a handler. It decides the band the handler runs in.
type Origin int

const (
	// Builtin handlers come from the kernel and in-process capabilities.
	Builtin Origin = iota
	// Plugin handlers come from out-of-process plugins; they always run after
	// every builtin and every command handler of the same point.
	Plugin
	// Command handlers run the person's own hook commands (the config's
	// "hooks" key): after every builtin of the same point and before every
	// plugin.
	Command
)

// String returns "builtin", "plugin" or "command".
func (o Origin) String() string {
	switch o {
	case Builtin:
		return "builtin"
	case Plugin:
		return "plugin"
	case Command:
		return "command"
	}
	return fmt.Sprintf("Origin(%d)", int(o))
}

// Point names a mount point and fixes its kind and scope.
type Point struct {
	// Name is the point's name, e.g. "tool:before".
	Name string
	// Kind is how its handlers combine.
	Kind Kind
	// Scope is the registry it lives in.
	Scope Scope
}

// The standard points, in lifecycle order, typed: each point's payload and
// result are the types of package hookdata, where each point's rule is
// written. Bind makes a handler of a point into a Mount; plugins/sdk names
// the same points for plugin authors.
var (
	// SessionStart runs once when a new session opens; the texts are joined
	// into one injected message at the start of the log.
	SessionStart = NewConcat[hookdata.SessionStartIn, string](Point{"session:start", Concat, ScopeSession})
	// PromptSubmit runs once per turn with the person's prompt, before it
	// enters the log: any handler may block it; the contexts follow it.
	PromptSubmit = NewConcat[hookdata.PromptSubmitIn, hookdata.PromptDecision](Point{"prompt:submit", Concat, ScopeRun})
	// ContextPrepare runs before each model request; the texts are added to
	// that request's system prompt, joined in dispatch order (the model
	// sees that order).
	ContextPrepare = NewConcat[hookdata.PrepareIn, string](Point{"context:prepare", Concat, ScopeRun})
	// CompactBefore tells every handler that the context passed its
	// budget, before context:compact decides; it returns nothing.
	CompactBefore = NewNotify[hookdata.CompactBeforeIn](Point{"compact:before", Concat, ScopeSession})
	// ContextCompact runs when the context passes its budget. The builtin
	// compactor decides when it can; plugins only get the call when it passes.
	ContextCompact = NewFirstWin[hookdata.CompactIn, hookdata.Compaction](Point{"context:compact", FirstWin, ScopeSession})
	// ToolBefore runs before each tool call; the first handler that decides
	// (deny, rewrite or ask) wins.
	ToolBefore = NewFirstWin[hookdata.ToolBeforeIn, hookdata.ToolDecision](Point{"tool:before", FirstWin, ScopeRun})
	// ToolAfter runs after each tool call that ran; every handler may add
	// text to the result the model reads.
	ToolAfter = NewConcat[hookdata.ToolAfterIn, hookdata.ToolFeedback](Point{"tool:after", Concat, ScopeRun})
	// TurnEnd decides whether the turn ends after a step; the first handler
	// that decides wins.
	TurnEnd = NewFirstWin[hookdata.TurnEndIn, hookdata.TurnDecision](Point{"turn:end", FirstWin, ScopeRun})
	// SessionEnd tells every handler that the session was closed; it
	// returns nothing.
	SessionEnd = NewNotify[hookdata.SessionEndIn](Point{"session:end", Concat, ScopeSession})
	// InstructionsLoaded tells every handler which instruction files the
	// model was just given. The kernel declares it in its run registry; it
	// is not a standard point and not on the plugin wire.
	InstructionsLoaded = NewNotify[hookdata.InstructionsLoadedIn](Point{"instructions:loaded", Concat, ScopeRun})
	// SubagentStart tells every handler that the Agent tool starts a
	// subagent in a child session. The kernel declares it; it is not on
	// the plugin wire.
	SubagentStart = NewNotify[hookdata.SubagentStartIn](Point{"subagent:start", Concat, ScopeRun})
	// SubagentStop tells every handler that a subagent's turn ended; a
	// handler may keep the subagent going (TurnDecision.End false). The
	// kernel declares it; it is not on the plugin wire.
	SubagentStop = NewConcat[hookdata.SubagentStopIn, hookdata.TurnDecision](Point{"subagent:stop", Concat, ScopeRun})
	// PermissionRequest runs when a call would be put to the person (a
	// permission rule's or a tool:before handler's ask): the first handler
	// that decides allows or denies it in the person's stead. The kernel
	// declares it; it is not on the plugin wire.
	PermissionRequest = NewFirstWin[hookdata.PermissionRequestIn, hookdata.PermissionAnswer](Point{"permission:request", FirstWin, ScopeRun})
)

// standard is the standard points in lifecycle order.
var standard = [...]Point{SessionStart.Point, PromptSubmit.Point, ContextPrepare.Point, CompactBefore.Point, ContextCompact.Point, ToolBefore.Point, ToolAfter.Point, TurnEnd.Point, SessionEnd.Point}

// StandardPoints lists the standard points in lifecycle order.
func StandardPoints() []Point {
	return slices.Clone(standard[:])
}

// Result is what a handler returns. Handled is the explicit "I decided" of a
// firstWin point; it must be set on purpose because a zero Value cannot mean
// "pass" (across a plugin wire a zero value is indistinguishable from an
// answer). On a concat point Handled means "I contribute Value": a handler
// that has nothing to add returns Pass and contributes nothing.
type Result struct {
	// Value is the decision or contribution, read only when Handled.
	Value any
	// Handled says the handler decided (firstWin) or contributes (concat).
	Handled bool
}

// Pass is the result of a handler that has nothing to decide or add.
var Pass = Result{}

// Handled wraps a decision.
func Handled(v any) Result { return Result{Value: v, Handled: true} }

// Handler handles a call on a point. in is the point's payload.
type Handler func(ctx context.Context, in any) (Result, error)

// Mount attaches a handler to a point.
type Mount struct {
	// Point is the mount point's name, e.g. "tool:before".
	Point string
	// Name tells handlers apart in warnings and Describe; a capability's
	// mount without one is named after the capability.
	Name string
	// Origin is the band the handler runs in. The kernel overwrites it from
	// how a capability was installed.
	Origin Origin
	// Handler is called with the point's payload.
	Handler Handler

	// typed is the typed handler Bind made Handler from (a boundFunc of the
	// point's In and Out), or nil. A typed dispatch of that In and Out
	// calls it as it is, boxing neither payload nor value; any other
	// dispatch calls Handler. Both are one handler, so a Mount from Bind
	// whose Handler is to be wrapped must be built anew.
	typed any
}

// Errors returned by Mount and Declare.
var (
	ErrUnknownPoint = errors.New("unknown mount point")
	ErrWrongScope   = errors.New("mount point belongs to another scope")
	ErrConflict     = errors.New("mount point already declared with another kind or scope")
)

// Config configures a Registry. The zero value is a run-scope registry that
// logs nowhere.
type Config struct {
	// Scope of the registry; points of the other scope are refused.
	Scope Scope
	// Logger receives a warning for each failing handler. Nil discards.
	Logger *slog.Logger
	// OnWarning, when set, also receives each handler failure. Tests use it to
	// tell "builtin decided" from "builtin failed and a plugin decided".
	OnWarning func(contract.Warning)
	// Telemetry, when set, records a "hook {point}" span per dispatch with a
	// child per handler called (origin, handler, outcome) and the
	// helios.hook.duration metric. Nil records nothing and costs nothing.
	Telemetry *telemetry.T
}

// Registry holds the mounts of one scope. It is safe for concurrent use.
type Registry struct {
	scope     Scope
	logger    *slog.Logger
	onWarning func(contract.Warning)
	tel       *telemetry.T

	// mu serializes Declare and Mount. Dispatch takes no lock: points is
	// copy-on-write (Declare publishes a new slice, never writes an old one)
	// and each point publishes its dispatch order atomically.
	mu     sync.Mutex
	points atomic.Pointer[[]*point]
	order  []string // declaration order, for Describe; under mu
}

type point struct {
	Point
	builtins []Mount // under Registry.mu
	commands []Mount // under Registry.mu
	plugins  []Mount // under Registry.mu
	// dispatch is the mounts in dispatch order. Mount publishes a new slice
	// and never writes to one it published, so a dispatch reads it without
	// a lock or a copy (a firstWin dispatch allocates nothing).
	dispatch atomic.Pointer[[]Mount]
}

// publish makes the point's dispatch order from its bands and publishes it.
func (p *point) publish() {
	ms := make([]Mount, 0, len(p.builtins)+len(p.commands)+len(p.plugins))
	ms = append(ms, p.builtins...)
	ms = append(ms, p.commands...)
	ms = append(ms, p.plugins...)
	p.dispatch.Store(&ms)
}

// New returns a registry of cfg.Scope with the standard points of that scope
// declared.
func New(cfg Config) *Registry {
	r := &Registry{
		scope:     cfg.Scope,
		logger:    cfg.Logger,
		onWarning: cfg.OnWarning,
		tel:       cfg.Telemetry,
	}
	r.points.Store(&[]*point{})
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	for _, p := range standard {
		if p.Scope == cfg.Scope {
			_ = r.Declare(p)
		}
	}
	return r
}

// Scope returns the registry's scope.
func (r *Registry) Scope() Scope { return r.scope }

// Declare adds a custom point. Declaring the same point again is a no-op;
// declaring a name with another kind or scope is ErrConflict.
func (r *Registry) Declare(p Point) error {
	if p.Scope != r.scope {
		return fmt.Errorf("declare %q: %w (point is %s, registry is %s)", p.Name, ErrWrongScope, p.Scope, r.scope)
	}
	// A standard name keeps its standard kind and scope; otherwise a custom
	// Declare could move context:compact into the run registry.
	for _, sp := range StandardPoints() {
		if sp.Name == p.Name && sp != p {
			return fmt.Errorf("declare %q: %w (standard point is %s, %s)", p.Name, ErrConflict, sp.Kind, sp.Scope)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev := r.lookup(p.Name); prev != nil {
		if prev.Point != p {
			return fmt.Errorf("declare %q: %w", p.Name, ErrConflict)
		}
		return nil
	}
	np := &point{Point: p}
	np.dispatch.Store(&[]Mount{})
	pts := append(slices.Clip(*r.points.Load()), np)
	r.points.Store(&pts)
	r.order = append(r.order, p.Name)
	return nil
}

// Mount attaches m to its point. The point must be declared in this registry;
// a standard point of the other scope is ErrWrongScope.
func (r *Registry) Mount(m Mount) error {
	if m.Handler == nil {
		return fmt.Errorf("mount %q on %q: nil handler", m.Name, m.Point)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.lookup(m.Point)
	if p == nil {
		for _, sp := range StandardPoints() {
			if sp.Name == m.Point {
				return fmt.Errorf("mount %q on %q: %w (point is %s, registry is %s)", m.Name, m.Point, ErrWrongScope, sp.Scope, r.scope)
			}
		}
		return fmt.Errorf("mount %q on %q: %w", m.Name, m.Point, ErrUnknownPoint)
	}
	// The band is chosen here, by origin, so that no caller's registration
	// order can put a plugin ahead of a builtin.
	switch m.Origin {
	case Builtin:
		p.builtins = append(p.builtins, m)
	case Command:
		p.commands = append(p.commands, m)
	case Plugin:
		p.plugins = append(p.plugins, m)
	default:
		return fmt.Errorf("mount %q on %q: unknown origin %d", m.Name, m.Point, m.Origin)
	}
	p.publish()
	return nil
}

// lookup finds a declared point. A registry holds a handful of points, so a
// scan (lengths first) beats hashing the name.
func (r *Registry) lookup(name string) *point {
	for _, p := range *r.points.Load() {
		if len(p.Name) == len(name) && p.Name == name {
			return p
		}
	}
	return nil
}

// handlers returns a point's mounts in dispatch order, without a lock or a
// copy: the slice is never written once published, so the caller must not
// modify it.
func (r *Registry) handlers(name string) (*point, []Mount, error) {
	p := r.lookup(name)
	if p == nil {
		return nil, nil, dispatchError(name, nil, 0)
	}
	return p, *p.dispatch.Load(), nil
}

// PointInfo describes a point for Describe.
type PointInfo struct {
	// Name is the point's name.
	Name string `json:"name"`
	// Kind is "concat" or "firstWin".
	Kind string `json:"kind"`
	// Scope is "run" or "session".
	Scope string `json:"scope"`
	// Handlers are in dispatch order.
	Handlers []HandlerInfo `json:"handlers"`
}

// HandlerInfo describes one mounted handler.
type HandlerInfo struct {
	// Name is the handler's name ("<capability>/<mount>" for a plugin's named mount).
	Name string `json:"name"`
	// Origin is "builtin", "command" or "plugin".
	Origin string `json:"origin"`
}

// Describe lists the registry's points (standard points in lifecycle order,
// then custom points in declaration order) with their handlers in dispatch
// order.
func (r *Registry) Describe() []PointInfo {
	r.mu.Lock()
	names := slices.Clone(r.order)
	r.mu.Unlock()
	out := make([]PointInfo, 0, len(names))
	for _, name := range names {
		p, ms, err := r.handlers(name)
		if err != nil {
			continue
		}
		info := PointInfo{Name: p.Name, Kind: p.Kind.String(), Scope: p.Scope.String(), Handlers: []HandlerInfo{}}
		for _, m := range ms {
			info.Handlers = append(info.Handlers, HandlerInfo{Name: m.Name, Origin: m.Origin.String()})
		}
		out = append(out, info)
	}
	return out
}

// SplitByScope splits a capability's mounts into those for the run registry
// and those for the session registry, keeping their order. Mounts on points
// that are not standard go to run; Mount reports them if undeclared.
func SplitByScope(ms []Mount) (run, session []Mount) {
	for _, m := range ms {
		if ScopeOf(m.Point) == ScopeSession {
			session = append(session, m)
		} else {
			run = append(run, m)
		}
	}
	return run, session
}

// ScopeOf returns the scope of a standard point, and ScopeRun for any other name.
func ScopeOf(name string) Scope {
	for _, p := range StandardPoints() {
		if p.Name == name {
			return p.Scope
		}
	}
	return ScopeRun
}
