package sessiontest

import (
	"slices"
	"testing"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func create(t *testing.T, s session.Store) session.Log {
	t.Helper()
	l, err := s.Create(t.Context())
	require.NoError(t, err, "Create")
	t.Cleanup(func() { l.Close() })
	return l
}

func open(t *testing.T, s session.Store, id string) session.Log {
	t.Helper()
	l, err := s.Open(t.Context(), id)
	require.NoError(t, err, "Open(%q)", id)
	t.Cleanup(func() { l.Close() })
	return l
}

func fork(t *testing.T, s session.Store, id string, at int64) session.Log {
	t.Helper()
	l, err := s.Fork(t.Context(), id, at)
	require.NoError(t, err, "Fork(%q, %d)", id, at)
	t.Cleanup(func() { l.Close() })
	return l
}

func closeLog(t *testing.T, l session.Log) {
	t.Helper()
	require.NoError(t, l.Close(), "Close %s", l.ID())
}

func mustAppend(t *testing.T, l session.Log, evs ...session.Event) []session.Event {
	t.Helper()
	got, err := l.Append(t.Context(), evs...)
	require.NoError(t, err, "Append to %s", l.ID())
	return got
}

func list(t *testing.T, s session.Store) []session.Info {
	t.Helper()
	infos, err := s.List(t.Context())
	require.NoError(t, err, "List")
	return infos
}

// all reads a log through At.
func all(l session.Log) []session.Event {
	evs := make([]session.Event, l.Len())
	for i := range evs {
		evs[i] = l.At(i)
	}
	return evs
}

func find(t *testing.T, infos []session.Info, id string) session.Info {
	t.Helper()
	if i := pos(infos, id); i >= 0 {
		return infos[i]
	}
	t.Fatalf("List has no session %s: %v", id, ids(infos))
	return session.Info{}
}

func pos(infos []session.Info, id string) int {
	return slices.IndexFunc(infos, func(in session.Info) bool { return in.ID == id })
}

func ids(infos []session.Info) []string {
	var out []string
	for _, in := range infos {
		out = append(out, in.ID)
	}
	return out
}

func checkSorted(t *testing.T, infos []session.Info) {
	t.Helper()
	for i := 1; i < len(infos); i++ {
		assert.False(t, infos[i].Updated.After(infos[i-1].Updated), "List not sorted by Updated, newest first: %s (%v) before %s (%v)", infos[i-1].ID, infos[i-1].Updated, infos[i].ID, infos[i].Updated)
	}
}
