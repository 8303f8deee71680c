package hooks

import (
	"context"
	"fmt"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// DispatchConcat calls every handler of a concat point in order and returns
// the values of those that contributed (Handled), in that order. A failing
// handler is reported and skipped.
func (r *Registry) DispatchConcat(ctx context.Context, name string, in any) ([]any, error) {
	out, _, _, err := dispatch[any, any](ctx, r, name, Concat, in, false)
	return out, err
}

// DispatchFirstWin calls the handlers of a firstWin point in order until one
// handles the call, and returns its result. When every handler passes (or
// fails) the result is Pass. A failing handler is reported and skipped.
func (r *Registry) DispatchFirstWin(ctx context.Context, name string, in any) (Result, error) {
	_, won, done, err := dispatch[any, any](ctx, r, name, FirstWin, in, false)
	if err != nil || !done {
		return Pass, err
	}
	return Handled(won), nil
}

// boundFunc is a handler as Bind takes it.
type boundFunc[In, Out any] = func(context.Context, In) (Out, bool, error)

// dispatch calls the handlers of the point name, which must be of kind k,
// in dispatch order: every one on a concat point, joining the values of
// those that contributed (out); on a firstWin point until one decides (won,
// done). In and Out are the point's payload and value types, any when
// untyped; vet says a handled value that is not an Out is its handler's
// failure (a typed dispatch).
//
// The handlers run in one loop, run. A handler that fails or panics costs
// its own call only: run reports a panic and returns at it, and dispatch
// resumes the loop after it with what came before, so the recover is set
// up once per dispatch (and once more per panic), not once per handler.
func dispatch[In, Out any](ctx context.Context, r *Registry, name string, k Kind, in In, vet bool) (out []Out, won Out, done bool, err error) {
	p := r.lookup(name)
	if p == nil || p.Kind != k {
		return nil, won, false, dispatchError(name, p, k)
	}
	ms := *p.dispatch.Load()
	var span trace.Span
	if r.tel != nil {
		ctx, span = r.tel.StartHook(ctx, p.Name, p.Kind.String())
	}
	// run returns where it stopped: past the last handler, at a decision,
	// at the end of ctx, or at a handler that panicked, after which the
	// loop resumes with the next one.
	for next := 0; next < len(ms); next++ {
		next, out, won, done, err = run(ctx, r, p, ms, next, &in, vet, out)
		if done || err != nil {
			break
		}
	}
	if span != nil {
		r.tel.End(span, err)
	}
	return out, won, done, err
}

// run calls the handlers ms[i:] with *in, adding to prev, until none is left
// (at = len(ms)), a firstWin handler decides (done), the context ends (err)
// or a handler panics (at is that handler's index; the panic is reported).
// A handler Bind made for this In and Out is called as it is, nothing
// boxed; any other through its Handler, which boxes the payload of a typed
// dispatch (plugins' handlers, whose calls cost far more). A handler's
// error, or (vet) a value that is not an Out, is reported and skipped.
func run[In, Out any](ctx context.Context, r *Registry, p *point, ms []Mount, i int, in *In, vet bool, prev []Out) (at int, out []Out, won Out, done bool, err error) {
	out = prev
	var span *telemetry.Handler // the traced handler call in progress
	defer func() {
		if x := recover(); x != nil {
			perr := panicError(x)
			span.End(ctx, telemetry.OutcomePanicked, perr)
			r.warn(ctx, &ms[at], perr)
		}
	}()
	traced, firstWin := r.tel != nil, p.Kind == FirstWin
	// A context that can never be cancelled has no Done channel: no check
	// at all. Otherwise a non-blocking receive before each handler.
	cancel := ctx.Done()
	for at = i; at < len(ms); at++ {
		if cancel != nil && closed(cancel) {
			return at, out, won, false, ctx.Err()
		}
		m := &ms[at]
		hctx := ctx
		if traced {
			hctx, span = r.tel.StartHandler(ctx, p.Name, p.Kind.String(), m.Origin.String(), m.Name)
		}
		var v Out
		var handled bool
		var err error
		if h, ok := m.typed.(boundFunc[In, Out]); ok {
			v, handled, err = h(hctx, *in)
		} else {
			var res Result
			var ok bool
			res, err = m.Handler(hctx, *in)
			v, ok = res.Value.(Out)
			if handled = res.Handled; !ok && vet && handled && err == nil {
				err = refused(res.Value, v)
			}
		}
		if traced {
			span.End(ctx, outcome(handled, err), err)
			span = nil
		}
		if err != nil {
			r.warn(ctx, m, err)
			continue
		}
		if !handled {
			continue
		}
		if firstWin {
			return at, out, v, true, nil
		}
		if out == nil {
			out = make([]Out, 0, len(ms)-at) // one allocation per dispatch
		}
		out = append(out, v)
	}
	return at, out, won, false, nil
}

// dispatchError says why name cannot be dispatched as a point of kind k:
// p is the point of that name, nil when none is declared.
func dispatchError(name string, p *point, k Kind) error {
	if p == nil {
		return fmt.Errorf("dispatch %q: %w", name, ErrUnknownPoint)
	}
	return fmt.Errorf("dispatch %q: point is %s, not %s", name, p.Kind, k)
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

// warn reports the failure of m's handler to the logger, the warning sink
// and the warnings function of ctx (contract.WithWarnings), naming point,
// handler and origin.
func (r *Registry) warn(ctx context.Context, m *Mount, err error) {
	r.logger.WarnContext(ctx, "hook handler failed; continuing with the next handler",
		slog.String("point", m.Point),
		slog.String("handler", m.Name),
		slog.String("origin", m.Origin.String()),
		slog.Any("error", err))
	w := contract.Warning{
		Source:  "hook",
		Path:    m.Point,
		Message: fmt.Sprintf("%s handler %q failed: %v", m.Origin, m.Name, err),
	}
	if r.onWarning != nil {
		r.onWarning(w)
	}
	contract.Warn(ctx, w)
}
