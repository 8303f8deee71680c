package session_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/session/sessiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONLStoreConformance(t *testing.T) {
	dirs := map[session.Store]string{}
	var mu sync.Mutex
	newStore := func(t *testing.T) session.Store {
		dir := t.TempDir()
		s := newJSONL(t, session.JSONLConfig{Dir: dir, Clock: stepClock()})
		mu.Lock()
		dirs[s] = dir
		mu.Unlock()
		return s
	}
	reopen := func(t *testing.T, old session.Store) session.Store {
		mu.Lock()
		dir := dirs[old]
		mu.Unlock()
		return newJSONL(t, session.JSONLConfig{Dir: dir, Clock: stepClock()})
	}
	sessiontest.RunWith(t, newStore, sessiontest.RunOptions{Durable: true, Reopen: reopen})
}

// The default clock, as in production.
func TestJSONLStoreConformanceWallClock(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return newJSONL(t, session.JSONLConfig{Dir: t.TempDir()})
	})
}

func TestMemoryStoreConformance(t *testing.T) {
	sessiontest.Run(t, func(*testing.T) session.Store { return session.NewMemoryStore() })
}

func TestNewJSONLStore(t *testing.T) {
	_, err := session.NewJSONLStore(session.JSONLConfig{})
	assert.Error(t, err, "NewJSONLStore without Dir: no error")
	dir := filepath.Join(t.TempDir(), "a", "b")
	newJSONL(t, session.JSONLConfig{Dir: dir})
	st, err := os.Stat(dir)
	if assert.NoError(t, err, "Dir not created") {
		assert.True(t, st.IsDir(), "Dir not created")
	}
}

func TestJSONLFileFormat(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 30, 7, 21, 43, 0, time.UTC)
	s := newJSONL(t, session.JSONLConfig{Dir: dir, Clock: func() time.Time { return now }})
	l := mustCreate(t, s)
	assert.True(t, regexp.MustCompile(`^20261130T072143-[0-9a-f]{6}$`).MatchString(l.ID()), "ID %q, want 20261130T072143-<6 hex digits>", l.ID())
	mustAppend(t, l,
		session.Event{Type: session.Injected, Provenance: "skills-catalog", Text: "<available_skills>\na & b\n</available_skills>"},
		session.Event{Type: session.ToolUse, ToolUseID: "c1", ToolName: "Bash", Input: json.RawMessage(`{"command": "a && b"}`)},
		session.Event{Type: session.ToolUse, ToolUseID: "c2", ToolName: "Edit", Input: json.RawMessage("{\n \"x\": 1\n}")},
	)
	path := filepath.Join(dir, l.ID()+".jsonl")
	st, err := os.Stat(path)
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "file mode (sessions hold private text)")
	}
	got := readLines(t, path)
	want := []string{
		`{"seq":1,"time":"2026-11-30T07:21:43Z","type":"injected","text":"<available_skills>\na & b\n</available_skills>","provenance":"skills-catalog"}`,
		`{"seq":2,"time":"2026-11-30T07:21:43Z","type":"tool_use","toolUseId":"c1","toolName":"Bash","input":{"command": "a && b"}}`,
		`{"seq":3,"time":"2026-11-30T07:21:43Z","type":"tool_use","toolUseId":"c2","toolName":"Edit","inputText":"{\n \"x\": 1\n}"}`,
	}
	assert.Empty(t, cmp.Diff(want, got), "file lines (-want +got)")
	// Every line is an Event as encoding/json reads it.
	for i, line := range got[:2] {
		var e session.Event
		assert.NoError(t, json.Unmarshal([]byte(line), &e), "line %d does not decode as an Event", i+1)
		assert.Equal(t, int64(i+1), e.Seq, "line %d does not decode as an Event", i+1)
	}

	f, err := s.Fork(t.Context(), l.ID(), 2)
	require.NoError(t, err)
	defer f.Close()
	meta, err := os.ReadFile(filepath.Join(dir, f.ID()+".meta.json"))
	require.NoError(t, err)
	wantMeta := fmt.Sprintf(`{"forkOf":%q,"forkAt":2,"created":"2026-11-30T07:21:43Z"}`+"\n", l.ID())
	assert.Empty(t, cmp.Diff(wantMeta, string(meta)), "fork sidecar (-want +got)")
	assert.Empty(t, cmp.Diff(want[:2], readLines(t, filepath.Join(dir, f.ID()+".jsonl"))), "fork file (-want +got)")
	left := leftovers(t, dir)
	assert.LessOrEqual(t, len(left), 0, "temporary files left behind")
}

