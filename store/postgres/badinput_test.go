package postgres_test

import (
	"context"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/pgtest"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/store/postgres"
)

// A URL that cannot be used is an error of one line naming the database,
// its host and where the URL came from, never the password.
func TestBadURL(t *testing.T) {
	good, _ := pgtest.Schema(t)
	u, err := url.Parse(good)
	require.NoError(t, err)
	const secret = "s3cret-Pa55word"
	withPassword := func(host string) string {
		v := *u
		v.User = url.UserPassword(v.User.Username(), secret)
		if host != "" {
			v.Host = host
		}
		return v.String()
	}
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	ln.Close()
	wrongDB := *u
	wrongDB.Path = "/no_such_database_here"
	db := strings.TrimPrefix(u.Path, "/")
	withQuery := func(q string) string {
		v := *u
		v.User = url.UserPassword(v.User.Username(), secret)
		v.RawQuery = q
		return v.String()
	}

	for _, tc := range []struct{ name, url, want, where string }{
		{"unreachable server", withPassword(closed), "connection refused", `database "` + db + `" on ` + closed},
		{"wrong password", withPassword(""), "password authentication failed", `database "` + db + `" on ` + u.Host},
		{"wrong database", wrongDB.String(), `database "no_such_database_here" does not exist (SQLSTATE 3D000)`, `database "no_such_database_here" on ` + u.Host},
		{"unknown sslmode", withQuery("sslmode=sometimes"), "not a valid PostgreSQL URL: sslmode is invalid", `database "` + db + `" on ` + u.Host},
		{"TLS the server lacks", withQuery("sslmode=require"), "TLS", `database "` + db + `" on ` + u.Host},
		{"not a URL", "postgres://helios:" + secret + "@[::1:5432/x", "not a valid PostgreSQL URL", `database "x" on [::1:5432`},
		{"bad escape in the password", "postgres://helios:" + secret + "%zz@127.0.0.1:5432/x", "not a valid PostgreSQL URL", `database "x" on 127.0.0.1:5432`},
		{"bad parameter", "postgres://helios:" + secret + "@127.0.0.1/x?connect_timeout=soon", "not a valid PostgreSQL URL", `database "x" on 127.0.0.1`},
		{"unknown host", "postgres://helios:" + secret + "@no-such-host.invalid/x?connect_timeout=20", "no-such-host.invalid", `database "x" on no-such-host.invalid:5432`},
		{"key=value form", "host=127.0.0.1 dbname=x password=" + secret + " sslmode=often", "not a valid PostgreSQL URL", `database "x" on 127.0.0.1`},
		{"empty", "", "is empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			s, err := postgres.New(ctx, postgres.Config{URL: tc.url, URLSource: "$HELIOS_POSTGRES_URL"})
			if err == nil {
				s.Close()
			}
			require.Error(t, err)
			t.Log(err)
			assert.Contains(t, err.Error(), "$HELIOS_POSTGRES_URL")
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), tc.where)
			assert.NotContains(t, err.Error(), secret)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// Password finds the password in every form of connection string, so the
// assembly can redact it everywhere.
func TestPassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p%40ss@h/db":           "p@ss",
		"postgresql://u:pw@h:5432/db?x=1":    "pw",
		"postgres://u:pw%zz@h/db":            "pw%zz",
		"postgres://u@h/db":                  "",
		"host=h dbname=db password='pw' x=1": "pw",
		"host=h dbname=db":                   "",
		"postgres://h/db":                    "",
	} {
		assert.Equal(t, want, postgres.Password(in), in)
	}
}

// A database whose schema a newer Helios wrote is refused, naming both
// versions; concurrent openers of a new database all succeed.
func TestSchemaVersions(t *testing.T) {
	url, schema := pgtest.Schema(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			s, err := postgres.New(t.Context(), postgres.Config{URL: url})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "opener %d", i)
	}
	conn := pgtest.Connect(t, url)
	var v int
	require.NoError(t, conn.QueryRow(t.Context(), `SELECT version FROM `+schema+`.helios_schema`).Scan(&v))
	assert.Equal(t, 1, v)
	var rows int
	require.NoError(t, conn.QueryRow(t.Context(), `SELECT count(*) FROM `+schema+`.helios_schema`).Scan(&rows))
	assert.Equal(t, 1, rows)

	_, err := conn.Exec(t.Context(), `UPDATE `+schema+`.helios_schema SET version = 7`)
	require.NoError(t, err)
	_, err = postgres.New(t.Context(), postgres.Config{URL: url, URLSource: "$HELIOS_POSTGRES_URL"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "version 7")
	assert.Contains(t, err.Error(), "version 1")
}

// A corrupt event row is an error naming the session and the Seq, from
// Open and Read alike; List still lists the session.
func TestCorruptRow(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		seq       string
	}{
		{"body not JSON", `UPDATE helios_events SET body = '{"text": tru' WHERE session_id = $1 AND seq = 2`, "seq 2: body is not an event's JSON"},
		{"body of the wrong shape", `UPDATE helios_events SET body = '{"text": 5}' WHERE session_id = $1 AND seq = 2`, `seq 2: body is not an event's JSON: json: cannot unmarshal number`},
		{"input not JSON", `UPDATE helios_events SET input = '{"a":' WHERE session_id = $1 AND seq = 3`, "seq 3: input is not valid JSON"},
		{"gap", `DELETE FROM helios_events WHERE session_id = $1 AND seq = 2`, "seq 3 found where seq 2 belongs"},
		{"missing tail", `DELETE FROM helios_events WHERE session_id = $1 AND seq = 3`, "seq 3 is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, _ := pgtest.Schema(t)
			s := newStore(t, postgres.Config{URL: url})
			l, err := s.Create(t.Context())
			require.NoError(t, err)
			_, err = l.Append(t.Context(),
				session.Event{Type: session.User, Text: "one"},
				session.Event{Type: session.User, Text: "two"},
				session.Event{Type: session.ToolUse, ToolUseID: "c", Input: []byte(`{"a":1}`)})
			require.NoError(t, err)
			require.NoError(t, l.Close())
			pgtest.Exec(t, url, tc.sql, l.ID())

			_, err = s.Open(t.Context(), l.ID())
			require.Error(t, err)
			assert.Contains(t, err.Error(), l.ID())
			assert.Contains(t, err.Error(), tc.seq)
			_, err = s.Read(t.Context(), l.ID())
			require.Error(t, err)
			assert.Contains(t, err.Error(), l.ID())
			assert.Contains(t, err.Error(), tc.seq)
			infos, err := s.List(t.Context())
			require.NoError(t, err)
			assert.Len(t, infos, 1)
			// Refused to open, the session is not left locked.
			pgtest.Exec(t, url, `DELETE FROM helios_events WHERE session_id = $1 AND seq >= 2`, l.ID())
			pgtest.Exec(t, url, `UPDATE helios_sessions SET version = 1 WHERE id = $1`, l.ID())
			r, err := s.Open(t.Context(), l.ID())
			require.NoError(t, err)
			assert.Equal(t, 1, r.Len())
			r.Close()
		})
	}
}

// A session written by a newer Helios opens: fields of its events this
// version does not know are read past, and what it knows is kept.
func TestNewerFieldsAreReadPast(t *testing.T) {
	url, _ := pgtest.Schema(t)
	s := newStore(t, postgres.Config{URL: url})
	l, err := s.Create(t.Context())
	require.NoError(t, err)
	_, err = l.Append(t.Context(),
		session.Event{Type: session.User, Text: "one"},
		session.Event{Type: session.Assistant, Text: "two"})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	pgtest.Exec(t, url, `UPDATE helios_events SET body = '{"text": "two", "reasoning": {"tokens": 12}}' WHERE session_id = $1 AND seq = 2`, l.ID())

	r, err := s.Open(t.Context(), l.ID())
	require.NoError(t, err)
	defer r.Close()
	evs, err := s.Read(t.Context(), l.ID())
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, "two", evs[1].Text)
	assert.Equal(t, session.Assistant, evs[1].Type)
}

// Store errors never name the URL: an unknown session, a bad ID.
func TestErrorsNameTheSession(t *testing.T) {
	s := newStore(t, postgres.Config{})
	_, err := s.Open(t.Context(), "20000101T000000-000000")
	assert.ErrorIs(t, err, session.ErrNotFound)
	assert.True(t, strings.Contains(err.Error(), "20000101T000000-000000"), err.Error())
	_, err = s.Read(t.Context(), "../x")
	assert.ErrorIs(t, err, session.ErrInvalidID)
}
