package mcpserver

import (
	"log/slog"
	"sync"
	"time"
)

// sessionTable expires and caps the HTTP transport's sessions. The SDK
// keeps a session until its client deletes it, so a client that opens
// sessions and leaves (a script, a crashed editor) would pile them up for
// ever.
//
// A session is idle while no request of it is in flight: an open event
// stream (GET) is a client listening, not idle. Idleness is measured by
// cfg.Now from the end of the session's last request; the table is swept
// when a session is added and every quarter of the timeout while any is
// live, and each sweep first forgets the sessions the SDK no longer holds
// (deleted by their client, or never initialized).
type sessionTable struct {
	s   *Server
	cfg HTTPConfig

	mu    sync.Mutex
	live  map[string]*sessionUse
	timer *time.Timer // the next periodic sweep, while sessions are live
}

// sessionUse is one live session's requests in flight and when its last
// request ended.
type sessionUse struct {
	inFlight int
	last     time.Time
}

func newSessionTable(s *Server, cfg HTTPConfig) *sessionTable {
	return &sessionTable{s: s, cfg: cfg, live: map[string]*sessionUse{}}
}

// begin records a request of session id in flight; it returns nil for a
// request of no session, or of one the table does not hold (the SDK
// answers it 404).
func (t *sessionTable) begin(id string) *sessionUse {
	if id == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	u := t.live[id]
	if u != nil {
		u.inFlight++
	}
	return u
}

// end records the end of a request begin recorded.
func (t *sessionTable) end(u *sessionUse) {
	if u == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	u.inFlight--
	u.last = t.cfg.Now()
}

// add records a session the SDK just created, then sweeps: the new one
// may put the table over its cap.
func (t *sessionTable) add(id string) {
	t.mu.Lock()
	t.live[id] = &sessionUse{last: t.cfg.Now()}
	t.mu.Unlock()
	t.sweep()
}

// sweep closes the sessions idle past the timeout, then, while more than
// MaxSessions are live, the one idle longest (a busy one only when none is
// idle), and arms the next periodic sweep.
func (t *sessionTable) sweep() {
	held := map[string]bool{}
	for ss := range t.s.mcp.Sessions() {
		held[ss.ID()] = true
	}
	t.mu.Lock()
	now := t.cfg.Now()
	var expired, evicted []string
	for id, u := range t.live {
		switch {
		case !held[id]:
			delete(t.live, id)
		case u.inFlight == 0 && t.cfg.SessionTimeout > 0 && now.Sub(u.last) >= t.cfg.SessionTimeout:
			delete(t.live, id)
			expired = append(expired, id)
		}
	}
	for len(t.live) > t.cfg.MaxSessions {
		id := t.oldestLocked()
		delete(t.live, id)
		evicted = append(evicted, id)
	}
	t.armLocked()
	t.mu.Unlock()

	if len(expired)+len(evicted) == 0 {
		return
	}
	closing := map[string]string{}
	for _, id := range expired {
		closing[id] = "idle for " + t.cfg.SessionTimeout.String()
	}
	for _, id := range evicted {
		closing[id] = "over the limit of sessions"
	}
	for ss := range t.s.mcp.Sessions() {
		if why, ok := closing[ss.ID()]; ok {
			t.s.logger.Info("close http session: "+why, slog.String("session", ss.ID()), slog.Int("max", t.cfg.MaxSessions))
			ss.Close()
		}
	}
}

// oldestLocked is the session to close first: the one idle longest, or,
// when every session has a request in flight, the one whose last request
// ended earliest.
func (t *sessionTable) oldestLocked() string {
	var pick string
	var pu *sessionUse
	for id, u := range t.live {
		switch {
		case pu == nil,
			u.inFlight == 0 && pu.inFlight > 0,
			(u.inFlight == 0) == (pu.inFlight == 0) && (u.last.Before(pu.last) || u.last.Equal(pu.last) && id < pick):
			pick, pu = id, u
		}
	}
	return pick
}

// armLocked schedules the next periodic sweep while sessions are live and
// they can expire.
func (t *sessionTable) armLocked() {
	if len(t.live) == 0 || t.cfg.SessionTimeout < 0 {
		if t.timer != nil {
			t.timer.Stop()
			t.timer = nil
		}
		return
	}
	if t.timer == nil {
		t.timer = time.AfterFunc(max(t.cfg.SessionTimeout/4, 10*time.Millisecond), func() {
			t.mu.Lock()
			t.timer = nil
			t.mu.Unlock()
			t.sweep()
		})
	}
}
