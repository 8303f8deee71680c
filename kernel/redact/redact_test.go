package redact_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/redact"
)

const key = "sk-live-4f9a/b+c=d"

func TestString(t *testing.T) {
	s := redact.New(key, "pw", "")
	for in, want := range map[string]string{
		"Authorization: Bearer " + key:         "Authorization: Bearer [REDACTED]",
		"twice " + key + key:                   "twice [REDACTED][REDACTED]",
		"encoded sk-live-4f9a%2Fb%2Bc%3Dd end": "encoded [REDACTED] end",
		"a pw stays: too short to hide":        "a pw stays: too short to hide",
		"nothing secret":                       "nothing secret",
	} {
		assert.Equal(t, want, s.String(in), in)
	}
	assert.Equal(t, 2, s.Len(), "the key and its encoding")

	var none *redact.Secrets
	assert.Equal(t, key, none.String(key), "a nil Secrets hides nothing")
	assert.Equal(t, key, (&redact.Secrets{}).String(key))

	// A value that contains another is hidden whole.
	s.Add("sk-live")
	assert.Equal(t, "[REDACTED] and [REDACTED]", s.String(key+" and sk-live"))
}

func TestError(t *testing.T) {
	s := redact.New(key)
	base := fmt.Errorf("HTTP 401: invalid key %s: %w", key, fs.ErrPermission)
	err := s.Error(base)
	assert.Equal(t, "HTTP 401: invalid key [REDACTED]: permission denied", err.Error())
	assert.ErrorIs(t, err, fs.ErrPermission, "the chain is kept")
	clean := errors.New("no secret here")
	assert.Same(t, clean, s.Error(clean), "an error without a secret comes back as it is")
	assert.NoError(t, s.Error(nil))
}

func TestWriterAndHandler(t *testing.T) {
	s := redact.New(key)
	var out bytes.Buffer
	w := s.Writer(&out)
	n, err := fmt.Fprintf(w, "helios: HTTP 401: %s\n", key)
	require.NoError(t, err)
	assert.Equal(t, len("helios: HTTP 401: \n")+len(key), n, "the caller's byte count")
	assert.Equal(t, "helios: HTTP 401: [REDACTED]\n", out.String())

	out.Reset()
	log := slog.New(s.Handler(slog.NewTextHandler(&out, nil))).With("token", key)
	log.Warn("retrying after "+key, "error", fmt.Errorf("refused %s", key), slog.Group("req", "auth", "Bearer "+key, "n", 3),
		"any", struct{ K string }{key})
	line := out.String()
	assert.NotContains(t, line, key, line)
	assert.Contains(t, line, `msg="retrying after [REDACTED]"`)
	assert.Contains(t, line, `token=[REDACTED]`)
	assert.Contains(t, line, `error="refused [REDACTED]"`)
	assert.Contains(t, line, `req.auth="Bearer [REDACTED]"`)
	assert.Contains(t, line, `req.n=3`)
	assert.Contains(t, line, `any={[REDACTED]}`)
}

// A writer made before any secret is known hides the secrets added later:
// the assembly hands out writers first and learns the secrets as it reads
// the configuration.
func TestWriterHidesSecretsAddedLater(t *testing.T) {
	s := redact.New()
	var out bytes.Buffer
	w := s.Writer(&out)
	fmt.Fprintf(w, "before: %s\n", key)
	s.Add(key)
	fmt.Fprintf(w, "after: %s\n", key)
	assert.Equal(t, "before: "+key+"\nafter: [REDACTED]\n", out.String())
}

// BenchmarkWriter: a writer with no secret to hide passes the bytes on
// without copying them (skills list --json writes megabytes through it);
// one secret, side by side, costs a copy and a scan.
func BenchmarkWriter(b *testing.B) {
	p := bytes.Repeat([]byte(`{"name":"skill","description":"Does a thing."},`), 1400) // ~64 KB
	for _, c := range []struct {
		name string
		s    *redact.Secrets
	}{{"none", redact.New()}, {"one-secret", redact.New(key)}} {
		b.Run(c.name, func(b *testing.B) {
			w := c.s.Writer(io.Discard)
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = w.Write(p)
			}
		})
	}
}
