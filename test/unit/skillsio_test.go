package unit_test

// Issue 10 (skills I/O): error classes when reading skill roots, the repeat
// rule, and bounded reads. The FS port is wrapped by a fault injector; the
// symlink cases use the real file system.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	skillscap "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"github.com/helios-agents/helios/workfs"
)

// ioFaultFS is the OS file system with injected errors per operation and
// path, and extra phantom entries in listings.
type ioFaultFS struct {
	skillfs.OSFS
	mu      sync.Mutex
	faults  map[string]error // "op path" -> errno
	ghosts  map[string][]fs.DirEntry
	read    atomic.Int64 // bytes read through opened files
	openedN atomic.Int64
}

func newIOFaultFS() *ioFaultFS {
	return &ioFaultFS{faults: map[string]error{}, ghosts: map[string][]fs.DirEntry{}}
}

func (f *ioFaultFS) set(op, path string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		delete(f.faults, op+" "+path)
		return
	}
	f.faults[op+" "+path] = err
}

func (f *ioFaultFS) fault(op, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.faults[op+" "+path]; err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

func (f *ioFaultFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.fault("readdir", name); err != nil {
		return nil, err
	}
	es, err := f.OSFS.ReadDir(name)
	f.mu.Lock()
	es = append(es, f.ghosts[name]...)
	f.mu.Unlock()
	return es, err
}

func (f *ioFaultFS) Stat(name string) (fs.FileInfo, error) {
	if err := f.fault("stat", name); err != nil {
		return nil, err
	}
	return f.OSFS.Stat(name)
}

func (f *ioFaultFS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.fault("lstat", name); err != nil {
		return nil, err
	}
	return f.OSFS.Lstat(name)
}

func (f *ioFaultFS) Open(name string) (fs.File, error) {
	if err := f.fault("open", name); err != nil {
		return nil, err
	}
	file, err := f.OSFS.Open(name)
	if err != nil {
		return nil, err
	}
	f.openedN.Add(1)
	return &ioCountingFile{File: file, n: &f.read}, nil
}

type ioCountingFile struct {
	fs.File
	n *atomic.Int64
}

func (c *ioCountingFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// ioGhost is a directory entry a listing shows but the disk no longer has.
type ioGhost struct {
	name string
	mode fs.FileMode
}

func (g ioGhost) Name() string               { return g.name }
func (g ioGhost) IsDir() bool                { return g.mode.IsDir() }
func (g ioGhost) Type() fs.FileMode          { return g.mode.Type() }
func (g ioGhost) Info() (fs.FileInfo, error) { return nil, fs.ErrNotExist }

// ioRoot makes a root with the skills alpha and beta.
func ioRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First.", "alpha body\n"))
	writeFile(t, filepath.Join(root, "beta", "SKILL.md"), skillMD("name: beta\ndescription: Second.", "beta body\n"))
	return root
}

func ioNames(set skills.Set) []string {
	out := []string{}
	for _, s := range set.Skills {
		out = append(out, s.Name)
	}
	return out
}

// ioWarningAbout returns the message of the warning about path (its path,
// or named in its message: a folder's warning names the file that failed),
// failing without one.
func ioWarningAbout(t *testing.T, ws []skills.Set, path string) string {
	t.Helper()
	for _, set := range ws {
		for _, w := range set.Warnings {
			if w.Path == path || strings.Contains(w.Message, path) {
				return w.Message
			}
		}
	}
	t.Fatalf("no warning names %s; warnings: %+v", path, ws[0].Warnings)
	return ""
}

// ioFaultPath is the path whose op fails in the error-class tests: beta's
// SKILL.md (open), the root (readdir), or beta turned into a symlink to a
// folder elsewhere, so that following it is the stat that fails.
func ioFaultPath(t *testing.T, root, op string) string {
	t.Helper()
	switch op {
	case "readdir":
		return root
	case "stat":
		target := filepath.Join(t.TempDir(), "beta")
		require.NoError(t, os.Rename(filepath.Join(root, "beta"), target))
		require.NoError(t, os.Symlink(target, filepath.Join(root, "beta")))
		return filepath.Join(root, "beta")
	}
	return filepath.Join(root, "beta", "SKILL.md")
}

var ioTransient = []syscall.Errno{syscall.EINTR, syscall.EAGAIN, syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EIO, syscall.ESTALE, syscall.ETIMEDOUT, syscall.EBUSY}
var ioPermanent = []syscall.Errno{syscall.ELOOP, syscall.ENAMETOOLONG, syscall.ENOTDIR, syscall.EINVAL, syscall.EACCES, syscall.EPERM, syscall.EROFS, syscall.EXDEV}

// C11: a transient error makes the result incomplete (the catalog is not
// replaced); once it heals the result is complete again.
func TestSkillsIOTransientIncompleteThenHeals(t *testing.T) {
	ctx := context.Background()
	for _, errno := range ioTransient {
		for _, op := range []string{"open", "readdir", "stat"} {
			t.Run(fmt.Sprintf("%s/%s", op, errno), func(t *testing.T) {
				root := ioRoot(t)
				fsys := newIOFaultFS()
				path := ioFaultPath(t, root, op)
				fsys.set(op, path, errno)
				reg := skills.NewRegistry(skills.RegistryConfig{})
				src := &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root}}
				reg.Register("project", src)

				cat := reg.Snapshot(ctx)
				assert.False(t, cat.Complete, "a %s failing with %s must leave the catalog incomplete", op, errno)
				set, err := src.Skills(ctx)
				require.NoError(t, err)
				msg := ioWarningAbout(t, []skills.Set{set}, path)
				assert.Contains(t, msg, errno.Error(), "the warning names the error")

				fsys.set(op, path, nil)
				cat = reg.Snapshot(ctx)
				assert.True(t, cat.Complete, "healed: complete again; warnings %+v", cat.Warnings)
				assert.Len(t, cat.Skills, 2)
			})
		}
	}
}

