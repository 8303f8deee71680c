package skills_test

// Contract C4 at the registry level: complete snapshots, exact invalidation,
// generation retry, stale names, first-party invalidation and O(changed)
// refreshes. The file watcher itself is tested in watch; here a fake
// RootWatcher fires changes on demand, so every test is deterministic.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// catCountingFS counts the skill files opened.
type catCountingFS struct {
	skillfs.OSFS
	reads atomic.Int64
}

func (c *catCountingFS) Open(name string) (fs.File, error) {
	c.reads.Add(1)
	return c.OSFS.Open(name)
}

// catProvider is a Watchable provider whose answer and calls the test controls.
type catProvider struct {
	mu         sync.Mutex
	names      []string
	incomplete bool
	err        error
	calls      int
	during     func() // runs inside Skills, before it answers
	invalidate func()
	watch      bool
}

func (p *catProvider) Skills(context.Context) (skills.Set, error) {
	p.mu.Lock()
	p.calls++
	during := p.during
	p.during = nil
	p.mu.Unlock()
	if during != nil {
		during()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return skills.Set{}, p.err
	}
	set := skills.Set{Incomplete: p.incomplete}
	for _, n := range p.names {
		set.Skills = append(set.Skills, skills.Skill{Name: n, Description: "d " + n})
	}
	return set, nil
}

func (p *catProvider) Watch(invalidate func(), _ <-chan struct{}) error {
	if !p.watch {
		return skills.ErrNotWatched
	}
	p.invalidate = invalidate
	return nil
}

func (p *catProvider) set(names ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.names = names
}

func (p *catProvider) callCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

func catNames(c skills.Catalog) []string {
	out := []string{}
	for _, s := range c.Skills {
		out = append(out, s.Name)
	}
	return out
}

// C4: a clean snapshot is served from cache: the provider is not asked again.
func TestCatalogCleanSnapshotServedFromCache(t *testing.T) {
	ctx := context.Background()
	reg := skills.NewRegistry(skills.RegistryConfig{})
	p := &catProvider{names: []string{"a"}, watch: true}
	reg.Register("user", p)
	for range 3 {
		require.Equal(t, []string{"a"}, catNames(reg.Snapshot(ctx)), "Snapshot")
	}
	assert.Equal(t, 1, p.callCount(), "provider asked for three clean snapshots")

	// A provider that cannot watch itself is asked every time: its answer
	// cannot be trusted past the moment it was given.
	unwatched := &catProvider{names: []string{"b"}}
	reg2 := skills.NewRegistry(skills.RegistryConfig{})
	reg2.Register("user", unwatched)
	reg2.Snapshot(ctx)
	reg2.Snapshot(ctx)
	assert.Equal(t, 2, unwatched.callCount(), "unwatched provider: calls for two snapshots")
}

// C4: invalidation marks exactly the registration that asked, by identity.
func TestCatalogInvalidateMarksExactlyOneProvider(t *testing.T) {
	ctx := context.Background()
	reg := skills.NewRegistry(skills.RegistryConfig{})
	a := &catProvider{names: []string{"a"}, watch: true}
	b := &catProvider{names: []string{"b"}, watch: true}
	// Two registrations of equal-looking providers: identity, not equality.
	b2 := &catProvider{names: []string{"b2"}, watch: true}
	reg.Register("user", a)
	reg.Register("project", b)
	reg.Register("capability:x", b2)
	reg.Snapshot(ctx)

	a.set("a", "a2")
	a.invalidate()
	assert.Equal(t, []string{"a", "a2", "b", "b2"}, catNames(reg.Snapshot(ctx)), "after invalidating a")
	assert.Equal(t, 2, a.callCount(), "calls a=%d b=%d b2=%d, want 2 1 1: only the invalidated provider is asked again", a.callCount(), b.callCount(), b2.callCount())
	assert.Equal(t, 1, b.callCount(), "calls a=%d b=%d b2=%d, want 2 1 1: only the invalidated provider is asked again", a.callCount(), b.callCount(), b2.callCount())
	assert.Equal(t, 1, b2.callCount(), "calls a=%d b=%d b2=%d, want 2 1 1: only the invalidated provider is asked again", a.callCount(), b.callCount(), b2.callCount())
}

