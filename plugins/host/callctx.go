package host

import (
	"context"
	"errors"
	"sync"
	"time"
)

// The call timeout is enforced by a watchdog over contexts reused from call
// to call, rather than by a context deadline or a timer per call. A
// deadline would travel to the plugin, and gRPC would arm a timer for it on
// both sides. A context.WithCancelCause and a time.AfterFunc per call cost
// five allocations (the context, its done channel, the map of children in
// which gRPC's own context registers, the timer and its function) and a
// timer-heap update, about 1% of a whole hook call on a local socket. The
// watchdog looks at the calls in flight every tenth of the timeout, so a
// hung call ends between CallTimeout and 1.1×CallTimeout after it started;
// per call it costs a clock read and two short locked sections, and an idle
// plugin one wake-up per tick.

// errCallTimeout is the cause of a call cancelled by the watchdog.
var errCallTimeout = errors.New("call timeout")

// inFlight is a Capability's calls in flight.
type inFlight struct {
	mu    sync.Mutex
	calls []*callCtx // each at its index
}

// start returns the context of a call under parent that the watchdog
// cancels once timeout has passed. parent must not be done yet. The call
// ends with end.
func (f *inFlight) start(parent context.Context, timeout time.Duration) *callCtx {
	cc := callCtxs.Get().(*callCtx)
	cc.parent = parent
	if parent.Done() != nil {
		cc.stop = context.AfterFunc(parent, func() { cc.cancel(context.Cause(parent)) })
	}
	cc.deadline = time.Now().Add(timeout)
	f.mu.Lock()
	cc.index = len(f.calls)
	f.calls = append(f.calls, cc)
	f.mu.Unlock()
	return cc
}

// end ends the call of cc and reports whether the watchdog cancelled it.
// cc is not used after.
func (f *inFlight) end(cc *callCtx) (timedOut bool) {
	f.mu.Lock()
	timedOut = cc.index < 0
	if !timedOut {
		f.remove(cc)
	}
	f.mu.Unlock()
	// An AfterFunc that could not be stopped may still cancel cc: such a
	// context is dropped, as is one cancelled already.
	reuse := cc.stop == nil || cc.stop()
	cc.parent, cc.stop = nil, nil
	if reuse && !timedOut && cc.Err() == nil {
		callCtxs.Put(cc)
	}
	return timedOut
}

// expire cancels the calls whose deadline is not after now.
func (f *inFlight) expire(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := 0; i < len(f.calls); {
		cc := f.calls[i]
		if now.Before(cc.deadline) {
			i++
			continue
		}
		f.remove(cc) // moves the last call to i
		cc.index = -1
		cc.cancel(errCallTimeout)
	}
}

// remove takes cc out of the calls, moving the last one to its place.
func (f *inFlight) remove(cc *callCtx) {
	last := len(f.calls) - 1
	moved := f.calls[last]
	f.calls[cc.index], moved.index = moved, cc.index
	f.calls[last] = nil
	f.calls = f.calls[:last]
}

// watchdog expires the calls of c every tenth of its call timeout, until
// Close.
func (c *Capability) watchdog() {
	defer c.wg.Done()
	t := time.NewTicker(max(c.cfg.CallTimeout/10, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case now := <-t.C:
			c.inFlight.expire(now)
		}
	}
}

// callCtx is the context of one call to a plugin: done when the caller's
// context is, or when the watchdog cancels it (cause errCallTimeout). It is
// reused from call to call (callCtxs) unless it was cancelled: a fresh
// cancellable context per call costs allocations, among them the map of
// children that the first child context allocates in its parent (gRPC
// derives one in every call).
//
// Its Done, Err and cancellation are those of a cancelCtx of its own, which
// is never cancelled unless the call is, so gRPC's child registers in the
// children map that cancelCtx kept from earlier calls. Its values and
// deadline are the caller's context's.
type callCtx struct {
	context.Context // own: context.WithCancelCause(context.Background())
	cancel          context.CancelCauseFunc
	parent          context.Context
	stop            func() bool // stops the AfterFunc on parent; nil without one
	deadline        time.Time
	index           int // in inFlight.calls; -1 once the watchdog cancelled it
}

var callCtxs = sync.Pool{New: func() any {
	cc := &callCtx{}
	cc.Context, cc.cancel = context.WithCancelCause(context.Background())
	return cc
}}

// Value looks in the own cancelCtx first, which holds no value but answers
// the context package's own lookup of the nearest cancelCtx (so a child
// registers in it instead of watching it from a goroutine, and
// context.Cause reads it), then in the caller's context.
func (cc *callCtx) Value(key any) any {
	if v := cc.Context.Value(key); v != nil {
		return v
	}
	return cc.parent.Value(key)
}

// Deadline is the caller's.
func (cc *callCtx) Deadline() (time.Time, bool) { return cc.parent.Deadline() }
