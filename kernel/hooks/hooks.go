package hooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"

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

// standard is the standard points in lifecycle order.
var standard = [...]Point{SessionStart, ContextPrepare, ContextCompact, ToolBefore, TurnEnd}

// StandardPoints lists the standard points in lifecycle order.
func StandardPoints() []Point {
	return slices.Clone(standard[:])
}

// standardIndex returns 1 + the index of p in standard, or 0 when p is not
// a standard point.
func standardIndex(p Point) int {
	for i, sp := range standard {
		if sp == p {
			return i + 1
		}
	}
	return 0
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

	// typed is the handler a typed point's Bind made Handler from, a
	// boundFunc[In, Out]: a typed dispatch of the same In and Out calls it
	// as it is, boxing neither payload nor value. Nil in a Mount built by
	// hand. Both fields are one handler, so a Mount from Bind whose Handler
	// is to be wrapped must be built anew.
	typed any
	// collect, set with typed, collects the typed handlers of a dispatch
	// order into a []boundFunc[In, Out], or returns nil when one of them is
	// not of that type (see collectBound).
	collect func([]Mount) any
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
	// std holds the standard points of the registry's scope, by their
	// index in standard (nil for the other scope's), for a typed dispatch
	// to find without comparing names. Set by New, never changed.
	std [len(standard)]*point
}

type point struct {
	Point
	builtins []Mount // under Registry.mu
	plugins  []Mount // under Registry.mu
	// dispatch is the mounts in dispatch order. Mount publishes a new one
	// and never writes to one it published, so a dispatch reads it without a
	// lock or a copy (a firstWin dispatch allocates nothing).
	dispatch atomic.Pointer[order]
}

// order is a point's mounts in dispatch order.
type order struct {
	ms       []Mount
	firstWin bool // the point is a firstWin point
	// bound is the mounts' typed handlers, a []boundFunc[In, Out], when
	// Bind made every one of them for the same In and Out; nil otherwise. A
	// typed dispatch of that In and Out, untraced, runs them (runBound) in a
	// loop as plain as calling them one by one.
	bound any
}

