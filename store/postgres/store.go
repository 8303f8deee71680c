package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helios-agents/helios/kernel/session"
)

// Config configures New.
type Config struct {
	// URL is the connection string (postgres://user:password@host:port/db).
	// Required. Its search_path parameter picks the schema of the tables.
	URL string
	// URLSource names where URL came from in errors, e.g.
	// "$HELIOS_POSTGRES_URL"; errors never show the URL's password. Empty
	// means "the PostgreSQL URL".
	URLSource string
	// MaxConns bounds the connection pool. Each session open for writing
	// holds one connection (its lock) until its Log is closed; reads,
	// listings, creates and forks use the rest. Zero means 10.
	MaxConns int
	// Logger receives warnings (a session List could not describe). Nil
	// discards them.
	Logger *slog.Logger
	// Clock stamps events and new sessions; times are kept to the
	// microsecond, as PostgreSQL does. Nil means time.Now.
	Clock func() time.Time
	// Host and PID name this process to a writer it keeps out. Zero means
	// os.Hostname and os.Getpid.
	Host string
	PID  int
}

// DefaultMaxConns is the pool size when Config.MaxConns is zero.
const DefaultMaxConns = 10

// ErrInDoubt is wrapped by an Append error when the connection broke
// during the commit: the events may or may not be stored. Append the same
// events again to find out; they are stored exactly once.
var ErrInDoubt = errors.New("the connection broke during the commit: the events may or may not be stored; append them again to resolve it")

// Store is a session.Store and session.Reader in PostgreSQL. It is safe
// for concurrent use. Close every Log before closing the Store.
type Store struct {
	pool   *pgxpool.Pool
	source string
	log    *slog.Logger
	clock  func() time.Time
	host   string
	pid    int
	// lockSpace is the OID of helios_sessions, mixed into every writer
	// lock's key so that stores in two schemas of one database never
	// block each other.
	lockSpace uint32
}

var (
	_ session.Store  = (*Store)(nil)
	_ session.Reader = (*Store)(nil)
)

// New connects to cfg.URL, creates or migrates the schema and returns the
// store. A wrong URL or an unreachable server is an error of one line
// naming the database, its host and cfg.URLSource, never the password:
//
//	open postgres session store (database "app" on db.example:5432, from $HELIOS_POSTGRES_URL): password authentication failed for user "helios" (SQLSTATE 28P01)
func New(ctx context.Context, cfg Config) (*Store, error) {
	src := cfg.URLSource
	if src == "" {
		src = "the PostgreSQL URL"
	}
	if cfg.URL == "" {
		return nil, fmt.Errorf("open postgres session store: %s is empty", src)
	}
	pcfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, openError(fmt.Sprintf("%s, from %s", rawTarget(cfg.URL), src), cfg.URL,
			fmt.Errorf("not a valid PostgreSQL URL: %w", parseReason(err)))
	}
	where := fmt.Sprintf("%s, from %s", target(pcfg.ConnConfig.Database, pcfg.ConnConfig.Host, pcfg.ConnConfig.Port), src)
	pcfg.MaxConns = int32(DefaultMaxConns)
	if cfg.MaxConns > 0 {
		pcfg.MaxConns = int32(cfg.MaxConns)
	}
	if pcfg.ConnConfig.ConnectTimeout == 0 {
		pcfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if pcfg.ConnConfig.RuntimeParams["application_name"] == "" {
		pcfg.ConnConfig.RuntimeParams["application_name"] = "helios"
	}
	s := &Store{source: src, log: cfg.Logger, host: cfg.Host, pid: cfg.PID}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	clock := cfg.Clock
	if clock == nil {
		clock = time.Now
	}
	s.clock = func() time.Time { return clock().UTC().Truncate(time.Microsecond) }
	if s.host == "" {
		if s.host, err = os.Hostname(); err != nil {
			s.host = "unknown"
		}
	}
	if s.pid == 0 {
		s.pid = os.Getpid()
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, pcfg); err != nil {
		return nil, openError(where, cfg.URL, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.pool.Close()
		return nil, openError(where, cfg.URL, err)
	}
	return s, nil
}

// openError is New's error: one line naming where (the database, its
// host, the URL's source) and the reason, without the password. errors.Is
// and errors.As still see err.
func openError(where, rawURL string, err error) error {
	msg := "open postgres session store (" + where + "): " + oneLine(reason(err))
	return redacted{msg: redactText(msg, rawURL), err: err}
}

// reason is what failed, without what openError already names: the
// server's own message for a server error, else the driver's text without
// its "failed to connect to `user=... database=...`" preamble.
func reason(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) && errors.Unwrap(ce) != nil {
		return errors.Unwrap(ce).Error()
	}
	return err.Error()
}