func TestOpenCutsTornLastLine(t *testing.T) {
	for _, tc := range []struct {
		name, tail string
	}{
		{"partial JSON", `{"seq":4,"time":"2026-`},
		{"complete JSON without newline", `{"seq":4,"time":"2026-11-30T07:21:43Z","type":"user","text":"x"}`},
		{"zeros", "\x00\x00\x00\x00\x00\x00"},
		{"zeros then newline", "\x00\x00\x00\x00\n"},
		{"invalid last line", "{\"seq\":4,\"ti\n"},
		{"empty last line", "\n"},
		{"partial line after half a line", "{\"seq\":4,\"time\":\"2026-11-30T07:21:43Z\",\"type\":\"user\",\"te"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newJSONL(t, session.JSONLConfig{Dir: dir})
			l := mustCreate(t, s)
			want := mustAppend(t, l,
				session.Event{Type: session.User, Text: "one"},
				session.Event{Type: session.Assistant, Text: "two"},
				session.Event{Type: session.User, Text: "three"},
			)
			id := l.ID()
			l.Close()
			path := filepath.Join(dir, id+".jsonl")
			good := fileSize(t, path)
			appendFile(t, path, tc.tail)

			rec := &recorder{}
			s2 := newJSONL(t, session.JSONLConfig{Dir: dir, Logger: slog.New(rec)})
			// List reads the torn file without touching it.
			in := findInfo(t, s2, id)
			assert.Equal(t, 3, in.Events, "List before Open: Events")
			assert.Equal(t, good+int64(len(tc.tail)), fileSize(t, path), "List changed the file")
			r, err := s2.Open(t.Context(), id)
			require.NoError(t, err, "Open")
			defer r.Close()
			assert.Empty(t, cmp.Diff(want, all(r)), "events after the cut (-want +got)")
			assert.Equal(t, good, fileSize(t, path), "file size after Open (torn line cut off)")
			warns := rec.records(slog.LevelWarn)
			require.Len(t, warns, 1, "logger got %d warnings, want 1: %v", len(warns), warns)
			f, n := warns[0]["file"], warns[0]["droppedBytes"]
			assert.Equal(t, path, f, "warning names file %q, dropped %q; want %q, %d", f, n, path, len(tc.tail))
			assert.Equal(t, strconv.Itoa(len(tc.tail)), n, "warning names file %q, dropped %q; want %q, %d", f, n, path, len(tc.tail))
			got := mustAppend(t, r, session.Event{Type: session.User, Text: "four"})
			assert.Equal(t, int64(4), got[0].Seq, "append after the cut: Seq")
			r.Close()
			r2 := mustOpen(t, s2, id)
			assert.Empty(t, cmp.Diff(append(want, got...), all(r2)), "reopened after the cut and an append (-want +got)")
		})
	}
}

func TestOpenRefusesCorruptLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(lines []string) []string
		line int
	}{
		{"garbage in the middle", func(l []string) []string { l[1] = `{"seq":2,"ti`; return l }, 2},
		{"empty line in the middle", func(l []string) []string { l[2] = ""; return l }, 3},
		{"garbage before a torn tail", func(l []string) []string { l[3] = "oops"; return append(l, `{"seq`) }, 4},
		{"seq gap", func(l []string) []string { return append(l[:1], l[2:]...) }, 2},
		{"seq repeated", func(l []string) []string { return append(l[:2], l[1:]...) }, 3},
		{"valid JSON, wrong seq, last", func(l []string) []string { l[3] = `{"seq":9}`; return l }, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newJSONL(t, session.JSONLConfig{Dir: dir})
			l := mustCreate(t, s)
			for i := range 4 {
				mustAppend(t, l, session.Event{Type: session.User, Text: fmt.Sprint(i)})
			}
			id := l.ID()
			l.Close()
			path := filepath.Join(dir, id+".jsonl")
			data := strings.Join(tc.edit(readLines(t, path)), "\n")
			if !strings.HasSuffix(data, `{"seq`) {
				data += "\n"
			}
			require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
			_, err := s.Open(t.Context(), id)
			require.Error(t, err, "Open of a corrupt file: no error")
			want := fmt.Sprintf("%s:%d:", path, tc.line)
			assert.Contains(t, err.Error(), want, "error %q does not name %q", err, want)
			assert.NotErrorIs(t, err, session.ErrNotFound, "corruption reported as ErrNotFound")
			after, _ := os.ReadFile(path)
			assert.Equal(t, data, string(after), "Open changed a corrupt file; it must leave it for a person to look at")
			_, err = s.Fork(t.Context(), id, 0)
			assert.Error(t, err, "Fork of a corrupt file: no error")
		})
	}
}

func TestListWarnsAndSkipsUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	rec := &recorder{}
	s := newJSONL(t, session.JSONLConfig{Dir: dir, Logger: slog.New(rec)})
	good := mustCreate(t, s)
	mustAppend(t, good, session.Event{Type: session.User, Text: "fine"})
	bad := filepath.Join(dir, "20260101T000000-bad000.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("not json\n{\"seq\":2}\n"), 0o600))
	// Files that are not sessions are ignored quietly.
	for _, name := range []string{"notes.txt", ".hidden.jsonl", "x.meta.json"} {
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600)
	}
	infos, err := s.List(t.Context())
	require.NoError(t, err)
	if assert.Len(t, infos, 1, "List = %+v, want only %s", infos, good.ID()) {
		assert.Equal(t, good.ID(), infos[0].ID, "List")
	}
	warns := rec.records(slog.LevelWarn)
	if assert.Len(t, warns, 1, "warnings %v, want one naming %s", warns, bad) {
		assert.Equal(t, bad, warns[0]["file"], "warning")
	}
}

func TestOpenInAnotherStoreIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no advisory file lock on windows")
	}
	dir := t.TempDir()
	a := newJSONL(t, session.JSONLConfig{Dir: dir})
	b := newJSONL(t, session.JSONLConfig{Dir: dir}) // as another process would
	l := mustCreate(t, a)
	mustAppend(t, l, session.Event{Type: session.User, Text: "mine"})
	second, err := b.Open(t.Context(), l.ID())
	if err == nil {
		second.Close()
	}
	require.Error(t, err, "a second store opened a session open elsewhere; two writers would reuse Seqs")
	// Reading it is fine.
	in := findInfo(t, b, l.ID())
	assert.Equal(t, 1, in.Events, "List in the other store: Events")
	l.Close()
	r := mustOpen(t, b, l.ID())
	assert.Equal(t, 1, r.Len(), "after Close, the other store reads %d events, want 1", r.Len())
}

func TestInfoCreatedAndUpdated(t *testing.T) {
	clock := stepClock()
	s := newJSONL(t, session.JSONLConfig{Dir: t.TempDir(), Clock: clock})
	l := mustCreate(t, s)
	first := mustAppend(t, l, session.Event{Type: session.User, Text: "a"})
	last := mustAppend(t, l, session.Event{Type: session.Assistant, Text: "b"})
	f, err := s.Fork(t.Context(), l.ID(), 0)
	require.NoError(t, err)
	defer f.Close()
	in := findInfo(t, s, l.ID())
	assert.True(t, in.Created.Equal(first[0].Time), "Created %v, Updated %v; want the first and last event times %v, %v", in.Created, in.Updated, first[0].Time, last[0].Time)
	assert.True(t, in.Updated.Equal(last[0].Time), "Created %v, Updated %v; want the first and last event times %v, %v", in.Created, in.Updated, first[0].Time, last[0].Time)
	fi := findInfo(t, s, f.ID())
	assert.True(t, fi.Created.After(last[0].Time), "fork: Created %v, Updated %v; want the fork's time, after %v", fi.Created, fi.Updated, last[0].Time)
	assert.True(t, fi.Updated.Equal(fi.Created), "fork: Created %v, Updated %v; want the fork's time, after %v", fi.Created, fi.Updated, last[0].Time)
}