// C11: any other error costs only its entry: skipped with a warning naming
// the path and the error, and the catalog stays complete.
func TestSkillsIOPermanentErrorsSkipTheEntry(t *testing.T) {
	ctx := context.Background()
	errs := []error{errors.New("some error nobody classified")}
	for _, e := range ioPermanent {
		errs = append(errs, e)
	}
	for _, errno := range errs {
		for _, op := range []string{"open", "stat", "readdir"} {
			t.Run(fmt.Sprintf("%s/%s", op, errno), func(t *testing.T) {
				root := ioRoot(t)
				fsys := newIOFaultFS()
				path := ioFaultPath(t, root, op)
				fsys.set(op, path, errno)
				reg := skills.NewRegistry(skills.RegistryConfig{})
				reg.Register("project", &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root}})
				cat := reg.Snapshot(ctx)
				assert.True(t, cat.Complete, "%s failing with %v must not freeze the catalog", op, errno)
				if op != "readdir" {
					assert.Equal(t, []string{"alpha"}, ioNames(skills.Set{Skills: cat.Skills}), "every other skill still loads")
				}
				msg := ioWarningAbout(t, []skills.Set{{Warnings: cat.Warnings}}, path)
				assert.Contains(t, msg, errno.Error(), "the warning names the error")
			})
		}
	}
}

// C11: an entry listed but gone when read vanished mid-read: transient.
func TestSkillsIOVanishedEntryIsTransient(t *testing.T) {
	ctx := context.Background()
	for _, ghost := range []ioGhost{{"ghost", fs.ModeDir}, {"ghost.md", 0}} {
		t.Run(ghost.name, func(t *testing.T) {
			root := ioRoot(t)
			fsys := newIOFaultFS()
			fsys.ghosts[root] = []fs.DirEntry{ghost}
			src := &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root}}
			set, err := src.Skills(ctx)
			require.NoError(t, err)
			assert.True(t, set.Incomplete, "an entry vanishing mid-read is transient; warnings %+v", set.Warnings)
			assert.Equal(t, []string{"alpha", "beta"}, ioNames(set))

			fsys.mu.Lock()
			delete(fsys.ghosts, root)
			fsys.mu.Unlock()
			set, err = src.Skills(ctx)
			require.NoError(t, err)
			assert.False(t, set.Incomplete, "the next read sees it gone for good")
			assert.Empty(t, set.Warnings)
		})
	}
}