// C4: a callback from a registration that was closed or replaced does nothing.
func TestCatalogStaleRegistrationCannotInvalidate(t *testing.T) {
	ctx := context.Background()
	reg := skills.NewRegistry(skills.RegistryConfig{})
	old := &catProvider{names: []string{"old"}, watch: true}
	g := reg.Register("project", old)
	staleInvalidate := old.invalidate
	g.Close()
	select {
	case <-g.Done():
	default:
		t.Fatal("Done not closed by Close")
	}
	fresh := &catProvider{names: []string{"new"}, watch: true}
	reg.Register("project", fresh)
	reg.Snapshot(ctx)

	var signals atomic.Int64
	cancel := reg.OnChange(func() { signals.Add(1) })
	defer cancel()
	staleInvalidate()
	reg.Snapshot(ctx)
	assert.Equal(t, 1, fresh.callCount(), "fresh provider calls: a stale callback invalidated it")
	assert.Zero(t, signals.Load(), "change signals sent by a stale callback")
	assert.Zero(t, old.callCount(), "closed provider asked")
}

// C4: an incomplete observation (or a provider error) is never cached and
// never published as an authoritative list.
func TestCatalogIncompleteNeverCached(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		breakIt func(p *catProvider)
		fix     func(p *catProvider)
	}{
		{"incomplete", func(p *catProvider) { p.incomplete = true }, func(p *catProvider) { p.incomplete = false }},
		{"error", func(p *catProvider) { p.err = errors.New("disk hiccup") }, func(p *catProvider) { p.err = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := skills.NewRegistry(skills.RegistryConfig{})
			p := &catProvider{names: []string{"a"}, watch: true}
			reg.Register("user", p)
			p.mu.Lock()
			tc.breakIt(p)
			p.mu.Unlock()
			require.False(t, reg.Snapshot(ctx).Complete, "Snapshot complete with a failing provider")
			// No invalidation happened, yet the next snapshot must ask again.
			p.mu.Lock()
			tc.fix(p)
			p.mu.Unlock()
			c := reg.Snapshot(ctx)
			assert.True(t, c.Complete, "after recovery: complete=%v %v, want complete [a]", c.Complete, catNames(c))
			assert.Equal(t, []string{"a"}, catNames(c), "after recovery: complete=%v %v, want complete [a]", c.Complete, catNames(c))
			assert.Equal(t, 2, p.callCount(), "provider calls (the incomplete answer must not be cached)")
			reg.Snapshot(ctx)
			assert.Equal(t, 2, p.callCount(), "provider calls after a complete answer (it must be cached)")
		})
	}
}

// C4: when a generation moves while providers are being asked, discovery is
// retried so the snapshot is not stale on return.
func TestCatalogGenerationRetryUnderConcurrentInvalidation(t *testing.T) {
	ctx := context.Background()
	reg := skills.NewRegistry(skills.RegistryConfig{})
	a := &catProvider{names: []string{"a-v1"}, watch: true}
	b := &catProvider{names: []string{"b"}, watch: true}
	reg.Register("user", a)
	reg.Register("project", b)
	// While b is being asked, a changes and invalidates itself (an editor
	// saving during discovery). a was already asked: without a retry the
	// snapshot would carry a-v1 and be cached as clean.
	b.during = func() {
		a.set("a-v2")
		a.invalidate()
	}
	assert.Equal(t, []string{"a-v2", "b"}, catNames(reg.Snapshot(ctx)), "Snapshot (retry after the generation moved)")
	assert.Equal(t, []string{"a-v2", "b"}, catNames(reg.Snapshot(ctx)), "cached Snapshot")
}

// C4: change listeners get a bare signal; one that panics does not affect
// the others.
func TestCatalogPanickingListenerDoesNotAffectOthers(t *testing.T) {
	reg := skills.NewRegistry(skills.RegistryConfig{})
	p := &catProvider{names: []string{"a"}, watch: true}
	reg.Register("user", p)
	var got atomic.Int64
	c1 := reg.OnChange(func() { panic("listener bug") })
	c2 := reg.OnChange(func() { got.Add(1) })
	defer c1()
	defer c2()
	p.invalidate()
	p.invalidate()
	assert.Equal(t, int64(2), got.Load(), "healthy listener called")
}

