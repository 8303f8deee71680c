package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/helios-agents/helios/plugins"
)

// The supervision of a plugin's process: every call goes through call, which
// restarts a dead plugin when its backoff has passed, bounds the call by
// CallTimeout and tells a crash from an error the plugin returned.

// errCallTimeout is the cause of a call that ran out of CallTimeout.
var errCallTimeout = errors.New("call timeout")

// call runs fn on the current process with the call deadline, restarting a
// dead plugin first when its backoff has passed. A transport failure marks
// the plugin down.
func (c *Capability) call(ctx context.Context, op string, fn func(ctx context.Context, inst *instance) error) error {
	inst, err := c.use(ctx)
	if err != nil {
		return fmt.Errorf("plugin %q: %s: %w", c.cfg.Name, op, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("plugin %q: %s: %w", c.cfg.Name, op, err)
	}
	// A timer, not a context deadline: a deadline would also travel to the
	// plugin, where gRPC arms a second timer for it.
	cctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(c.cfg.CallTimeout, func() { cancel(errCallTimeout) })
	err = fn(cctx, inst)
	timer.Stop()
	timedOut := errors.Is(context.Cause(cctx), errCallTimeout)
	cancel(nil)
	if err == nil {
		if c.failing.Load() {
			c.mu.Lock()
			c.failures = 0
			c.failing.Store(false)
			c.mu.Unlock()
		}
		return nil
	}
	code := status.Code(err)
	switch {
	case errors.Is(err, plugins.ErrTooLarge):
		return fmt.Errorf("plugin %q: %s: %w", c.cfg.Name, op, err)
	case ctx.Err() != nil:
		return fmt.Errorf("plugin %q: %s: %w", c.cfg.Name, op, ctx.Err())
	case timedOut, code == codes.DeadlineExceeded:
		return fmt.Errorf("plugin %q: %s: no answer within %v (callTimeout): %w", c.cfg.Name, op, c.cfg.CallTimeout, context.DeadlineExceeded)
	case c.crashed(inst, code):
		msg := status.Convert(err).Message()
		c.down(inst, fmt.Errorf("%s: %s", op, msg))
		return fmt.Errorf("plugin %q: %w during %s (%s); it is restarted on its next use", c.cfg.Name, ErrCrashed, op, msg)
	}
	return fmt.Errorf("plugin %q: %s: %w", c.cfg.Name, op, remoteErr(err))
}

// crashed tells a dead plugin from one that answered with an error.
func (c *Capability) crashed(inst *instance, code codes.Code) bool {
	if code == codes.Unavailable || inst.client.Exited() {
		return true
	}
	if code != codes.Internal && code != codes.Canceled {
		return false
	}
	// A connection cut mid-call can surface before go-plugin has seen the
	// process exit.
	for range 10 {
		time.Sleep(10 * time.Millisecond)
		if inst.client.Exited() {
			return true
		}
	}
	return false
}

// remoteError is an error the plugin returned; its text is the plugin's
// own, without gRPC's framing, and status.Code still reads its code.
type remoteError struct{ st *status.Status }

func (e remoteError) Error() string              { return e.st.Message() }
func (e remoteError) GRPCStatus() *status.Status { return e.st }

func remoteErr(err error) error {
	if st, ok := status.FromError(err); ok {
		return remoteError{st}
	}
	return err
}

// use returns the running process, restarting a dead plugin when its
// backoff has passed.
func (c *Capability) use(ctx context.Context) (*instance, error) {
	c.mu.Lock()
	inst, closed := c.cur, c.closed
	c.mu.Unlock()
	switch {
	case closed:
		return nil, ErrClosed
	case inst != nil && !inst.client.Exited():
		return inst, nil
	case inst != nil:
		c.down(inst, errors.New("its process exited"))
	}
	return c.restart(ctx)
}

func (c *Capability) restart(ctx context.Context) (*instance, error) {
	c.restartMu.Lock()
	defer c.restartMu.Unlock()
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return nil, ErrClosed
	case c.cur != nil: // restarted by another caller meanwhile
		inst := c.cur
		c.mu.Unlock()
		return inst, nil
	}
	if wait := time.Until(c.retryAt); wait > 0 {
		err := fmt.Errorf("%w since %v; next restart in %v", ErrDown, c.lastErr, wait.Round(time.Millisecond))
		c.mu.Unlock()
		return nil, err
	}
	attempt := c.restarts + 1
	c.mu.Unlock()

	ctx, span := c.cfg.Telemetry.PluginStart(ctx, c.cfg.Name, attempt)
	inst, d, err := c.start(ctx)
	c.cfg.Telemetry.End(span, err)
	c.mu.Lock()
	if err != nil {
		wait := c.failedLocked(err)
		c.mu.Unlock()
		c.logger.Warn("plugin restart failed", slog.Any("error", err), slog.Duration("retryIn", wait))
		return nil, err
	}
	if c.closed {
		c.mu.Unlock()
		inst.kill()
		return nil, ErrClosed
	}
	c.cur, c.desc = inst, d
	c.restarts++
	inv := c.invalidate
	c.mu.Unlock()
	c.logger.Info("plugin restarted", slog.Int("pid", inst.pid), slog.Duration("took", inst.started))
	if !slices.Equal(d.Mounts, c.mounts) {
		c.logger.Warn("plugin restarted with other mounts than it was installed with; the kernel keeps the installed ones", slog.Any("installed", c.mounts), slog.Any("now", d.Mounts))
	}
	if inv != nil {
		inv() // its skills may differ, and the catalog was incomplete
	}
	return inst, nil
}