// C11: an error repeating identically on the same unchanged entry for 3
// consecutive reads is permanent until that entry changes.
func TestSkillsIORepeatedErrorBecomesPermanent(t *testing.T) {
	ctx := context.Background()
	t.Run("unwatched", func(t *testing.T) {
		root := ioRoot(t)
		fsys := newIOFaultFS()
		file := filepath.Join(root, "beta", "SKILL.md")
		fsys.set("open", file, syscall.EIO)
		src := &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root}}
		read := func() skills.Set {
			set, err := src.Skills(ctx)
			require.NoError(t, err)
			return set
		}
		assert.True(t, read().Incomplete, "read 1")
		assert.True(t, read().Incomplete, "read 2")
		third := read()
		assert.False(t, third.Incomplete, "read 3: the same error 3 times in a row is permanent")
		assert.Contains(t, ioWarningAbout(t, []skills.Set{third}, file), "3 reads in a row")
		assert.Equal(t, []string{"alpha"}, ioNames(third))
		assert.False(t, read().Incomplete, "read 4: still permanent while nothing changed")

		// The entry changes: its count starts over.
		later := time.Now().Add(time.Hour)
		require.NoError(t, os.Chtimes(filepath.Join(root, "beta"), later, later))
		assert.True(t, read().Incomplete, "after the entry changed the error is transient again")

		// Errors that differ from read to read never add up.
		root2 := ioRoot(t)
		file2 := filepath.Join(root2, "beta", "SKILL.md")
		src2 := &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root2}}
		for i, errno := range []syscall.Errno{syscall.EIO, syscall.EBUSY, syscall.EIO, syscall.EBUSY, syscall.EIO} {
			fsys.set("open", file2, errno)
			set, err := src2.Skills(ctx)
			require.NoError(t, err)
			assert.True(t, set.Incomplete, "read %d with %s: different errors are not a repeat", i+1, errno)
		}
	})
	t.Run("watched", func(t *testing.T) {
		root := ioRoot(t)
		fsys := newIOFaultFS()
		file := filepath.Join(root, "beta", "SKILL.md")
		fsys.set("open", file, syscall.EIO)
		w := &skillfstest.Watcher{}
		w.SetHealthy(true)
		reg := skills.NewRegistry(skills.RegistryConfig{})
		reg.Register("project", &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root}, Watcher: w})
		assert.False(t, reg.Snapshot(ctx).Complete, "snapshot 1")
		assert.False(t, reg.Snapshot(ctx).Complete, "snapshot 2")
		cat := reg.Snapshot(ctx)
		assert.True(t, cat.Complete, "snapshot 3: permanent")
		assert.Len(t, cat.Skills, 1)
		// The watcher says beta changed: its count starts over.
		w.Fire([]string{"beta"}, false)
		assert.False(t, reg.Snapshot(ctx).Complete, "after a change the error is transient again")
		fsys.set("open", file, nil)
		w.Fire([]string{"beta"}, false)
		cat = reg.Snapshot(ctx)
		assert.True(t, cat.Complete)
		assert.Len(t, cat.Skills, 2)
	})
}

// ioSymlinkRoot makes a root with alpha and three bad symlinks: a loop, a
// target with a name too long, and a path through a file.
func ioSymlinkRoot(t *testing.T, root string) map[string]string {
	t.Helper()
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First.", "body\n"))
	bad := map[string]string{
		"loop":   syscall.ELOOP.Error(),
		"long":   syscall.ENAMETOOLONG.Error(),
		"notdir": syscall.ENOTDIR.Error(),
	}
	require.NoError(t, os.Symlink("loop", filepath.Join(root, "loop")))
	require.NoError(t, os.Symlink(strings.Repeat("x", 300), filepath.Join(root, "long")))
	require.NoError(t, os.Symlink("alpha/SKILL.md/x", filepath.Join(root, "notdir")))
	return bad
}

// C11 with real symlinks, through the OS and through the guarded work-dir
// port: a loop, a name too long, a path through a file are skipped with a
// warning naming each, and the catalog is complete.
func TestSkillsIOSymlinkLoopNameTooLongNotDir(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	userRoot := filepath.Join(t.TempDir(), "skills")
	projRoot := filepath.Join(work, ".helios", "skills")
	badUser := ioSymlinkRoot(t, userRoot)
	badProj := ioSymlinkRoot(t, projRoot)
	port, err := workfs.New(work)
	require.NoError(t, err)
	proj := skillscap.New(port, nil)
	t.Cleanup(func() { proj.Close() })

	for name, p := range map[string]struct {
		prov skills.Provider
		root string
		bad  map[string]string
	}{
		"os":   {&skillfs.DirSource{FS: skillfs.OSFS{}, Source: "user", Roots: []string{userRoot}}, userRoot, badUser},
		"port": {proj, projRoot, badProj},
	} {
		t.Run(name, func(t *testing.T) {
			reg := skills.NewRegistry(skills.RegistryConfig{})
			reg.Register("x", p.prov)
			cat := reg.Snapshot(ctx)
			assert.True(t, cat.Complete, "warnings: %+v", cat.Warnings)
			require.Len(t, cat.Skills, 1)
			assert.Equal(t, "alpha", cat.Skills[0].Name)
			for entry, errText := range p.bad {
				path := filepath.Join(p.root, entry)
				found := false
				for _, w := range cat.Warnings {
					if strings.HasPrefix(w.Path, path) && strings.Contains(w.Message, errText) {
						found = true
					}
				}
				assert.True(t, found, "no warning names %s and %q; warnings %+v", path, errText, cat.Warnings)
			}
		})
	}
}

