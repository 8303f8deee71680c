package watch

import (
	"errors"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// drain processes what the pump queued.
func (w *Watcher) drain() {
	items, overflow := w.q.take()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	// Errors are handled once per batch, after its events: re-arming
	// rebuilds everything anyway, and a watcher that reports the same read
	// error in a loop must not make us re-arm for each one.
	var failure error
	for _, it := range items {
		if it.err != nil {
			if failure == nil || errors.Is(it.err, fsnotify.ErrEventOverflow) {
				failure = it.err
			}
			continue
		}
		w.handleEvent(it.ev)
		w.settle()
	}
	if overflow {
		failure = fsnotify.ErrEventOverflow
	}
	if failure != nil {
		w.handleErrorLocked(failure)
	}
}

// pump moves fsnotify's events to the queue at once. fsnotify's reader can
// block sending an error while it holds its own lock, so anything that might
// call into fsnotify (holding Watcher.mu) must never be what receives them.
func (w *Watcher) pump() {
	defer w.wg.Done()
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.q.put(item{ev: ev})
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.q.put(item{err: err})
		}
	}
}

// maxQueue bounds the queue; past it events are dropped and handled as an
// overflow, as the kernel does with its own queue.
const maxQueue = 1 << 16

type item struct {
	ev  fsnotify.Event
	err error
}

type queue struct {
	mu       sync.Mutex
	items    []item
	overflow bool
	signal   chan struct{} // capacity 1: "something was queued"
}

func (q *queue) put(it item) {
	q.mu.Lock()
	if len(q.items) < maxQueue {
		q.items = append(q.items, it)
	} else {
		q.overflow = true
	}
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *queue) take() ([]item, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items, overflow := q.items, q.overflow
	q.items, q.overflow = nil, false
	return items, overflow
}