// publish makes the point's dispatch order from its bands and publishes it.
func (p *point) publish() {
	ms := make([]Mount, 0, len(p.builtins)+len(p.plugins))
	ms = append(ms, p.builtins...)
	ms = append(ms, p.plugins...)
	o := &order{ms: ms, firstWin: p.Kind == FirstWin}
	if len(ms) > 0 && ms[0].collect != nil {
		o.bound = ms[0].collect(ms)
	}
	p.dispatch.Store(o)
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
	for i, p := range standard {
		if p.Scope == cfg.Scope {
			_ = r.Declare(p)
			r.std[i] = r.lookup(p.Name)
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
	np.dispatch.Store(&order{})
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
	return p, p.dispatch.Load().ms, nil
}

// DispatchConcat calls every handler of a concat point in order and returns
// the values of those that contributed (Handled), in that order. A failing handler is
// reported and skipped.
func (r *Registry) DispatchConcat(ctx context.Context, name string, in any) ([]any, error) {
	out, _, _, err := dispatchPoint[any, any](ctx, r, nil, name, Concat, in, false)
	return out, err
}

// DispatchFirstWin calls the handlers of a firstWin point in order until one
// handles the call, and returns its result. When every handler passes (or
// fails) the result is Pass. A failing handler is reported and skipped.
func (r *Registry) DispatchFirstWin(ctx context.Context, name string, in any) (Result, error) {
	_, won, done, err := dispatchPoint[any, any](ctx, r, nil, name, FirstWin, in, false)
	if err != nil || !done {
		return Pass, err
	}
	return Handled(won), nil
}

// find returns the point of kind k a typed dispatch names. std is 1 + the
// point's index in standard, found without comparing names; 0 looks the
// name up.
func (r *Registry) find(name string, std int, k Kind) (*point, error) {
	var p *point
	if std > 0 {
		p = r.std[std-1]
	}
	if p == nil {
		p = r.lookup(name)
	}
	if p == nil || p.Kind != k {
		return nil, dispatchError(name, p, k)
	}
	return p, nil
}

// dispatchError says why name cannot be dispatched as a point of kind k:
// p is the point of that name, nil when none is declared.
func dispatchError(name string, p *point, k Kind) error {
	if p == nil {
		return fmt.Errorf("dispatch %q: %w", name, ErrUnknownPoint)
	}
	return fmt.Errorf("dispatch %q: point is %s, not %s", name, p.Kind, k)
}

// boundFunc is a handler as Bind takes it.
type boundFunc[In, Out any] = func(context.Context, In) (Out, bool, error)

// bound returns p's dispatch order and, when a typed dispatch of In and Out
// can call them as they are, the handlers Bind made: every mount bound for
// this In and Out, and no tracing (which puts each call in a span of its
// own). Otherwise fs is nil, and the dispatch takes dispatchPoint.
func bound[In, Out any](r *Registry, p *point) (o *order, fs []boundFunc[In, Out]) {
	o = p.dispatch.Load()
	if r.tel == nil {
		fs, _ = o.bound.([]boundFunc[In, Out])
	}
	return o, fs
}

// runBound is dispatchPoint for an order whose handlers are all bound for In
// and Out, untraced: o.bound is the typed handlers of o.ms. It calls them
// from i on, adding to out, in a loop as plain as calling them one by one:
// there is nothing to decide in between but what their results say. A
// panic costs its handler only: the deferred func warns and runs the rest
// from the next handler, with what came before it.
//
// The deferred func takes the payload by pointer: captured as a value, a
// large In was copied into it on every dispatch (BenchmarkDispatch).
func runBound[In, Out any](ctx context.Context, r *Registry, o *order, in In, i int, out []Out) (res []Out, won Out, done bool, err error) {
	pin := &in
	defer func() {
		if v := recover(); v != nil {
			r.warn(ctx, &o.ms[i], panicError(v))
			res, won, done, err = runBound(ctx, r, o, *pin, i+1, out)
		}
	}()
	fs, firstWin := o.bound.([]boundFunc[In, Out]), o.firstWin
	// A context that can never be cancelled has no Done channel: no check
	// at all. Otherwise a non-blocking receive before each handler.
	cancel := ctx.Done()
	for ; i < len(fs); i++ {
		if cancel != nil && closed(cancel) {
			return out, won, false, ctx.Err()
		}
		v, handled, err := fs[i](ctx, in)
		if err != nil {
			r.warn(ctx, &o.ms[i], err)
			continue
		}
		if !handled {
			continue
		}
		if firstWin {
			return out, v, true, nil
		}
		if out == nil {
			out = make([]Out, 0, len(fs)-i) // one allocation per dispatch
		}
		out = append(out, v)
	}
	return out, won, false, nil
}

// dispatch is one call of a point: its mounts in dispatch order and where a
// run stopped at a panic. In and Out are the point's payload and value
// types, any when untyped. The payload itself travels as an argument: a
// copy kept here and read back cost a typed dispatch a few ns more.
type dispatch[In, Out any] struct {
	r   *Registry
	p   *point
	ms  []Mount
	vet bool // a handled value that is not an Out is its handler's failure

	next   int   // after a panic: the handler after the one that panicked
	out    []Out // after a panic: what was contributed before it
	resume bool  // a handler panicked: run again from next

	span *telemetry.Handler // the handler call in progress, when tracing
}

// dispatchPoint calls the handlers of p (nil: of the point name, which must
// be of kind k) in order: every one on a concat point, joining the values of
// those that contributed (out); on a firstWin point until one decides (won,
// done). vet says a handled value that is not an Out is its handler's
// failure (typed dispatch). It takes any mix of typed and untyped handlers,
// traced or not; runBound is the shortcut for handlers all bound for In and
// Out. (The untyped Dispatch methods look up here rather than before: one
// frame less, and they stay small enough to inline.)
//
// A panic costs its handler only: runFrom warns about it and returns, and
// the loop here resumes after it, so the recover is set up once per
// dispatch (and once more per panic), not once per handler.
func dispatchPoint[In, Out any](ctx context.Context, r *Registry, p *point, name string, k Kind, in In, vet bool) (out []Out, won Out, done bool, err error) {
	if p == nil {
		if p = r.lookup(name); p == nil || p.Kind != k {
			return nil, won, false, dispatchError(name, p, k)
		}
	}
	// Field by field, not a composite literal: a literal this size is built
	// aside and block-copied, and runFrom reading the copy back cost about
	// 6 ns a dispatch, a fifth of the registry's overhead (BenchmarkDispatch).
	var d dispatch[In, Out]
	d.r = r
	d.p = p
	d.ms = p.dispatch.Load().ms
	d.vet = vet
	tel := r.tel
	var span trace.Span
	if tel != nil {
		ctx, span = tel.StartHook(ctx, p.Name, p.Kind.String())
	}
	out, won, done, err = d.runFrom(ctx, in)
	for d.resume {
		d.resume = false
		out, won, done, err = d.runFrom(ctx, in)
	}
	if tel != nil {
		tel.End(span, err)
	}
	return out, won, done, err
}

// runFrom calls the handlers from d.next on, adding to d.out, until none is
// left, the context ends, a firstWin handler decides or one panics. It works
// on locals; the deferred func saves them to d when a handler panics: i is
// the handler being called, so the panic is charged to it and the next run
// starts after it.
func (d *dispatch[In, Out]) runFrom(ctx context.Context, in In) (out []Out, won Out, done bool, err error) {
	ms, vet, i := d.ms, d.vet, d.next
	out = d.out
	defer func() {
		if v := recover(); v != nil {
			d.panicked(ctx, i, v)
			d.next, d.out, d.resume = i+1, out, true
		}
	}()
	r := d.r
	traced, firstWin := r.tel != nil, d.p.Kind == FirstWin
	// A context that can never be cancelled has no Done channel: no check
	// at all. Otherwise a non-blocking receive before each handler.
	cancel := ctx.Done()
	for ; i < len(ms); i++ {
		if cancel != nil && closed(cancel) {
			return out, won, false, ctx.Err()
		}
		m := &ms[i]
		hctx := ctx
		if traced {
			hctx = d.startSpan(ctx, m)
		}
		var v Out
		var handled bool
		var err error
		if h, ok := m.typed.(boundFunc[In, Out]); ok {
			// Bound by a typed point of this In and Out: called as it
			// is, nothing boxed (see bind).
			v, handled, err = h(hctx, in)
		} else {
			// Through Handler: a typed dispatch boxes its payload for
			// each such call (plugins, whose calls cost far more).
			var res Result
			var ok bool
			res, err = m.Handler(hctx, in)
			v, ok = res.Value.(Out)
			if handled = res.Handled; !ok && vet && handled && err == nil {
				err = refused(res.Value, v)
			}
		}
		if traced {
			d.endSpan(ctx, handled, err)
		}
		if err != nil {
			r.warn(ctx, m, err)
			continue
		}
		if !handled {
			continue
		}
		if firstWin {
			return out, v, true, nil
		}
		if out == nil {
			out = make([]Out, 0, len(ms)-i) // one allocation per dispatch
		}
		out = append(out, v)
	}
	return out, won, false, nil
}

// startSpan starts the span of handler m, kept in d while the handler runs,
// for a panic to end.
func (d *dispatch[In, Out]) startSpan(ctx context.Context, m *Mount) context.Context {
	ctx, d.span = d.r.tel.StartHandler(ctx, d.p.Name, d.p.Kind.String(), m.Origin.String(), m.Name)
	return ctx
}

// endSpan ends the span of the handler that returned.
func (d *dispatch[In, Out]) endSpan(ctx context.Context, handled bool, err error) {
	d.span.End(ctx, outcome(handled, err), err)
	d.span = nil
}

// panicked reports the panic v of handler i, ending its span if traced.
func (d *dispatch[In, Out]) panicked(ctx context.Context, i int, v any) {
	err := panicError(v)
	d.span.End(ctx, telemetry.OutcomePanicked, err)
	d.span = nil
	d.r.warn(ctx, &d.ms[i], err)
}

// closed says whether the Done channel of a dispatch's context is closed,
// without waiting.
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// panicError is the failure of a handler that panicked with v.
func panicError(v any) error {
	return fmt.Errorf("panic: %v", v)
}

// refused is a typed dispatch's failure for a value that is not an Out.
func refused(got, want any) error {
	return fmt.Errorf("handler returned %T, want %T", got, want)
}

// outcome names a handler call's outcome for its span.
func outcome(handled bool, err error) string {
	switch {
	case err != nil:
		return telemetry.HandlerOutcome(err)
	case handled:
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
