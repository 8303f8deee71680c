package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/pgtest"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/store/postgres"
)

// A second writer is refused at once, naming the holder; the lock is free
// again once the first writer closes.
func TestOneWriterPerSession(t *testing.T) {
	url, _ := pgtest.Schema(t)
	a := newStore(t, postgres.Config{URL: url, Host: "host-a", PID: 111})
	b := newStore(t, postgres.Config{URL: url, Host: "host-b", PID: 222})

	before := time.Now().Add(-time.Minute)
	la, err := a.Create(t.Context())
	require.NoError(t, err)
	_, err = la.Append(t.Context(), session.Event{Type: session.User, Text: "one"})
	require.NoError(t, err)

	for name, s := range map[string]*postgres.Store{"another store": b, "the same store": a} {
		start := time.Now()
		l, err := s.Open(t.Context(), la.ID())
		if err == nil {
			l.Close()
		}
		require.Error(t, err, name)
		assert.Less(t, time.Since(start), 5*time.Second, "%s: the refusal must come at once", name)
		var held *session.HeldError
		require.ErrorAs(t, err, &held, name)
		assert.ErrorIs(t, err, session.ErrHeld)
		assert.Equal(t, "host-a", held.Host, name)
		assert.Equal(t, 111, held.PID, name)
		assert.Equal(t, la.ID(), held.ID, name)
		assert.True(t, held.Since.After(before), "%s: since %v", name, held.Since)
		assert.Contains(t, err.Error(), "pid 111 on host host-a since", name)
	}

	require.NoError(t, la.Close())
	lb, err := b.Open(t.Context(), la.ID())
	require.NoError(t, err, "the lock must be free once its writer closed")
	defer lb.Close()
	got, err := lb.Append(t.Context(), session.Event{Type: session.Assistant, Text: "two"})
	require.NoError(t, err)
	assert.Equal(t, int64(2), got[0].Seq)
	l, err := a.Open(t.Context(), la.ID())
	if err == nil {
		l.Close()
	}
	var held *session.HeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, "host-b", held.Host)
}

// A writer whose connection (and so lock) was lost while another writer
// appended gets ErrConflict and never interleaves.
func TestLostLockConflicts(t *testing.T) {
	url, _ := pgtest.Schema(t)
	a := newStore(t, postgres.Config{URL: url, Host: "host-a"})
	b := newStore(t, postgres.Config{URL: url, Host: "host-b"})
	la, err := a.Create(t.Context())
	require.NoError(t, err)
	defer la.Close()
	_, err = la.Append(t.Context(), session.Event{Type: session.User, Text: "a1"})
	require.NoError(t, err)

	terminateWriter(t, url, la.ID())
	lb := openEventually(t, b, la.ID())
	_, err = lb.Append(t.Context(), session.Event{Type: session.User, Text: "b1"})
	require.NoError(t, err)
	require.NoError(t, lb.Close())

	_, err = la.Append(t.Context(), session.Event{Type: session.User, Text: "a2"})
	require.ErrorIs(t, err, session.ErrConflict)
	assert.Contains(t, err.Error(), la.ID())
	assert.Equal(t, []string{"a1", "b1"}, texts(read(t, a, la.ID())))
	assert.Equal(t, 1, la.Len(), "the refused Append must not show in the Log")
}

// The writer's connection dropped mid-append (pg_terminate_backend). The
// Append takes the lock again on a new connection and sends the batch once
// more under the same event ids: stored exactly once, whether the server
// said nothing was stored (dropped before the commit) or the commit landed
// with no reply. Only when that retry fails too (the server unreachable)
// is the outcome in doubt: a clear error, then appending the same events
// again stores them once.
func TestDroppedConnectionRetry(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stored bool // the first attempt was committed before the drop
		down   bool // no new connection until the test allows it
	}{
		{"dropped before the commit", false, false},
		{"dropped after the commit, before the reply", true, false},
		{"dropped after the commit, the server unreachable", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, _ := pgtest.Schema(t)
			newStore(t, postgres.Config{URL: url}) // the schema
			px := newProxy(t, url)
			s := newStore(t, postgres.Config{URL: px.url})
			l, err := s.Create(t.Context())
			require.NoError(t, err)
			defer l.Close()
			_, err = l.Append(t.Context(), session.Event{Type: session.User, Text: "first"})
			require.NoError(t, err)

			doomed := []session.Event{
				{Type: session.Assistant, Text: "doomed-append-marker"},
				{Type: session.ToolUse, ToolUseID: "c1", ToolName: "Bash"},
			}
			admin := pgtest.Connect(t, url)
			backend := writerBackend(t, admin, l.ID())
			replied := make(chan struct{}) // the proxy is done with admin
			if tc.stored {
				px.arm("doomed-append-marker", func() {
					defer close(replied)
					waitFor(t, "the commit to land", func() bool { return version(t, admin, l.ID()) == 3 })
					px.down.Store(tc.down)
					terminate(t, admin, backend)
				})
			} else {
				// Hold the session's row so the append waits inside the
				// server, then drop its connection there.
				blocker, mon := pgtest.Connect(t, url), pgtest.Connect(t, url)
				tx, err := blocker.Begin(t.Context())
				require.NoError(t, err)
				_, err = tx.Exec(t.Context(), `SELECT 1 FROM helios_sessions WHERE id = $1 FOR UPDATE`, l.ID())
				require.NoError(t, err)
				done := make(chan struct{})
				defer func() { <-done }()
				go func() {
					defer close(done)
					waitFor(t, "the append to wait for the row", func() bool {
						var waiting bool
						_ = mon.QueryRow(context.Background(),
							`SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1`, backend).Scan(&waiting)
						return waiting
					})
					terminate(t, mon, backend)
					tx.Rollback(context.Background())
				}()
			}
			got, err := l.Append(t.Context(), doomed...)
			if !tc.down {
				// The Append took the lock again on a new connection and
				// stored the batch, or found it stored under its ids.
				require.NoError(t, err)
				require.Len(t, got, 2)
				assert.Equal(t, []int64{2, 3}, []int64{got[0].Seq, got[1].Seq})
				assert.Equal(t, []string{"first", "doomed-append-marker", ""}, texts(read(t, s, l.ID())), "stored exactly once")
				assert.Equal(t, []string{"first", "doomed-append-marker", ""}, texts(all(l)))
				more, err := l.Append(t.Context(), session.Event{Type: session.User, Text: "after"})
				require.NoError(t, err)
				assert.Equal(t, int64(4), more[0].Seq)
				return
			}
			require.Error(t, err)
			<-replied
			px.down.Store(false)
			assert.ErrorIs(t, err, postgres.ErrInDoubt)
			assert.Contains(t, err.Error(), l.ID())
			assert.Equal(t, 1, l.Len())
			assert.Equal(t, int64(3), version(t, admin, l.ID()), "the first attempt was stored")

			got, err = l.Append(t.Context(), doomed...)
			require.NoError(t, err, "the retry")
			require.Len(t, got, 2)
			assert.Equal(t, []int64{2, 3}, []int64{got[0].Seq, got[1].Seq})
			assert.Equal(t, []string{"first", "doomed-append-marker", ""}, texts(read(t, s, l.ID())), "stored exactly once")
			assert.Equal(t, []string{"first", "doomed-append-marker", ""}, texts(all(l)))

			more, err := l.Append(t.Context(), session.Event{Type: session.User, Text: "after"})
			require.NoError(t, err)
			assert.Equal(t, int64(4), more[0].Seq)
		})
	}
}

// Events come back in Seq order even when a host with a slower clock
// appended after one with a faster clock.
func TestOrderIsSeqNotTime(t *testing.T) {
	url, _ := pgtest.Schema(t)
	ahead := newStore(t, postgres.Config{URL: url, Clock: func() time.Time { return time.Now().Add(time.Hour) }})
	behind := newStore(t, postgres.Config{URL: url})
	l, err := ahead.Create(t.Context())
	require.NoError(t, err)
	for _, text := range []string{"1", "2", "3"} {
		_, err := l.Append(t.Context(), session.Event{Type: session.User, Text: text})
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	l, err = behind.Open(t.Context(), l.ID())
	require.NoError(t, err)
	_, err = l.Append(t.Context(), session.Event{Type: session.User, Text: "4"}, session.Event{Type: session.User, Text: "5"})
	require.NoError(t, err)
	require.NoError(t, l.Close())

	want := []string{"1", "2", "3", "4", "5"}
	assert.Equal(t, want, texts(read(t, behind, l.ID())))
	r, err := behind.Open(t.Context(), l.ID())
	require.NoError(t, err)
	defer r.Close()
	assert.Equal(t, want, texts(all(r)))
	f, err := behind.Fork(t.Context(), l.ID(), 4)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, want[:4], texts(all(f)))
}

// helpers

func read(t *testing.T, s *postgres.Store, id string) []session.Event {
	t.Helper()
	evs, err := s.Read(t.Context(), id)
	require.NoError(t, err)
	return evs
}

func all(l session.Log) []session.Event {
	evs := make([]session.Event, l.Len())
	for i := range evs {
		evs[i] = l.At(i)
	}
	return evs
}

func texts(evs []session.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			out[i] = fmt.Sprintf("<seq %d at %d>", e.Seq, i)
			continue
		}
		out[i] = e.Text
	}
	return out
}

func version(t *testing.T, conn *pgx.Conn, id string) int64 {
	t.Helper()
	var v int64
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT version FROM helios_sessions WHERE id = $1`, id).Scan(&v))
	return v
}

// writerBackend is the server pid of the connection holding id's lock.
func writerBackend(t *testing.T, conn *pgx.Conn, id string) int {
	t.Helper()
	var pid int
	require.NoError(t, conn.QueryRow(t.Context(), `SELECT backend_pid FROM helios_writers WHERE session_id = $1`, id).Scan(&pid))
	return pid
}

func terminate(t *testing.T, conn *pgx.Conn, backend int) {
	// With a timeout, pg_terminate_backend returns once the backend has
	// exited, and with it its advisory locks: without one it only signals,
	// and a retry right after could find the lock still held by the dying
	// backend ("open for writing by pid …", seen once in CI).
	var ok bool
	if err := conn.QueryRow(context.Background(), `SELECT pg_terminate_backend($1, 10000)`, backend).Scan(&ok); err != nil || !ok {
		t.Errorf("pg_terminate_backend(%d) = %v, %v", backend, ok, err)
	}
}

// terminateWriter drops the connection holding id's lock, server-side.
func terminateWriter(t *testing.T, url, id string) {
	t.Helper()
	conn := pgtest.Connect(t, url)
	terminate(t, conn, writerBackend(t, conn, id))
}

// openEventually opens id once its previous writer's lock is gone (the
// server drops it as soon as it notices the connection is).
func openEventually(t *testing.T, s *postgres.Store, id string) session.Log {
	t.Helper()
	var l session.Log
	waitFor(t, "the lock to be released", func() bool {
		var err error
		l, err = s.Open(t.Context(), id)
		if err != nil && !errors.Is(err, session.ErrHeld) {
			t.Fatalf("open %s: %v", id, err)
		}
		return err == nil
	})
	t.Cleanup(func() { l.Close() })
	return l
}

func waitFor(t *testing.T, what string, ok func() bool) {
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// proxy forwards TCP connections to the test server. Armed with a marker,
// it lets the next client message holding the marker through, swallows the
// server's reply, runs onReply and then cuts the client off: a real network
// failure after the server did the work.
type proxy struct {
	url string
	// down refuses new connections (they are closed at once).
	down atomic.Bool

	mu      sync.Mutex
	marker  []byte
	onReply func()
}

func newProxy(t *testing.T, target string) *proxy {
	u, err := url.Parse(target)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	server := u.Host
	u.Host = ln.Addr().String()
	p := &proxy{url: u.String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c, server)
		}
	}()
	return p
}

func (p *proxy) arm(marker string, onReply func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker, p.onReply = []byte(marker), onReply
}

func (p *proxy) serve(client net.Conn, server string) {
	defer client.Close()
	if p.down.Load() {
		return
	}
	up, err := net.Dial("tcp", server)
	if err != nil {
		return
	}
	defer up.Close()
	cut := make(chan func(), 1)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := client.Read(buf)
			if n > 0 {
				p.mu.Lock()
				if p.marker != nil && containsBytes(buf[:n], p.marker) {
					cut <- p.onReply
					p.marker, p.onReply = nil, nil
				}
				p.mu.Unlock()
				if _, werr := up.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				up.Close()
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := up.Read(buf)
		select {
		case f := <-cut:
			f()
			return // the reply is swallowed and the client cut off
		default:
		}
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func containsBytes(b, sub []byte) bool {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return true
		}
	}
	return false
}
