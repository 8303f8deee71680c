package hooks

import (
	"context"
	"fmt"
	"reflect"
)

// ConcatPoint is a typed view of a concat point: handlers take In and return
// Out, and dispatch returns the Outs in order.
type ConcatPoint[In, Out any] struct {
	Point
}

// FirstWinPoint is a typed view of a firstWin point.
type FirstWinPoint[In, Out any] struct {
	Point
}

// NewConcat types a concat point.
func NewConcat[In, Out any](p Point) ConcatPoint[In, Out] {
	if p.Kind != Concat {
		panic(fmt.Sprintf("type concat point %q: it is %s", p.Name, p.Kind))
	}
	return ConcatPoint[In, Out]{p}
}

// NewFirstWin types a firstWin point.
func NewFirstWin[In, Out any](p Point) FirstWinPoint[In, Out] {
	if p.Kind != FirstWin {
		panic(fmt.Sprintf("type firstWin point %q: it is %s", p.Name, p.Kind))
	}
	return FirstWinPoint[In, Out]{p}
}

// Bind makes a typed concat handler into a Mount on this point, for a
// capability's Mounts (the kernel sets its Origin from how the capability
// was installed). ok=false means "nothing to add". A payload of another
// type is the handler's failure, warned about like any other.
func (p ConcatPoint[In, Out]) Bind(name string, h func(ctx context.Context, in In) (out Out, ok bool, err error)) Mount {
	return bind(p.Name, name, h)
}

// Mount attaches a typed concat handler to r with the given origin.
func (p ConcatPoint[In, Out]) Mount(r *Registry, name string, origin Origin, h func(ctx context.Context, in In) (out Out, ok bool, err error)) error {
	m := p.Bind(name, h)
	m.Origin = origin
	return r.Mount(m)
}

// bind makes a Mount of a typed handler. A typed dispatch calls h itself
// (no payload or value boxed) when In and Out are concrete types: then the
// assertion in typed(h) and the dispatch's check of the value always pass,
// so both ways give the same outcome. An interface In or Out (nil fails an
// assertion) keeps to the Handler.
func bind[In, Out any](point, name string, h boundFunc[In, Out]) Mount {
	m := Mount{Point: point, Name: name, Handler: typed(h)}
	if reflect.TypeFor[In]().Kind() != reflect.Interface && reflect.TypeFor[Out]().Kind() != reflect.Interface {
		m.typed = h
	}
	return m
}

// typed adapts a typed handler to Handler: the payload is asserted to In,
// and handled=false (or an error) is a pass.
func typed[In, Out any](h func(ctx context.Context, in In) (Out, bool, error)) Handler {
	return func(ctx context.Context, in any) (Result, error) {
		v, ok := in.(In)
		if !ok {
			return Pass, fmt.Errorf("payload is %T, want %T", in, v)
		}
		out, handled, err := h(ctx, v)
		if err != nil || !handled {
			return Pass, err
		}
		return Handled(out), nil
	}
}

// Dispatch calls every handler and returns their outputs in dispatch order.
// An output of another type (from a handler mounted untyped) is that
// handler's failure: warned about and left out.
func (p ConcatPoint[In, Out]) Dispatch(ctx context.Context, r *Registry, in In) ([]Out, error) {
	out, _, _, err := dispatch[In, Out](ctx, r, p.Name, Concat, in, true)
	if out == nil {
		out = []Out{}
	}
	return out, err
}

// Bind makes a typed firstWin handler into a Mount on this point, for a
// capability's Mounts (the kernel sets its Origin from how the capability
// was installed). handled=false passes.
func (p FirstWinPoint[In, Out]) Bind(name string, h func(ctx context.Context, in In) (out Out, handled bool, err error)) Mount {
	return bind(p.Name, name, h)
}

// Mount attaches a typed firstWin handler to r with the given origin.
func (p FirstWinPoint[In, Out]) Mount(r *Registry, name string, origin Origin, h func(ctx context.Context, in In) (out Out, handled bool, err error)) error {
	m := p.Bind(name, h)
	m.Origin = origin
	return r.Mount(m)
}

// Dispatch returns the first handled output, or handled=false when all
// passed. A decision of another type is that handler's failure: warned about,
// and the next handler gets its turn.
func (p FirstWinPoint[In, Out]) Dispatch(ctx context.Context, r *Registry, in In) (out Out, handled bool, err error) {
	_, won, done, err := dispatch[In, Out](ctx, r, p.Name, FirstWin, in, true)
	if err != nil || !done {
		return out, false, err
	}
	return won, true, nil
}

// NotifyPoint is a typed view of a concat point whose handlers return
// nothing (compact:before, session:end): every handler is told, in order,
// and none can change what follows.
type NotifyPoint[In any] struct {
	Point
}

// NewNotify types a notification point (a concat point).
func NewNotify[In any](p Point) NotifyPoint[In] {
	if p.Kind != Concat {
		panic(fmt.Sprintf("type notification point %q: it is %s", p.Name, p.Kind))
	}
	return NotifyPoint[In]{p}
}

// Bind makes a notification handler into a Mount on this point, for a
// capability's Mounts (the kernel sets its Origin from how the capability
// was installed). An error is reported as a warning, like any handler's.
func (p NotifyPoint[In]) Bind(name string, h func(ctx context.Context, in In) error) Mount {
	return bind(p.Name, name, func(ctx context.Context, in In) (struct{}, bool, error) {
		return struct{}{}, false, h(ctx, in)
	})
}

// Dispatch calls every handler in order.
func (p NotifyPoint[In]) Dispatch(ctx context.Context, r *Registry, in In) error {
	_, _, _, err := dispatch[In, struct{}](ctx, r, p.Name, Concat, in, true)
	return err
}