// `helios skills list --json` over a root holding `loop -> loop` is complete,
// with a warning naming the loop.
func TestSkillsIOCLIListWithSymlinkLoop(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	root := filepath.Join(work, ".helios", "skills")
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First.", "body"))
	require.NoError(t, os.Symlink("loop", filepath.Join(root, "loop")))
	r := helios(t, home, work, "--work-dir", work, "skills", "list", "--json")
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	var out struct {
		Complete bool `json:"complete"`
		Skills   []struct {
			Name string `json:"name"`
		} `json:"skills"`
		Warnings []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	assert.True(t, out.Complete, "a symlink loop must not make the catalog incomplete: %s", r.stdout)
	require.Len(t, out.Skills, 1)
	require.Len(t, out.Warnings, 1)
	assert.Equal(t, filepath.Join(root, "loop"), out.Warnings[0].Path)
	assert.Contains(t, out.Warnings[0].Message, syscall.ELOOP.Error())
}

// C11: discovery reads a SKILL.md only up to the end of its frontmatter.
func TestSkillsIODiscoveryReadsOnlyTheFrontmatter(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	body := strings.Repeat("A line of the body, which discovery never needs.\n", 40_000) // ~2 MB
	writeFile(t, filepath.Join(root, "big", "SKILL.md"), skillMD("name: big\ndescription: A big body.", body))
	fsys := newIOFaultFS()
	set, err := (&skillfs.DirSource{FS: fsys, Source: "user", Roots: []string{root}}).Skills(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"big"}, ioNames(set))
	assert.LessOrEqual(t, fsys.read.Load(), int64(16<<10), "discovery read %d bytes of a 2 MB file", fsys.read.Load())

	// A load reads it all.
	c, err := set.Skills[0].Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, body, c.Body)
}

// C11: a frontmatter larger than skills.maxFrontmatter, or never closed, is
// skipped with a warning naming the limit; the other skills load.
func TestSkillsIOFrontmatterLimit(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	long := "name: long\ndescription: " + strings.Repeat("word ", 400) // ~2 KB
	writeFile(t, filepath.Join(root, "long", "SKILL.md"), skillMD(long, "body\n"))
	writeFile(t, filepath.Join(root, "ok", "SKILL.md"), skillMD("name: ok\ndescription: Fine.", "body\n"))
	unclosed := "---\nname: unclosed\ndescription: never closed\n" + strings.Repeat("more: text\n", 20_000) // ~220 KB
	writeFile(t, filepath.Join(root, "unclosed", "SKILL.md"), unclosed)

	fsys := newIOFaultFS()
	set, err := (&skillfs.DirSource{FS: fsys, Source: "user", Roots: []string{root}, Limits: skillfs.Limits{MaxFrontmatter: 1024}}).Skills(ctx)
	require.NoError(t, err)
	assert.False(t, set.Incomplete)
	assert.Equal(t, []string{"ok"}, ioNames(set))
	for _, name := range []string{"long", "unclosed"} {
		msg := ioWarningAbout(t, []skills.Set{set}, filepath.Join(root, name, "SKILL.md"))
		assert.Contains(t, msg, "1024", "the warning names the limit")
		assert.Contains(t, msg, "skills.maxFrontmatter")
	}
	assert.LessOrEqual(t, fsys.read.Load(), int64(3*1024+2*8<<10), "reads stop at the limit")

	// The default limit (64 KiB) takes the 2 KB frontmatter, not the
	// unclosed one, and names 65536.
	fsys = newIOFaultFS()
	set, err = (&skillfs.DirSource{FS: fsys, Source: "user", Roots: []string{root}}).Skills(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"long", "ok"}, ioNames(set))
	assert.Contains(t, ioWarningAbout(t, []skills.Set{set}, filepath.Join(root, "unclosed", "SKILL.md")), "65536")
	assert.Less(t, fsys.read.Load(), int64(64<<10+16<<10), "the unclosed 220 KB frontmatter is read only up to the limit")
}

// C11: a load refuses a file over skills.maxFileSize with an error the model
// reads, naming the limit.
func TestSkillsIOLoadLimit(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "big", "SKILL.md"), skillMD("name: big\ndescription: Too big to load.", strings.Repeat("x", 10_000)))
	writeFile(t, filepath.Join(root, "small", "SKILL.md"), skillMD("name: small\ndescription: Fits.", "small body\n"))
	set, err := (&skillfs.DirSource{FS: skillfs.OSFS{}, Source: "user", Roots: []string{root}, Limits: skillfs.Limits{MaxFileSize: 4096}}).Skills(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"big", "small"}, ioNames(set), "discovery lists it: only the load is bounded")

	_, err = set.Skills[0].Load(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, skillfs.ErrTooLarge)
	assert.Contains(t, err.Error(), "4096")
	assert.Contains(t, err.Error(), "skills.maxFileSize")
	c, err := set.Skills[1].Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, "small body\n", c.Body)

	// What the model gets from the skill tool: an error result naming the limit.
	tools, _ := skills.ToSkillTools(skills.Catalog{Skills: set.Skills}, skills.ModeCatalog, skills.Budget{})
	require.Equal(t, skills.SkillToolName, tools[0].Name)
	res, err := tools[0].Call(ctx, json.RawMessage(`{"name":"big"}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "skills.maxFileSize")
}