// catWriteSkill writes root/name/SKILL.md.
func catWriteSkill(t *testing.T, root, name, desc, body string) string {
	t.Helper()
	p := filepath.Join(root, name, "SKILL.md")
	writeFile(t, p, skillMD("name: "+name+"\ndescription: "+desc, body))
	return p
}

func catDirSource(root string, w skillfs.RootWatcher, fsys skillfs.FS) *skillfs.DirSource {
	if fsys == nil {
		fsys = skillfs.OSFS{}
	}
	return &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root}, Watcher: w}
}

// C4: bodies are progressive; if the loaded frontmatter name no longer
// matches, the load is refused as stale and the provider invalidated.
func TestCatalogStaleNameRefusedAndProviderInvalidated(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	file := catWriteSkill(t, root, "deploy", "Deploy things.", "v1")
	w := &skillfstest.Watcher{}
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", catDirSource(root, w, nil))
	cat := reg.Snapshot(ctx)
	s, ok := cat.Lookup("deploy")
	require.True(t, ok, "deploy not in %v", catNames(cat))

	// The file now says another name; no OS event has arrived yet.
	writeFile(t, file, skillMD("name: ship\ndescription: Deploy things.", "v2"))
	var signals atomic.Int64
	cancel := reg.OnChange(func() { signals.Add(1) })
	defer cancel()
	_, err := s.Load(ctx)
	require.ErrorIs(t, err, skills.ErrStaleSkill, "Load after rename")
	assert.NotZero(t, signals.Load(), "stale load did not invalidate the provider")
	// The catalog tool turns it into a result the model can read.
	tools, _ := skills.ToSkillTools(cat, skills.ModeCatalog, skills.Budget{})
	res, err := tools[0].Call(ctx, []byte(`{"name":"deploy"}`))
	assert.NoError(t, err, "skill tool on a stale name: %+v; want an error result", res)
	assert.True(t, res.IsError, "skill tool on a stale name: %+v; want an error result", res)
	// The next snapshot rescans the entry and publishes the new name.
	w.Fire([]string{"deploy"}, false)
	assert.Equal(t, []string{"ship"}, catNames(reg.Snapshot(ctx)), "after refresh")
}

// C4: no body cache — every load re-reads and re-parses the current file.
func TestCatalogLoadRereadsBody(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	file := catWriteSkill(t, root, "notes", "Take notes.", "first body")
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", catDirSource(root, &skillfstest.Watcher{}, nil))
	s, _ := reg.Snapshot(ctx).Lookup("notes")
	for _, body := range []string{"second body", "third body"} {
		writeFile(t, file, skillMD("name: notes\ndescription: Take notes.", body))
		c, err := s.Load(ctx)
		assert.NoError(t, err, "Load = %q, %v; want the current body %q", c.Body, err, body)
		assert.Equal(t, body, c.Body, "Load = %q, %v; want the current body %q", c.Body, err, body)
	}
}

// C4: a first-party write invalidates the affected provider synchronously:
// the very next snapshot sees it, with no OS event at all. Writes deep in a
// bundle do not invalidate.
func TestCatalogFirstPartyInvalidationVisibleAtNextSnapshot(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	catWriteSkill(t, root, "a", "A.", "")
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", catDirSource(root, &skillfstest.Watcher{}, nil)) // never fires
	other := &catProvider{names: []string{"z"}, watch: true}
	reg.Register("capability:x", other)
	reg.Snapshot(ctx)

	p := catWriteSkill(t, root, "b", "B.", "")
	require.True(t, reg.InvalidatePath(p), "InvalidatePath(new SKILL.md) = false")
	assert.Equal(t, []string{"a", "b", "z"}, catNames(reg.Snapshot(ctx)), "next snapshot")
	assert.Equal(t, 1, other.callCount(), "unrelated provider asked")

	script := filepath.Join(root, "b", "scripts", "run.sh")
	writeFile(t, script, "echo hi")
	assert.False(t, reg.InvalidatePath(script), "InvalidatePath(deep resource) = true; resources never change the catalog")
	assert.False(t, reg.InvalidatePath(filepath.Join(t.TempDir(), "x", "SKILL.md")), "InvalidatePath(path outside every root) = true")
}

