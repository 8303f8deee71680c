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
	// every builtin of the same point.
	Plugin
)

// String returns "builtin" or "plugin".
func (o Origin) String() string {
	switch o {
	case Builtin:
		return "builtin"
	case Plugin:
		return "plugin"
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

// The standard points, in lifecycle order.
var (
	// SessionStart runs once when a session opens; results are joined.
	SessionStart = Point{"session:start", Concat, ScopeSession}
	// ContextPrepare runs before each model request; every handler may add
	// context, joined in dispatch order (the model sees that order).
	ContextPrepare = Point{"context:prepare", Concat, ScopeRun}
	// ContextCompact runs when the context passes its budget. The builtin
	// compactor decides when it can; plugins only get the call when it passes.
	ContextCompact = Point{"context:compact", FirstWin, ScopeSession}
	// ToolBefore runs before each tool call; the first handler that decides
	// (deny or rewrite) wins.
	ToolBefore = Point{"tool:before", FirstWin, ScopeRun}
	// TurnEnd decides whether the turn ends; the first handler that decides wins.
	TurnEnd = Point{"turn:end", FirstWin, ScopeRun}
)

// StandardPoints lists the standard points in lifecycle order.
func StandardPoints() []Point {
	return []Point{SessionStart, ContextPrepare, ContextCompact, ToolBefore, TurnEnd}
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
	plugins  []Mount // under Registry.mu
	// dispatch is the mounts in dispatch order. Mount publishes a new slice
	// and never writes to one it published, so a dispatch reads it without a
	// lock or a copy (a firstWin dispatch allocates nothing).
	dispatch atomic.Pointer[[]Mount]
}

// order returns the point's mounts in dispatch order, in a new slice.
func (p *point) order() []Mount {
	ms := make([]Mount, 0, len(p.builtins)+len(p.plugins))
	ms = append(ms, p.builtins...)
	ms = append(ms, p.plugins...)
	return ms
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
	for _, p := range StandardPoints() {
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
	if prev, ok := r.lookup(p.Name); ok {
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
	p, ok := r.lookup(m.Point)
	if !ok {
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
	case Plugin:
		p.plugins = append(p.plugins, m)
	default:
		return fmt.Errorf("mount %q on %q: unknown origin %d", m.Name, m.Point, m.Origin)
	}
	ms := p.order()
	p.dispatch.Store(&ms)
	return nil
}

// lookup finds a declared point. A registry holds a handful of points, so a
// scan (lengths first) beats hashing the name.
func (r *Registry) lookup(name string) (*point, bool) {
	for _, p := range *r.points.Load() {
		if len(p.Name) == len(name) && p.Name == name {
			return p, true
		}
	}
	return nil, false
}

// handlers returns a point's mounts in dispatch order, without a lock or a
// copy: the slice is never written once published, so the caller must not
// modify it.
func (r *Registry) handlers(name string) (Point, []Mount, error) {
	p, ok := r.lookup(name)
	if !ok {
		return Point{}, nil, fmt.Errorf("dispatch %q: %w", name, ErrUnknownPoint)
	}
	return p.Point, *p.dispatch.Load(), nil
}

// DispatchConcat calls every handler of a concat point in order and returns
// the values of those that contributed (Handled), in that order. A failing handler is
// reported and skipped.
func (r *Registry) DispatchConcat(ctx context.Context, name string, in any) ([]any, error) {
	return r.dispatchConcat(ctx, name, in, nil)
}

// accept vets a handled value; a value it refuses counts as that handler's
// failure (typed points use it to refuse values of the wrong type).
type accept func(v any) error

func (r *Registry) dispatchConcat(ctx context.Context, name string, in any, ok accept) ([]any, error) {
	p, ms, err := r.handlers(name)
	if err != nil {
		return nil, err
	}
	if p.Kind != Concat {
		return nil, fmt.Errorf("dispatch %q: point is %s, not concat", name, p.Kind)
	}
	d := dispatch{r: r, ms: ms, in: in, vet: ok, point: p}
	err = d.traced(ctx)
	return d.out, err
}

// DispatchFirstWin calls the handlers of a firstWin point in order until one
// handles the call, and returns its result. When every handler passes (or
// fails) the result is Pass. A failing handler is reported and skipped.
func (r *Registry) DispatchFirstWin(ctx context.Context, name string, in any) (Result, error) {
	return r.dispatchFirstWin(ctx, name, in, nil)
}

func (r *Registry) dispatchFirstWin(ctx context.Context, name string, in any, ok accept) (Result, error) {
	p, ms, err := r.handlers(name)
	if err != nil {
		return Pass, err
	}
	if p.Kind != FirstWin {
		return Pass, fmt.Errorf("dispatch %q: point is %s, not firstWin", name, p.Kind)
	}
	d := dispatch{r: r, ms: ms, in: in, vet: ok, firstWin: true, point: p}
	if err := d.traced(ctx); err != nil {
		return Pass, err
	}
	return d.won, nil
}

// dispatch is one call of a point: its handlers in order, what they
// contributed (concat) or the decision (firstWin).
type dispatch struct {
	r        *Registry
	ms       []Mount
	in       any
	vet      accept
	firstWin bool
	point    Point

	next int    // the next handler to call
	out  []any  // concat: the contributions, in order
	won  Result // firstWin: the decision, or Pass
	done bool   // firstWin: a handler decided

	span *telemetry.Handler // the handler call in progress, when tracing
}

// traced runs the dispatch inside a "hook {point}" span when telemetry is
// on; off, it is run alone.
func (d *dispatch) traced(ctx context.Context) error {
	tel := d.r.tel
	if tel == nil {
		return d.run(ctx)
	}
	ctx, span := tel.StartHook(ctx, d.point.Name, d.point.Kind.String())
	err := d.run(ctx)
	tel.End(span, err)
	return err
}

// run calls the handlers from d.next on. A panic costs its handler only: it
// is warned about and the loop resumes after it, so the recover is set up
// once per dispatch (and once more per panic), not once per handler.
func (d *dispatch) run(ctx context.Context) error {
	for d.next < len(d.ms) && !d.done {
		if err := d.runFrom(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (d *dispatch) runFrom(ctx context.Context) (err error) {
	ms, in, vet, out := d.ms, d.in, d.vet, d.out
	tel, firstWin := d.r.tel, d.firstWin
	i := d.next
	defer func() {
		d.out = out
		if v := recover(); v != nil {
			perr := fmt.Errorf("panic: %v", v)
			d.span.End(ctx, telemetry.OutcomePanicked, perr)
			d.span = nil
			d.r.warn(ctx, &ms[i], perr)
			i++
		}
		d.next = i
	}()
	// A context that can never be cancelled has no Done channel: no check
	// at all. Otherwise a non-blocking receive before each handler.
	cancel := ctx.Done()
	for ; i < len(ms); i++ {
		if cancel != nil {
			select {
			case <-cancel:
				return ctx.Err()
			default:
			}
		}
		m := &ms[i]
		hctx := ctx
		if tel != nil {
			hctx, d.span = tel.StartHandler(ctx, d.point.Name, d.point.Kind.String(), m.Origin.String(), m.Name)
		}
		res, err := m.Handler(hctx, in)
		if err == nil && res.Handled && vet != nil {
			err = vet(res.Value)
		}
		if tel != nil {
			d.span.End(ctx, outcome(res, err), err)
			d.span = nil
		}
		if err != nil {
			d.r.warn(ctx, m, err)
			continue
		}
		if !res.Handled {
			continue
		}
		if firstWin {
			d.won, d.done = res, true
			i++
			return nil
		}
		if out == nil {
			out = make([]any, 0, len(ms)-i) // one allocation per dispatch
		}
		out = append(out, res.Value)
	}
	return nil
}

// outcome names a handler call's outcome for its span.
func outcome(res Result, err error) string {
	switch {
	case err != nil:
		return telemetry.HandlerOutcome(err)
	case res.Handled:
		return telemetry.OutcomeHandled
	}
	return telemetry.OutcomePassed
}

func (r *Registry) warn(ctx context.Context, m *Mount, err error) {
	r.logger.WarnContext(ctx, "hook handler failed; continuing with the next handler",
		slog.String("point", m.Point),
		slog.String("handler", m.Name),
		slog.String("origin", m.Origin.String()),
		slog.Any("error", err))
	if r.onWarning != nil {
		r.onWarning(contract.Warning{
			Source:  "hook",
			Path:    m.Point,
			Message: fmt.Sprintf("%s handler %q failed: %v", m.Origin, m.Name, err),
		})
	}
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
	// Origin is "builtin" or "plugin".
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
