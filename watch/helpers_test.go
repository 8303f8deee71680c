package watch

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// These tests spend their time waiting for the file system and for
	// timers, not on the CPU: unless -parallel was given, run more of them at
	// once than GOMAXPROCS, which is the default.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", strconv.Itoa(max(8, 4*runtime.GOMAXPROCS(0))))
	}
	goleak.VerifyTestMain(m)
}

// waitTimeout bounds every wait for something that must happen.
const waitTimeout = 5 * time.Second

// testConfig is fast enough for tests and slow enough to coalesce what one
// file operation does.
func testConfig(mode Mode) Config {
	return Config{Mode: mode, PollInterval: 50 * time.Millisecond, Coalesce: 20 * time.Millisecond}
}

// quietPeriod is how long "no callback" is waited for: a few coalescing
// windows, plus two poll rounds in Poll mode.
func quietPeriod(cfg Config) time.Duration {
	d := 3*cfg.Coalesce + 200*time.Millisecond
	if cfg.Mode == Poll {
		d += 2 * cfg.PollInterval
	}
	return d + cfg.WriteStability
}

func newWatcher(t *testing.T, cfg Config) *Watcher {
	t.Helper()
	w, err := New(cfg)
	require.NoError(t, err, "New(%+v)", cfg)
	t.Cleanup(func() {
		assert.NoError(t, w.Close(), "Close")
	})
	return w
}

// change is a Change and when it arrived.
type change struct {
	Change
	at time.Time
}

// recorder is a callback that never blocks and hands changes to the test.
type recorder struct {
	t     *testing.T
	quiet time.Duration
	ch    chan change
}

func newRecorder(t *testing.T, cfg Config) *recorder {
	return &recorder{t: t, quiet: quietPeriod(cfg), ch: make(chan change, 4096)}
}

func (r *recorder) onChange(c Change) {
	select {
	case r.ch <- change{c, time.Now()}:
	default:
		r.t.Errorf("recorder full; dropped %+v", c)
	}
}

func (r *recorder) watch(w *Watcher, roots ...string) *Subscription {
	r.t.Helper()
	s, err := w.Watch(roots, r.onChange)
	require.NoError(r.t, err, "Watch(%q)", roots)
	r.t.Cleanup(s.Close)
	return s
}

// next returns the next change, failing after waitTimeout.
func (r *recorder) next(what string) change {
	r.t.Helper()
	select {
	case c := <-r.ch:
		return c
	case <-time.After(waitTimeout):
		r.t.Fatalf("no callback within %s: %s", waitTimeout, what)
		return change{}
	}
}

// waitFor returns the changes received until one satisfies ok, inclusive.
func (r *recorder) waitFor(what string, ok func(Change) bool) []change {
	r.t.Helper()
	deadline := time.After(waitTimeout)
	var got []change
	for {
		select {
		case c := <-r.ch:
			got = append(got, c)
			if ok(c.Change) {
				return got
			}
		case <-deadline:
			r.t.Fatalf("no callback within %s: %s; got %d callbacks, the last %+v", waitTimeout, what, len(got), got[max(0, len(got)-3):])
			return nil
		}
	}
}

// waitEntries waits until the union of the Entries received covers names,
// and fails on a Rescan or Incomplete: these tests expect precise reports.
func (r *recorder) waitEntries(names ...string) []change {
	r.t.Helper()
	seen := map[string]bool{}
	got := r.waitFor("entries "+strings.Join(names, ", "), func(c Change) bool {
		for _, e := range c.Entries {
			seen[e] = true
		}
		for _, n := range names {
			if !seen[n] {
				return false
			}
		}
		return true
	})
	for _, c := range got {
		assert.False(r.t, c.Rescan || c.Incomplete, "waiting for entries %q: got %+v, want only entries", names, c.Change)
	}
	return got
}

// waitRescan waits for a complete Rescan.
func (r *recorder) waitRescan(what string) []change {
	r.t.Helper()
	return r.waitFor(what, func(c Change) bool { return c.Rescan && !c.Incomplete })
}

// assertQuiet fails if a callback arrives within the quiet period.
func (r *recorder) assertQuiet(what string) {
	r.t.Helper()
	select {
	case c := <-r.ch:
		r.t.Errorf("%s: got callback %+v, want none", what, c.Change)
	case <-time.After(r.quiet):
	}
}

// settle drains callbacks until a whole quiet period passes without one, so
// a test step starts from silence.
func (r *recorder) settle() {
	r.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-r.ch:
		case <-time.After(r.quiet):
			return
		}
	}
	r.t.Fatalf("callbacks did not stop within %s", waitTimeout)
}

// eventually waits for cond, polling, until waitTimeout.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		require.False(t, time.Now().After(deadline), "not within %s: %s", waitTimeout, what)
		time.Sleep(5 * time.Millisecond)
	}
}

// entriesOf is the sorted union of the Entries of changes.
func entriesOf(cs []change) []string {
	var out []string
	for _, c := range cs {
		for _, e := range c.Entries {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	slices.Sort(out)
	return out
}

// tempDir is t.TempDir with its symlinks resolved, so that paths compare
// with the canonical ones the watcher uses.
func tempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

func mkdir(t testing.TB, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(path, 0o755))
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func appendFile(t testing.TB, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(content)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func rename(t testing.TB, from, to string) {
	t.Helper()
	require.NoError(t, os.Rename(from, to))
}

func remove(t testing.TB, path string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(path))
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	require.NoError(t, os.Symlink(target, link))
}

// mkBundle creates root/name/SKILL.md.
func mkBundle(t testing.TB, root, name string) {
	t.Helper()
	mkdir(t, filepath.Join(root, name))
	writeFile(t, filepath.Join(root, name, "SKILL.md"), skillText(name, "first"))
}

func skillText(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nBody.\n"
}

// forEachMode runs f as a parallel subtest in Native and in Poll mode.
func forEachMode(t *testing.T, f func(t *testing.T, cfg Config)) {
	t.Parallel()
	for _, mode := range []Mode{Native, Poll} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			f(t, testConfig(mode))
		})
	}
}

// locked runs f under the Watcher's lock, for white-box looks.
func locked[T any](w *Watcher, f func() T) T {
	w.mu.Lock()
	defer w.mu.Unlock()
	return f()
}
