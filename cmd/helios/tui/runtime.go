package tui

import (
	"context"
	"errors"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/helios-agents/helios/kernel"
)

// runtime is what the model's commands share: the kernel, the session, and
// the channels that carry signals and session updates into the program.
// Commands run on their own goroutines; every kernel call enters the
// runtime first, so closing can cancel and wait for them.
type runtime struct {
	kernel Kernel
	open   func(ctx context.Context, observe func(kernel.Update), confirm Confirm) (Session, error)
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	// changed holds at most one pending change signal: a burst of signals
	// while a fetch is being started becomes one fetch.
	changed chan struct{}
	// events carries a turn's updates and then its turnDoneMsg, in order.
	events     chan tea.Msg
	stopListen func()

	mu      sync.Mutex
	closed  bool
	calls   sync.WaitGroup
	sess    Session // opened lazily, by one command at a time
	once    sync.Once
	result  Result
	closeEr error
}

func newRuntime(ctx context.Context, cfg Config) *runtime {
	ctx, cancel := context.WithCancel(ctx)
	rt := &runtime{
		kernel:  cfg.Kernel,
		open:    cfg.OpenSession,
		ctx:     ctx,
		cancel:  cancel,
		done:    make(chan struct{}),
		changed: make(chan struct{}, 1),
		events:  make(chan tea.Msg, 64),
	}
	rt.stopListen = cfg.Kernel.OnSkillsChanged(func() {
		select {
		case rt.changed <- struct{}{}:
		default: // a signal is already pending; the fetch it starts sees this change too
		}
	})
	return rt
}

// enter admits a kernel call; false once the UI is closed.
func (rt *runtime) enter() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return false
	}
	rt.calls.Add(1)
	return true
}

func (rt *runtime) leave() { rt.calls.Done() }

// stop is the part of closing that never blocks: no new calls, the change
// listener unregistered, running calls cancelled, waiting commands released.
func (rt *runtime) stop() {
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return
	}
	rt.closed = true
	rt.mu.Unlock()
	rt.stopListen()
	rt.cancel()
	close(rt.done)
}

// close stops, waits for the calls in flight, and closes the session.
func (rt *runtime) close() (Result, error) {
	rt.once.Do(func() {
		rt.stop()
		rt.calls.Wait()
		if rt.sess != nil {
			rt.result.SessionID = rt.sess.ID()
			rt.closeEr = rt.sess.Close()
		}
	})
	return rt.result, rt.closeEr
}

// session returns the conversation's session, opening it the first time.
// Only one command at a time calls it (the model is busy meanwhile).
func (rt *runtime) session() (Session, error) {
	rt.mu.Lock()
	s := rt.sess
	rt.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if rt.open == nil {
		return nil, kernel.ErrNoModel
	}
	s, err := rt.open(rt.ctx, rt.observe, rt.confirm)
	if err != nil {
		return nil, err
	}
	rt.mu.Lock()
	rt.sess = s
	rt.mu.Unlock()
	return s, nil
}

// observe passes a session update to the program, in order.
func (rt *runtime) observe(u kernel.Update) { rt.post(updateMsg(u)) }

// confirm asks the person through the program and waits for the answer;
// a turn cancelled (Esc) or a UI closed meanwhile denies.
func (rt *runtime) confirm(ctx context.Context, q kernel.Confirmation) (bool, error) {
	reply := make(chan bool, 1)
	rt.post(confirmMsg{q: q, reply: reply})
	select {
	case ok := <-reply:
		return ok, nil
	case <-ctx.Done():
		return false, context.Cause(ctx)
	case <-rt.done:
		return false, errors.New("the UI was closed")
	}
}

func (rt *runtime) post(msg tea.Msg) {
	select {
	case rt.events <- msg:
	case <-rt.done:
	}
}

// waitChange waits for the next change signal.
func (rt *runtime) waitChange() tea.Cmd {
	return func() tea.Msg {
		select {
		case <-rt.changed:
			return skillsChangedMsg{}
		case <-rt.done:
			return nil
		}
	}
}

// waitEvent waits for the next session update or turn end.
func (rt *runtime) waitEvent() tea.Cmd {
	return func() tea.Msg {
		select {
		case msg := <-rt.events:
			return msg
		case <-rt.done:
			return nil
		}
	}
}

// runTurn runs one turn; its updates and its end travel through events.
func (rt *runtime) runTurn(ctx context.Context, prompt string) tea.Cmd {
	return func() tea.Msg {
		if !rt.enter() {
			return nil
		}
		defer rt.leave()
		s, err := rt.session()
		if err == nil {
			_, err = s.Run(ctx, prompt)
		}
		rt.post(turnDoneMsg{err: err})
		return nil
	}
}

// loadSkill loads a skill and, with inject, adds its text to the session
// on the user's side.
func (rt *runtime) loadSkill(name string, inject bool) tea.Cmd {
	return func() tea.Msg {
		if !rt.enter() {
			return nil
		}
		defer rt.leave()
		text, err := rt.kernel.LoadSkill(rt.ctx, name)
		msg := skillLoadedMsg{name: name, text: text, err: err}
		if err != nil || !inject {
			return msg
		}
		s, err := rt.session()
		if err == nil {
			err = s.Inject(rt.ctx, SkillProvenance, text)
		}
		msg.injected, msg.injectErr = err == nil, err
		return msg
	}
}

// fetch takes a catalog snapshot for the fetch numbered seq.
func (rt *runtime) fetch(seq uint64) tea.Cmd {
	return func() tea.Msg {
		if !rt.enter() {
			return nil
		}
		defer rt.leave()
		msg := catalogMsg{seq: seq, cat: rt.kernel.Catalog(rt.ctx)}
		if v, ok := rt.kernel.(CatalogViewer); ok && msg.cat.Complete {
			view := v.CatalogView(msg.cat, v.CatalogBudget())
			msg.view = &view
		}
		return msg
	}
}
