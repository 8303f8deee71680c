package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/pgtest"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/session/sessiontest"
	"github.com/helios-agents/helios/store/postgres"
)

// newStore opens a store over a fresh schema, closed when the test ends.
func newStore(t *testing.T, cfg postgres.Config) *postgres.Store {
	t.Helper()
	if cfg.URL == "" {
		cfg.URL, _ = pgtest.Schema(t)
	}
	s, err := postgres.New(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	pgtest.URL(t) // skips, once, without a server
	urls := map[session.Store]string{}
	sessiontest.RunWith(t, func(t *testing.T) session.Store {
		url, _ := pgtest.Schema(t)
		s := newStore(t, postgres.Config{URL: url})
		urls[s] = url
		return s
	}, sessiontest.RunOptions{
		Durable: true,
		Reopen: func(t *testing.T, s session.Store) session.Store {
			return newStore(t, postgres.Config{URL: urls[s]})
		},
	})
}