// The crash test: a child process appends and acknowledges each Append on
// stdout once it returned; it is killed with SIGKILL mid-stream. Every
// acknowledged event must survive, and the log must stay usable. The same
// session goes through several crashes.
func TestCrashKeepsAcknowledgedEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	s := newJSONL(t, session.JSONLConfig{Dir: dir})
	l := mustCreate(t, s)
	id := l.ID()
	l.Close()

	var acked int64 // highest Seq known durable
	cuts := 0
	for iter := range 5 {
		killAfter := 5 + 11*iter
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperDir+"="+dir, helperID+"="+id)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		watchdog := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
		acks := 0
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			seq, err := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "ack "), 10, 64)
			require.NoError(t, err, "child said %q", sc.Text())
			require.Greater(t, seq, acked, "child acknowledged Seq %d after %d", seq, acked)
			acked = seq
			if acks++; acks == killAfter {
				cmd.Process.Kill() // SIGKILL on unix; later acks already printed still count
			}
		}
		err = cmd.Wait()
		watchdog.Stop()
		require.GreaterOrEqual(t, acks, killAfter, "iteration %d: child stopped after %d acks (%v): %s", iter, acks, err, stderr.String())
		require.Error(t, err, "iteration %d: child was not killed", iter)
		require.False(t, cmd.ProcessState.Success(), "iteration %d: child was not killed", iter)

		rec := &recorder{}
		s2 := newJSONL(t, session.JSONLConfig{Dir: dir, Logger: slog.New(rec)})
		r, err := s2.Open(t.Context(), id)
		require.NoError(t, err, "iteration %d: reopen after SIGKILL", iter)
		cuts += len(rec.records(slog.LevelWarn))
		n := int64(r.Len())
		require.GreaterOrEqual(t, n, acked, "iteration %d: %d events after the crash, but Seq %d was acknowledged", iter, n, acked)
		for i := range r.Len() {
			e := r.At(i)
			require.Equal(t, int64(i+1), e.Seq, "iteration %d: event %d = Seq %d %.40q, want Seq %d %.40q", iter, i, e.Seq, e.Text, i+1, crashText(int64(i+1)))
			require.Equal(t, crashText(e.Seq), e.Text, "iteration %d: event %d = Seq %d %.40q, want Seq %d %.40q", iter, i, e.Seq, e.Text, i+1, crashText(int64(i+1)))
		}
		lastAck := acked
		got := mustAppend(t, r, session.Event{Type: session.User, Text: crashText(n + 1)})
		require.Equal(t, n+1, got[0].Seq, "iteration %d: append after the crash: Seq %d, want %d", iter, got[0].Seq, n+1)
		acked = n + 1
		r.Close()
		t.Logf("iteration %d: killed after %d acks; last ack Seq %d; %d events survived", iter, acks, lastAck, n)
	}
	t.Logf("torn lines cut on reopen: %d", cuts)
}

const (
	helperDir = "HELIOS_SESSION_CRASH_DIR"
	helperID  = "HELIOS_SESSION_CRASH_ID"
)

// TestHelperProcess is the child of TestCrashKeepsAcknowledgedEvents; it
// does nothing in a normal run.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperDir)
	if dir == "" {
		return
	}
	ctx := context.Background()
	s, err := session.NewJSONLStore(session.JSONLConfig{Dir: dir, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	l, err := s.Open(ctx, os.Getenv(helperID))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		next := int64(l.Len()) + 1
		batch := make([]session.Event, 1+i%3) // batches of 1 to 3
		for k := range batch {
			batch[k] = session.Event{Type: session.ToolResult, ToolUseID: "t", Text: crashText(next + int64(k))}
		}
		got, err := l.Append(ctx, batch...)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Printf("ack %d\n", got[len(got)-1].Seq)
	}
}