// C4 (O(changed)): after one entry changes, a refresh reads only that entry.
func TestCatalogRefreshRereadsOnlyChangedEntries(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for i := range 40 {
		catWriteSkill(t, root, fmt.Sprintf("s%02d", i), "Skill.", "")
	}
	fsys := &catCountingFS{}
	w := &skillfstest.Watcher{}
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", catDirSource(root, w, fsys))
	require.Len(t, reg.Snapshot(ctx).Skills, 40, "skills")
	require.Equal(t, int64(40), fsys.reads.Swap(0), "files read by the first scan")

	catWriteSkill(t, root, "s07", "Changed.", "")
	w.Fire([]string{"s07"}, false)
	cat := reg.Snapshot(ctx)
	assert.Equal(t, int64(1), fsys.reads.Swap(0), "files read by a refresh after one edit")
	s, _ := cat.Lookup("s07")
	assert.Equal(t, "Changed.", s.Description, "s07 description")

	require.NoError(t, os.RemoveAll(filepath.Join(root, "s08")))
	w.Fire([]string{"s08"}, false)
	assert.Len(t, reg.Snapshot(ctx).Skills, 39, "skills after removing s08")
	w.Fire(nil, true)
	reg.Snapshot(ctx)
	assert.Equal(t, int64(39), fsys.reads.Load(), "files read by a rescan")
}

// C4/C7: a body-only edit changes neither membership nor the digest.
func TestCatalogBodyOnlyEditKeepsDigest(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	catWriteSkill(t, root, "a", "A.", "body 1")
	w := &skillfstest.Watcher{}
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", catDirSource(root, w, nil))
	before := reg.Snapshot(ctx)
	catWriteSkill(t, root, "a", "A.", "body 2, much longer")
	w.Fire([]string{"a"}, false)
	after := reg.Snapshot(ctx)
	assert.Equal(t, after.Digest(), before.Digest(), "digest changed on a body-only edit")
	render := func(c skills.Catalog) string {
		return catalog.Render(c.Skills, skills.Budget{}, catalog.MessageFrame()).Message
	}
	assert.Equal(t, render(after), render(before), "rendered catalog changed on a body-only edit")
	catWriteSkill(t, root, "a", "A, now described differently.", "body 2")
	w.Fire([]string{"a"}, false)
	assert.NotEqual(t, before.Digest(), reg.Snapshot(ctx).Digest(), "digest unchanged after a description change")
}

// C4: while the watcher cannot observe reliably, results are incomplete
// (never cached); when it recovers they are complete again.
func TestCatalogUnhealthyWatcherMakesIncomplete(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	catWriteSkill(t, root, "a", "A.", "")
	w := &skillfstest.Watcher{}
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", catDirSource(root, w, nil))
	w.SetHealthy(false)
	w.Fire(nil, true)
	assert.False(t, reg.Snapshot(ctx).Complete, "snapshot complete while the watcher is unhealthy")
	w.SetHealthy(true)
	w.Fire(nil, true)
	c := reg.Snapshot(ctx)
	assert.True(t, c.Complete, "after recovery: complete=%v skills=%v", c.Complete, catNames(c))
	assert.Len(t, c.Skills, 1, "after recovery: complete=%v skills=%v", c.Complete, catNames(c))
}

