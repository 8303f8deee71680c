package postgres_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/pgtest"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/store/postgres"
)

// childEnv makes the test binary a writer process (see runChild).
const childEnv = "HELIOS_PG_TEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(runChild(spec))
	}
	os.Exit(m.Run())
}

// runChild appends batches of two events to a session for ever, printing
// "ack K" once the batch K is acknowledged. spec is "URL SESSION".
func runChild(spec string) int {
	url, id, _ := strings.Cut(spec, " ")
	ctx := context.Background()
	s, err := postgres.New(ctx, postgres.Config{URL: url})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	l, err := s.Open(ctx, id)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	for k := 0; ; k++ {
		_, err := l.Append(ctx,
			session.Event{Type: session.User, Text: fmt.Sprint("batch ", k, " a")},
			session.Event{Type: session.Assistant, Text: fmt.Sprint("batch ", k, " b")})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(out, "ack", k)
		out.Flush()
	}
}

// 50 sessions × 200 events from 8 goroutines, each appending to every
// session in its own order and batch sizes: nothing lost, duplicated or
// reordered.
func TestManySessionsManyWriters(t *testing.T) {
	const sessions, goroutines, each = 50, 8, 25 // 8 × 25 = 200 events a session
	url, _ := pgtest.Schema(t)
	s := newStore(t, postgres.Config{URL: url, MaxConns: sessions + goroutines + 4})
	logs := make([]session.Log, sessions)
	for i := range logs {
		l, err := s.Create(t.Context())
		require.NoError(t, err)
		t.Cleanup(func() { l.Close() })
		logs[i] = l
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for g := range goroutines {
		wg.Go(func() {
			next := make([]int, sessions) // per session, this goroutine's next k
			for round := 0; ; round++ {
				busy := false
				for j := range sessions {
					i := (j*7 + g*13) % sessions // each goroutine its own order
					if next[i] == each {
						continue
					}
					busy = true
					n := min(1+(round+g+i)%3, each-next[i])
					batch := make([]session.Event, n)
					for b := range batch {
						batch[b] = session.Event{Type: session.User, Text: fmt.Sprintf("g%d k%d", g, next[i]+b)}
					}
					if _, err := logs[i].Append(t.Context(), batch...); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
					next[i] += n
				}
				if !busy {
					return
				}
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs)

	for i, l := range logs {
		require.NoError(t, l.Close())
		evs := read(t, s, l.ID())
		require.Len(t, evs, goroutines*each, "session %d", i)
		seen := map[string]bool{}
		last := make([]int, goroutines)
		for g := range last {
			last[g] = -1
		}
		for j, e := range evs {
			require.Equal(t, int64(j+1), e.Seq, "session %d", i)
			assert.False(t, seen[e.Text], "session %d: %q twice", i, e.Text)
			seen[e.Text] = true
			var g, k int
			_, err := fmt.Sscanf(e.Text, "g%d k%d", &g, &k)
			require.NoError(t, err)
			assert.Equal(t, last[g]+1, k, "session %d: goroutine %d's events out of order at seq %d", i, g, e.Seq)
			last[g] = k
		}
	}
	infos, err := s.List(t.Context())
	require.NoError(t, err)
	require.Len(t, infos, sessions)
	for _, in := range infos {
		assert.Equal(t, goroutines*each, in.Events, in.ID)
	}
}

// A writer killed by SIGKILL while appending: every acknowledged batch is
// stored whole, the lock is released, and the next writer goes on.
func TestWriterKilled(t *testing.T) {
	url, _ := pgtest.Schema(t)
	s := newStore(t, postgres.Config{URL: url})
	l, err := s.Create(t.Context())
	require.NoError(t, err)
	id := l.ID()
	require.NoError(t, l.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+url+" "+id)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	acked := -1
	sc := bufio.NewScanner(stdout)
	for acked < 40 && sc.Scan() {
		acked, err = strconv.Atoi(strings.TrimPrefix(sc.Text(), "ack "))
		require.NoError(t, err)
	}
	require.Equal(t, 40, acked, "the writer stopped early: %s", stderr.String())
	// It is appending batch 41 or later now.
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	for sc.Scan() {
		acked, _ = strconv.Atoi(strings.TrimPrefix(sc.Text(), "ack "))
	}
	_ = cmd.Wait()

	start := time.Now()
	next := openEventually(t, s, id)
	t.Logf("the lock was free %v after the kill", time.Since(start).Round(time.Millisecond))
	evs := all(next)
	require.GreaterOrEqual(t, len(evs), 2*(acked+1), "acknowledged events are missing")
	require.Zero(t, len(evs)%2, "a batch was stored in part")
	for j, e := range evs {
		assert.Equal(t, int64(j+1), e.Seq)
		assert.Equal(t, fmt.Sprint("batch ", j/2, []string{" a", " b"}[j%2]), e.Text)
	}
	got, err := next.Append(t.Context(), session.Event{Type: session.User, Text: "the next writer"})
	require.NoError(t, err)
	assert.Equal(t, int64(len(evs)+1), got[0].Seq)
}