// down marks inst dead (once) and schedules its process's end. The
// catalog is invalidated so that it shows the plugin as incomplete.
func (c *Capability) down(inst *instance, err error) {
	c.mu.Lock()
	if c.closed || c.cur != inst {
		c.mu.Unlock()
		return
	}
	c.cur = nil
	wait := c.failedLocked(err)
	inv := c.invalidate
	c.wg.Add(1)
	c.mu.Unlock()
	c.logger.Warn("plugin died; it is restarted on its next use", slog.Int("pid", inst.pid), slog.Any("error", err), slog.Duration("restartIn", wait))
	go func() {
		defer c.wg.Done()
		inst.kill()
	}()
	if inv != nil {
		inv()
	}
}

// failedLocked records a failure and returns the wait before the next start.
func (c *Capability) failedLocked(err error) time.Duration {
	c.failures++
	c.failing.Store(true)
	wait := c.cfg.RestartBackoff
	for i := 1; i < c.failures && wait < MaxRestartBackoff; i++ {
		wait *= 2
	}
	wait = min(wait, MaxRestartBackoff)
	c.retryAt = time.Now().Add(wait)
	c.lastErr = err
	return wait
}

// watch follows the instance's "skills changed" stream. Its first message
// acknowledges the subscription (ack closes); each later one invalidates
// the catalog. If the stream breaks while the process lives, the plugin's
// skills are read again at every snapshot instead.
func (c *Capability) watch(inst *instance, ack chan<- struct{}) {
	defer c.wg.Done()
	first := true
	err := inst.rpc.WatchSkills(inst.ctx, func() {
		if first {
			first = false
			inst.watchOK.Store(true)
			close(ack)
			return
		}
		inst.gen.Add(1)
		c.mu.Lock()
		inv := c.invalidate
		c.mu.Unlock()
		if inv != nil {
			inv()
		}
	})
	if first {
		close(ack)
	}
	if inst.ctx.Err() != nil {
		return // stopped on purpose
	}
	inst.watchOK.Store(false)
	if c.crashed(inst, status.Code(err)) {
		c.down(inst, fmt.Errorf("skills watch: %s", status.Convert(err).Message()))
		return
	}
	c.logger.Warn("plugin stopped reporting skill changes; its skills are read again at every snapshot", slog.Any("error", err))
	c.mu.Lock()
	inv := c.invalidate
	c.mu.Unlock()
	if inv != nil {
		inv()
	}
}

// kill stops the plugin (gracefully, then by force) and then everything
// left in its process group.
func (inst *instance) kill() {
	inst.cancel()
	inst.client.Kill()
	killGroup(inst.pid)
}