// C4: a missing root is a real, complete absence; a root that cannot be
// listed for another reason is incomplete.
func TestCatalogMissingRootCompleteTransientIncomplete(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "nope", "skills")
	set, err := catDirSource(missing, nil, nil).Skills(ctx)
	assert.NoError(t, err, "missing root: %+v; want complete and empty", set)
	assert.False(t, set.Incomplete, "missing root: %+v; want complete and empty", set)
	assert.Empty(t, set.Skills, "missing root: %+v; want complete and empty", set)
	flaky := catFlakyFS{err: syscall.EIO}
	set, _ = catDirSource(t.TempDir(), nil, flaky).Skills(ctx)
	assert.True(t, set.Incomplete, "listing error: incomplete=%v warnings=%v; want incomplete with a warning", set.Incomplete, set.Warnings)
	assert.NotEmpty(t, set.Warnings, "listing error: incomplete=%v warnings=%v; want incomplete with a warning", set.Incomplete, set.Warnings)
}

type catFlakyFS struct {
	skillfs.OSFS
	err error
}

func (f catFlakyFS) ReadDir(string) ([]fs.DirEntry, error) { return nil, f.err }

// catArmingWatcher is a skillfstest.Watcher that hands entries over as the real
// watcher does while it arms them (skillfs.EachWatcher); during runs then,
// before WatchRootsEach returns.
type catArmingWatcher struct {
	*skillfstest.Watcher
	during func(armed func(root int, entry string, mode fs.FileMode), onChange func([]string, bool))
}

func (w *catArmingWatcher) WatchRootsEach(roots []string, onChange func([]string, bool), armed func(int, string, fs.FileMode)) (skillfs.RootWatch, error) {
	sub, err := w.WatchRoots(roots, onChange)
	w.during(armed, onChange)
	return sub, err
}

// catReadFS says when a skill file has been read and closed, and counts reads.
type catReadFS struct {
	catCountingFS
	read chan string
}

func (c *catReadFS) Open(name string) (fs.File, error) {
	f, err := c.catCountingFS.Open(name)
	if err != nil {
		return nil, err
	}
	return catReadFile{f, func() {
		select {
		case c.read <- name:
		default: // nobody is waiting for this one
		}
	}}, nil
}

type catReadFile struct {
	fs.File
	closed func()
}

func (f catReadFile) Close() error {
	err := f.File.Close()
	f.closed()
	return err
}

// C4: entries are read while the watcher arms the rest, each once its watch
// is in place. A change reported after that read and before the first
// snapshot is in that snapshot; what nothing reported is not read twice.
func TestCatalogChangeWhileArmingReadByFirstSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		report func(onChange func([]string, bool))
		reads  int64 // files the first snapshot reads again
	}{
		{"entry", func(onChange func([]string, bool)) { onChange([]string{"a"}, false) }, 1},
		{"rescan", func(onChange func([]string, bool)) { onChange(nil, true) }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			a := catWriteSkill(t, root, "a", "Before.", "")
			catWriteSkill(t, root, "b", "Untouched.", "")
			fsys := &catReadFS{read: make(chan string, 16)}
			w := &catArmingWatcher{Watcher: &skillfstest.Watcher{}}
			w.during = func(armed func(int, string, fs.FileMode), onChange func([]string, bool)) {
				armed(0, "a", fs.ModeDir)
				armed(0, "b", fs.ModeDir)
				for read := map[string]bool{}; !read[a]; {
					select {
					case name := <-fsys.read:
						read[name] = true
					case <-time.After(5 * time.Second):
						require.FailNow(t, "a/SKILL.md was not read while arming")
					}
				}
				writeFile(t, a, skillMD("name: a\ndescription: After.", ""))
				tc.report(onChange)
			}
			reg := skills.NewRegistry(skills.RegistryConfig{})
			reg.Register("project", catDirSource(root, w, fsys))
			require.Equal(t, int64(2), fsys.reads.Swap(0), "files read while arming")

			cat := reg.Snapshot(ctx)
			s, ok := cat.Lookup("a")
			require.True(t, ok, "a is listed")
			assert.Equal(t, "After.", s.Description, "a's description")
			assert.Equal(t, tc.reads, fsys.reads.Load(), "files the first snapshot read again")
		})
	}
}

// writeFile creates path (and its parents) with content.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// skillMD renders a SKILL.md with the given frontmatter lines and body.
func skillMD(frontmatter, body string) string {
	return "---\n" + frontmatter + "\n---\n" + body
}
