package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helios-agents/helios/kernel/session"
)

// writer is one Log's hold on its session: the pooled connection that
// carries the session's advisory lock, on which every Append runs.
// session.NewLog never calls commit concurrently, nor close during one.
type writer struct {
	s   *Store
	id  string
	key int64
	// conn holds the lock; nil once the connection was lost (the lock went
	// with it), until the next Append takes both again.
	conn *pgxpool.Conn
	// n is the number of events stored as far as this writer knows: the
	// version its next commit expects.
	n int64
	// doubt is the batch of a commit that broke during COMMIT, with the
	// event ids it was sent with: the next Append of the same events
	// sends them again under the same ids.
	doubt    []session.Event
	doubtIDs []string
}

// relock acquires a connection and takes the lock on it, recording this
// process as the holder.
func (w *writer) relock(ctx context.Context) error {
	conn, err := w.s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, w.key).Scan(&ok); err != nil {
		conn.Release()
		return err
	}
	if !ok {
		conn.Release()
		return w.s.holder(ctx, w.id, w.key)
	}
	_, err = conn.Exec(ctx, `
		INSERT INTO helios_writers (session_id, host, pid, since, backend_pid)
		VALUES ($1, $2, $3, now(), pg_backend_pid())
		ON CONFLICT (session_id) DO UPDATE
		SET host = excluded.host, pid = excluded.pid, since = excluded.since, backend_pid = excluded.backend_pid`,
		w.id, w.s.host, w.s.pid)
	if err != nil {
		w.conn = conn
		w.close()
		return err
	}
	w.conn = conn
	return nil
}

// log hands the writer to a new Log over evs.
func (w *writer) log(evs []session.Event) (session.Log, error) {
	w.n = int64(len(evs))
	l, err := session.NewLog(w.id, evs, session.LogConfig{Clock: w.s.clock, Commit: w.commit, Close: w.close})
	if err != nil {
		w.close()
		return nil, err
	}
	return l, nil
}

// commit stores evs (Seqs n+1...) in one transaction that checks the
// session's version. When the connection (so the lock) broke, it takes
// both again and sends the batch once more under the same event ids, so
// the batch is stored exactly once whether or not the first attempt
// landed: the version check refuses a second copy, and finding exactly
// these ids after the expected version says the first one did. Only when
// that retry fails too is the outcome in doubt (ErrInDoubt); the batch is
// remembered with its ids, so appending it again later stores it once.
func (w *writer) commit(ctx context.Context, evs []session.Event) ([]session.Event, error) {
	ids := w.eventIDs(evs)
	stored, err := w.tryCommit(ctx, evs, ids)
	doubt := inDoubt(err) // the broken attempt may have stored the batch
	if err != nil && w.broken() {
		w.drop()
		stored, err = w.tryCommit(ctx, evs, ids)
		doubt = doubt || inDoubt(err)
	}
	switch {
	case err == nil:
		w.doubt, w.doubtIDs = nil, nil
		w.n += int64(len(stored))
		return stored, nil
	case !w.broken():
		return nil, err // the server refused the batch (a conflict, say)
	}
	w.drop()
	switch {
	case doubt:
		w.doubt, w.doubtIDs = evs, ids
		return nil, fmt.Errorf("%w: %w", ErrInDoubt, err)
	case errors.Is(err, errRelock):
		return nil, err
	}
	return nil, fmt.Errorf("the connection broke; nothing was stored: %w", err)
}

// errRelock is wrapped by a commit that could not take the lock again: it
// sent nothing.
var errRelock = errors.New("take the session's lock again")

// inDoubt reports whether a failed attempt may have stored its batch: it
// was sent, and no answer from the server says it was not.
func inDoubt(err error) bool {
	return err != nil && !errors.Is(err, errRelock) && !notStored(err)
}

// broken reports whether the writer has lost its connection (and so its
// lock): it has none, or the one it holds is closed.
func (w *writer) broken() bool { return w.conn == nil || w.conn.Conn().IsClosed() }

// notStored reports whether a failed statement certainly stored nothing:
// it was never sent, or the server answered it with an error (which
// aborts its transaction).
func notStored(err error) bool {
	var pe *pgconn.PgError
	return pgconn.SafeToRetry(err) || errors.As(err, &pe)
}

// drop lets go of a broken connection; the lock went with it.
func (w *writer) drop() {
	if w.conn != nil {
		w.conn.Release()
		w.conn = nil
	}
}

// tryCommit stores the batch with one statement, so one round trip and
// one transaction: it moves the session's version from n to n+len(evs)
// and inserts the events only if the version was n. When it was not, the
// batch may be a retry that was stored: it is when the events after n
// carry exactly ids, and those are returned as stored.
func (w *writer) tryCommit(ctx context.Context, evs []session.Event, ids []string) ([]session.Event, error) {
	if w.conn == nil {
		if err := w.relock(ctx); err != nil {
			return nil, fmt.Errorf("%w: %w", errRelock, err)
		}
	}
	var (
		seqs   = make([]int64, len(evs))
		times  = make([]time.Time, len(evs))
		types  = make([]string, len(evs))
		bodies = make([]string, len(evs))
		inputs = make([]*string, len(evs))
		err    error
	)
	for i, e := range evs {
		seqs[i], times[i], types[i] = e.Seq, e.Time, string(e.Type)
		if bodies[i], inputs[i], err = encodeEvent(e); err != nil {
			return nil, fmt.Errorf("encode event %d: %w", e.Seq, err)
		}
	}
	tag, err := w.conn.Exec(ctx, `
		WITH moved AS (
			UPDATE helios_sessions SET version = $2 + cardinality($3::bigint[])
			WHERE id = $1 AND version = $2
			RETURNING id
		)
		INSERT INTO helios_events (session_id, seq, event_id, time, type, body, input)
		SELECT moved.id, e.* FROM moved,
			unnest($3::bigint[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[]) AS e`,
		w.id, w.n, seqs, ids, times, types, bodies, inputs)
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() == int64(len(evs)) {
		return evs, nil
	}
	return w.stored(ctx, ids)
}

// stored returns the events after w.n when they are exactly the batch
// with ids (a retry of a commit that landed), else ErrConflict.
func (w *writer) stored(ctx context.Context, ids []string) ([]session.Event, error) {
	var version int64
	if err := w.conn.QueryRow(ctx, `SELECT version FROM helios_sessions WHERE id = $1`, w.id).Scan(&version); err != nil {
		return nil, err
	}
	conflict := fmt.Errorf("%w: it has %d events, this writer expected %d; reopen it to continue", session.ErrConflict, version, w.n)
	if version != w.n+int64(len(ids)) {
		return nil, conflict
	}
	rows, err := w.conn.Query(ctx, `SELECT event_id FROM helios_events WHERE session_id = $1 AND seq > $2 ORDER BY seq`, w.id, w.n)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(got, ids) {
		return nil, conflict
	}
	rows, err = w.conn.Query(ctx, `SELECT seq, time, type, body, input FROM helios_events WHERE session_id = $1 AND seq > $2 ORDER BY seq`, w.id, w.n)
	if err != nil {
		return nil, err
	}
	return scanEvents(rows, nil, w.n+1)
}

// eventIDs are the idempotency keys of a batch: those it was sent with
// before when it repeats the batch in doubt, else fresh ones.
func (w *writer) eventIDs(evs []session.Event) []string {
	if w.doubt != nil && sameBatch(w.doubt, evs) {
		return w.doubtIDs
	}
	ids := make([]string, len(evs))
	for i := range ids {
		var b [16]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		ids[i] = hex.EncodeToString(b[:])
	}
	return ids
}

// sameBatch reports whether b repeats a: the same events at the same
// Seqs, whatever their Times.
func sameBatch(a, b []session.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Time, y.Time = time.Time{}, time.Time{}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// close releases the lock and returns the connection to the pool, or
// closes it when it cannot say the lock is gone.
func (w *writer) close() error {
	if w.conn == nil {
		return nil
	}
	conn := w.conn
	w.conn = nil
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := conn.Exec(ctx, `DELETE FROM helios_writers WHERE session_id = $1 AND backend_pid = pg_backend_pid()`, w.id)
	var unlocked bool
	if err == nil {
		err = conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1)`, w.key).Scan(&unlocked)
	}
	if err != nil || !unlocked {
		// Closing the connection drops whatever locks it holds.
		conn.Conn().Close(ctx)
	}
	conn.Release()
	return nil
}