// crashText is the event with that Seq in the crash test: a few KB, so a
// write spans pages.
func crashText(seq int64) string {
	return fmt.Sprintf("event %d ", seq) + strings.Repeat(string(rune('a'+seq%26)), 1000+int(seq%7)*1000)
}

// helpers

func newJSONL(t testing.TB, cfg session.JSONLConfig) *session.JSONLStore {
	t.Helper()
	s, err := session.NewJSONLStore(cfg)
	require.NoError(t, err)
	return s
}

// stepClock is a clock that moves 1ms at each call.
func stepClock() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 11, 30, 7, 21, 43, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
}

func mustCreate(t testing.TB, s session.Store) session.Log {
	t.Helper()
	l, err := s.Create(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

func mustOpen(t *testing.T, s session.Store, id string) session.Log {
	t.Helper()
	l, err := s.Open(t.Context(), id)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

func mustAppend(t testing.TB, l session.Log, evs ...session.Event) []session.Event {
	t.Helper()
	got, err := l.Append(context.Background(), evs...)
	require.NoError(t, err)
	return got
}

func all(l session.Log) []session.Event {
	evs := make([]session.Event, l.Len())
	for i := range evs {
		evs[i] = l.At(i)
	}
	return evs
}

func findInfo(t *testing.T, s session.Store, id string) session.Info {
	t.Helper()
	infos, err := s.List(t.Context())
	require.NoError(t, err)
	for _, in := range infos {
		if in.ID == id {
			return in
		}
	}
	t.Fatalf("List has no %s: %+v", id, infos)
	return session.Info{}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString(s)
	require.NoError(t, err)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// recorder is a slog.Handler keeping each record's message and attributes.
type recorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec.Clone())
	return nil
}

// records returns the records at level, each as its attributes (values as
// strings) plus "msg".
func (r *recorder) records(level slog.Level) []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]string
	for _, rec := range r.recs {
		if rec.Level != level {
			continue
		}
		m := map[string]string{"msg": rec.Message}
		rec.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
		out = append(out, m)
	}
	return out
}

// Read works on a session another process has open (the lock does not
// apply to it), leaves a torn tail alone rather than cutting it, and names
// a missing session with ErrNotFound.
func TestReadWithoutLocking(t *testing.T) {
	dir := t.TempDir()
	a := newJSONL(t, session.JSONLConfig{Dir: dir})
	b := newJSONL(t, session.JSONLConfig{Dir: dir}) // as another process would
	l := mustCreate(t, a)
	mustAppend(t, l, session.Event{Type: session.User, Text: "one"}, session.Event{Type: session.Assistant, Text: "two"})

	evs, err := b.Read(t.Context(), l.ID())
	require.NoError(t, err, "Read while open elsewhere")
	require.Len(t, evs, 2, "Read while open elsewhere")
	require.Equal(t, "two", evs[1].Text, "Read while open elsewhere")

	// An Append in flight in the other process: a torn last line.
	path := filepath.Join(dir, l.ID()+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"seq":3,"type":"us`)
	require.NoError(t, err)
	f.Close()
	before, _ := os.Stat(path)
	evs, err = b.Read(t.Context(), l.ID())
	assert.NoError(t, err, "Read with a torn tail")
	assert.Len(t, evs, 2, "Read with a torn tail: want the 2 complete ones")
	after, _ := os.Stat(path)
	assert.Equal(t, before.Size(), after.Size(), "Read changed the file: %d -> %d bytes", before.Size(), after.Size())
	_, err = b.Read(t.Context(), "20260101T000000-abcdef")
	assert.ErrorIs(t, err, session.ErrNotFound, "Read of a missing session")
	_, err = b.Read(t.Context(), "../x")
	assert.ErrorIs(t, err, session.ErrInvalidID, "Read of ../x")
}
