package main

import (
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/pgtest"
)

// pgURLEnv names the variable that holds the test cluster's URL for helios.
const pgURLEnv = "HELIOS_TEST_SESSIONS_DB"

// Every PostgreSQL URL that cannot be used ends `sessions list` and `run`
// with exit 1 and one line on stderr naming the database and its host,
// never the password, never a panic (C19: the store came back as a nil
// *postgres.Store inside a non-nil interface, and Close panicked).
func TestRealInputStoreFailsWithWords(t *testing.T) {
	good := pgtest.URL(t)
	u, err := url.Parse(good)
	require.NoError(t, err)
	const wrong = "Str0ng-But-Wr0ng"
	right, _ := u.User.Password()
	require.NotEmpty(t, right, "the test cluster's URL has a password")
	db := strings.TrimPrefix(u.Path, "/")
	with := func(edit func(v *url.URL)) string {
		v := *u
		edit(&v)
		return v.String()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	ln.Close()

	for _, tc := range []struct{ name, url, where, why string }{
		{"refused", with(func(v *url.URL) { v.Host = closed }), `database "` + db + `" on ` + closed, "connection refused"},
		{"wrong password", with(func(v *url.URL) { v.User = url.UserPassword(v.User.Username(), wrong) }), `database "` + db + `" on ` + u.Host, "password authentication failed"},
		{"unknown database", with(func(v *url.URL) { v.Path = "/no_such_db" }), `database "no_such_db" on ` + u.Host, "does not exist"},
		{"bad sslmode", with(func(v *url.URL) { v.RawQuery = "sslmode=maybe" }), `database "` + db + `" on ` + u.Host, "sslmode is invalid"},
		{"malformed", "postgres://helios:" + right + "@[::1/" + db, `database "` + db + `" on [::1`, "not a valid PostgreSQL URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(pgURLEnv, tc.url)
			home, dir := t.TempDir(), t.TempDir()
			cfg := filepath.Join(t.TempDir(), "helios.config.json")
			writeFile(t, cfg, `{
  "workDir": "`+dir+`",
  "skills": {"userRoots": []},
  "model": {"baseURL": "http://127.0.0.1:1/v1", "name": "never-asked", "apiKeyEnv": ""},
  "sessions": {"store": "postgres", "postgres": {"urlEnv": "`+pgURLEnv+`"}}
}`)
			for _, args := range [][]string{{"sessions", "list"}, {"run", "hello"}, {"sessions", "show", "20260101T000000-abcdef"}} {
				r := helios(t, home, dir, append([]string{"--config", cfg}, args...)...)
				assert.Equal(t, 1, r.code, "%v: exit code; stderr:\n%s", args, r.stderr)
				line := strings.TrimSuffix(r.stderr, "\n")
				assert.NotContains(t, line, "\n", "%v: one line on stderr", args)
				assert.NotContains(t, r.stderr, "goroutine", "%v: no panic", args)
				assert.NotContains(t, r.stderr+r.stdout, right, "%v: the password is never printed", args)
				assert.NotContains(t, r.stderr+r.stdout, wrong, "%v: nor a wrong one", args)
				assert.Contains(t, line, tc.where, "%v: names the database and its host", args)
				assert.Contains(t, line, tc.why, "%v: says why", args)
				assert.Contains(t, line, "$"+pgURLEnv, "%v: names the variable", args)
			}
		})
	}
}