// oneLine joins the lines of a multi-line driver message with "; ",
// dropping a line that repeats the one before (pgconn repeats a resolver
// error on its own line).
func oneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && (len(lines) == 0 || !strings.Contains(lines[len(lines)-1], l)) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// target names a database and its host for errors: `database "app" on
// db.example:5432`. A socket directory stands for its host.
func target(db, host string, port uint16) string {
	at := host
	if port != 0 && !strings.HasPrefix(host, "/") {
		at = net.JoinHostPort(host, strconv.Itoa(int(port)))
	}
	switch {
	case db == "" && at == "":
		return "no database or host given"
	case db == "":
		return "default database on " + at
	case at == "":
		return fmt.Sprintf("database %q on the default host", db)
	}
	return fmt.Sprintf("database %q on %s", db, at)
}

// rawTarget is target for a URL the driver could not parse: the host and
// database are read leniently, after the last "@" (so never the user
// information), or from host= and dbname= in the key=value form.
func rawTarget(raw string) string {
	rest, ok := strings.CutPrefix(raw, "postgres://")
	if !ok {
		rest, ok = strings.CutPrefix(raw, "postgresql://")
	}
	if !ok {
		var db, host string
		for _, f := range strings.Fields(raw) {
			if v, ok := strings.CutPrefix(f, "dbname="); ok {
				db = strings.Trim(v, "'")
			} else if v, ok := strings.CutPrefix(f, "host="); ok {
				host = strings.Trim(v, "'")
			}
		}
		return target(db, host, 0)
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	host, db, _ := strings.Cut(rest, "/")
	if u, err := url.PathUnescape(db); err == nil {
		db = u
	}
	return target(db, host, 0)
}

// closeWait bounds how long Close waits for Logs still open.
const closeWait = 5 * time.Second

// Close closes the pool once every Log is closed. Close the Logs first: a
// Log still open after a few seconds keeps its connection (and lock), and
// Close returns an error saying so.
func (s *Store) Close() error {
	done := make(chan struct{})
	go func() {
		s.pool.Close()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-time.After(closeWait):
		return fmt.Errorf("close postgres session store: %d session(s) still open; the pool closes when they are", s.pool.Stat().AcquiredConns())
	}
}

// Create starts a new, empty session and takes its writer lock.
func (s *Store) Create(ctx context.Context) (session.Log, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	l, err := s.newSession(ctx, "", 0)
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	return l, nil
}

// Open takes the session's writer lock and loads its events. Another
// writer holding it is a *session.HeldError naming it.
func (s *Store) Open(ctx context.Context, id string) (session.Log, error) {
	if err := precheck(ctx, "open", id); err != nil {
		return nil, err
	}
	w, err := s.lock(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open session %q: %w", id, err)
	}
	evs, err := s.load(ctx, w.conn, id)
	if err != nil {
		w.close()
		return nil, fmt.Errorf("open session %q: %w", id, err)
	}
	return w.log(evs)
}

// Read returns a session's events without taking its lock, so it works
// while another process writes the session.
func (s *Store) Read(ctx context.Context, id string) ([]session.Event, error) {
	if err := precheck(ctx, "read", id); err != nil {
		return nil, err
	}
	evs, err := s.load(ctx, s.pool, id)
	if err != nil {
		return nil, fmt.Errorf("read session %q: %w", id, err)
	}
	return evs, nil
}

// Fork creates a session holding id's events with Seq <= at (at <= 0: all
// of them), Seqs and Times unchanged, and takes its writer lock. It does
// not need id's lock: it copies what id's writer has committed.
func (s *Store) Fork(ctx context.Context, id string, at int64) (session.Log, error) {
	if err := precheck(ctx, "fork", id); err != nil {
		return nil, err
	}
	l, err := s.newSession(ctx, id, at)
	if err != nil {
		return nil, fmt.Errorf("fork session %q: %w", id, err)
	}
	return l, nil
}

// newSession creates a session under a fresh ID, locked, as a fork of
// forkOf when that is set.
func (s *Store) newSession(ctx context.Context, forkOf string, at int64) (session.Log, error) {
	for range 100 {
		now := s.clock()
		id := session.NewID(now)
		w, err := s.lock(ctx, id)
		if errors.Is(err, session.ErrHeld) {
			continue // someone is creating the same ID
		}
		if err != nil {
			return nil, err
		}
		created, err := s.insertSession(ctx, w.conn, id, now, forkOf, at)
		if err == nil && created {
			var evs []session.Event
			if evs, err = s.load(ctx, w.conn, id); err == nil {
				return w.log(evs)
			}
		}
		w.close()
		if err != nil {
			return nil, err
		}
	}
	return nil, errors.New("no free session id")
}

// insertSession adds the session's row and, for a fork, copies the
// events; false when the ID is taken.
func (s *Store) insertSession(ctx context.Context, conn *pgxpool.Conn, id string, now time.Time, forkOf string, at int64) (bool, error) {
	created := false
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if forkOf == "" {
			tag, err := tx.Exec(ctx, `INSERT INTO helios_sessions (id, created) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, id, now)
			created = tag.RowsAffected() == 1
			return err
		}
		var n int64
		err := tx.QueryRow(ctx, `SELECT version FROM helios_sessions WHERE id = $1 FOR SHARE`, forkOf).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return session.ErrNotFound
		}
		if err != nil {
			return err
		}
		if at > 0 && at < n {
			n = at
		}
		tag, err := tx.Exec(ctx, `INSERT INTO helios_sessions (id, created, version, fork_of, fork_at) VALUES ($1, $2, $3, $4, $3) ON CONFLICT (id) DO NOTHING`, id, now, n, forkOf)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		created = true
		_, err = tx.Exec(ctx, `INSERT INTO helios_events (session_id, seq, event_id, time, type, body, input)
			SELECT $1, seq, event_id, time, type, body, input FROM helios_events WHERE session_id = $2 AND seq <= $3`, id, forkOf, n)
		return err
	})
	return created, err
}

// List describes every session, most recently updated first. A session
// whose title event cannot be decoded is listed without a title, with a
// warning naming it.
func (s *Store) List(ctx context.Context) ([]session.Info, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT s.id, s.created, coalesce(s.fork_of, ''), s.fork_at, s.version, f.time, l.time, u.seq, u.body
		FROM helios_sessions s
		LEFT JOIN helios_events f ON f.session_id = s.id AND f.seq = 1
		LEFT JOIN helios_events l ON l.session_id = s.id AND l.seq = s.version
		LEFT JOIN LATERAL (
			SELECT e.seq, e.body FROM helios_events e
			WHERE e.session_id = s.id AND e.type = 'user' ORDER BY e.seq LIMIT 1
		) u ON true`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	infos := []session.Info{}
	for rows.Next() {
		var (
			f           session.InfoFacts
			n           int64
			first, last *time.Time
			userSeq     *int64
			userBody    *string
		)
		if err := rows.Scan(&f.ID, &f.Created, &f.ForkOf, &f.ForkAt, &n, &first, &last, &userSeq, &userBody); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		f.Events, f.Created = int(n), f.Created.UTC()
		if first != nil {
			f.First = first.UTC()
		}
		if last != nil {
			f.Last = last.UTC()
		}
		if userBody != nil {
			var b body
			if err := decodeBody(*userBody, &b); err != nil {
				s.log.Warn("session store: cannot read a session's title", "session", f.ID, "seq", *userSeq, "err", err)
			}
			f.FirstUserText, f.Parent = b.Text, b.Meta[session.MetaParentSession]
		}
		infos = append(infos, f.Info())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	session.SortInfos(infos)
	return infos, nil
}

// querier is what load reads through: the pool or a writer's connection.
type querier interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// load reads a session's events from one snapshot, checking that they are
// exactly Seqs 1..version; a row that breaks that, or that does not
// decode, is an error naming the session and the Seq.
func (s *Store) load(ctx context.Context, q querier, id string) ([]session.Event, error) {
	var evs []session.Event
	err := pgx.BeginFunc(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`); err != nil {
			return err
		}
		var n int64
		err := tx.QueryRow(ctx, `SELECT version FROM helios_sessions WHERE id = $1`, id).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return session.ErrNotFound
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT seq, time, type, body, input FROM helios_events WHERE session_id = $1 ORDER BY seq`, id)
		if err != nil {
			return err
		}
		evs = make([]session.Event, 0, n)
		if evs, err = scanEvents(rows, evs, 1); err != nil {
			return err
		}
		if int64(len(evs)) != n {
			return fmt.Errorf("corrupt session: event row seq %d is missing (the session has %d events)", len(evs)+1, n)
		}
		return nil
	})
	return evs, err
}

// scanEvents decodes rows of (seq, time, type, body, input) that must be
// Seqs from, from+1, ... in order. Its errors name the Seq; the caller's
// name the session.
func scanEvents(rows pgx.Rows, evs []session.Event, from int64) ([]session.Event, error) {
	defer rows.Close()
	for rows.Next() {
		var (
			e     session.Event
			typ   string
			b     string
			input *string
		)
		if err := rows.Scan(&e.Seq, &e.Time, &typ, &b, &input); err != nil {
			return nil, err
		}
		if want := from + int64(len(evs)); e.Seq != want {
			return nil, fmt.Errorf("corrupt session: event row seq %d found where seq %d belongs (a row is missing)", e.Seq, want)
		}
		if err := decodeEvent(&e, typ, b, input); err != nil {
			return nil, fmt.Errorf("corrupt session: event row seq %d: %w", e.Seq, err)
		}
		evs = append(evs, e)
	}
	return evs, rows.Err()
}

// lock acquires a connection and takes id's writer lock on it.
func (s *Store) lock(ctx context.Context, id string) (*writer, error) {
	w := &writer{s: s, id: id, key: s.lockKey(id)}
	if err := w.relock(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// lockKey is the advisory-lock key of a session: 64 bits of FNV-1a over
// the table's OID and the ID.
func (s *Store) lockKey(id string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", s.lockSpace, id)
	return int64(h.Sum64())
}

// holder names the writer holding key. The lock and the writer's row are
// not written at once, so it looks again for a moment when the row it
// finds belongs to an earlier holder.
func (s *Store) holder(ctx context.Context, id string, key int64) error {
	held := &session.HeldError{ID: id}
	for range 20 {
		err := s.pool.QueryRow(ctx, `
			SELECT w.host, w.pid, w.since FROM helios_writers w
			JOIN pg_locks l ON l.pid = w.backend_pid
			WHERE w.session_id = $1 AND l.locktype = 'advisory' AND l.granted
			  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			  AND l.classid = $2 AND l.objid = $3 AND l.objsubid = 1`,
			id, uint32(uint64(key)>>32), uint32(key)).Scan(&held.Host, &held.PID, &held.Since)
		if err == nil {
			held.Since = held.Since.UTC()
			return held
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return errors.Join(held, err)
		}
		select {
		case <-ctx.Done():
			return held
		case <-time.After(25 * time.Millisecond):
		}
	}
	return held
}

func precheck(ctx context.Context, op, id string) error {
	if err := session.CheckID(id); err != nil {
		return fmt.Errorf("%s session: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s session %q: %w", op, id, err)
	}
	return nil
}

// parseReason is a parse error without the connection string, which
// pgconn redacts only on a best-effort basis.
func parseReason(err error) error {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		if inner := errors.Unwrap(pe); inner != nil {
			return inner
		}
		msg := pe.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			return errors.New(msg[i+3:])
		}
		return errors.New("cannot parse it")
	}
	return err
}

// Password returns the password a PostgreSQL URL (or key=value connection
// string) carries, or "" when it has none; the assembly adds it to the
// secrets redacted from everything Helios prints, logs, stores or exports.
func Password(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.User != nil {
		pw, _ := u.User.Password()
		return pw
	}
	if i := strings.LastIndex(rawURL, "@"); strings.Contains(rawURL, "://") && i >= 0 {
		// A URL net/url refuses (a bad escape in the password, say).
		userinfo := rawURL[strings.Index(rawURL, "://")+3 : i]
		if _, pw, ok := strings.Cut(userinfo, ":"); ok {
			return pw
		}
		return ""
	}
	if _, rest, ok := strings.Cut(rawURL, "password="); ok {
		pw, _, _ := strings.Cut(rest, " ")
		return strings.Trim(pw, "'")
	}
	return ""
}

// redactText replaces the password of rawURL in text by [REDACTED], in
// case a driver or server message quotes it.
func redactText(text, rawURL string) string {
	pw := Password(rawURL)
	if pw == "" {
		return text
	}
	text = strings.ReplaceAll(text, pw, "[REDACTED]")
	if esc := url.QueryEscape(pw); esc != pw {
		text = strings.ReplaceAll(text, esc, "[REDACTED]")
	}
	return text
}

// redacted is an error whose text hides a password (and is one line); Unwrap still gives
// the original for errors.Is.
type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }
