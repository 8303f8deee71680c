package skillfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/frontmatter"
	"github.com/helios-agents/helios/kernel/skills"
)

// FS is what a skills root is read through. Paths are absolute. Stat follows
// symlinks. The user-level source uses OSFS; project skills use the guarded
// work-dir port, which refuses anything that resolves outside the work dir.
type FS interface {
	ReadDir(name string) ([]fs.DirEntry, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	// Open opens a file for reading, following symlinks. It must not block
	// on a FIFO or a device (open non-blocking): the reader checks that it
	// got a regular file before reading, and reads only as much as it needs
	// (a frontmatter, a bounded body).
	Open(name string) (fs.File, error)
}

// OSFS reads the local file system directly.
type OSFS struct{}

// ReadDir is os.ReadDir.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Stat is os.Stat.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// Lstat is os.Lstat.
func (OSFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// Open opens a file for reading without blocking on a FIFO or a device.
func (OSFS) Open(name string) (fs.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err // never a nil *os.File inside fs.File
	}
	return f, nil
}

// ReadFile reads a whole file (not part of FS: skills never read unbounded).
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// Default limits (see Limits).
const (
	DefaultMaxFrontmatter = 64 << 10
	DefaultMaxFileSize    = 8 << 20
)

// Limits bounds every read of a skill file. The zero value is the defaults.
type Limits struct {
	// MaxFrontmatter is how many bytes discovery reads from the start of a
	// SKILL.md to find the end of its frontmatter; discovery never reads the
	// body. A frontmatter not closed within it is skipped with a warning
	// naming the limit. Zero means DefaultMaxFrontmatter (64 KiB); config
	// key skills.maxFrontmatter.
	MaxFrontmatter int
	// MaxFileSize is the largest skill file a load reads; a larger one is
	// refused with an error the model reads. Zero means DefaultMaxFileSize
	// (8 MiB); config key skills.maxFileSize.
	MaxFileSize int64
}

func (l Limits) frontmatter() int {
	if l.MaxFrontmatter <= 0 {
		return DefaultMaxFrontmatter
	}
	return l.MaxFrontmatter
}

func (l Limits) fileSize() int64 {
	if l.MaxFileSize <= 0 {
		return DefaultMaxFileSize
	}
	return l.MaxFileSize
}

// RootWatcher watches skills roots for a DirSource. kernel/watch provides
// one (adapted by package kernel); tests may provide their own.
type RootWatcher interface {
	// WatchRoots calls onChange, never concurrently, when something in the
	// roots changes: the names of the root entries that changed, or rescan
	// when everything must be read again.
	WatchRoots(roots []string, onChange func(entries []string, rescan bool)) (RootWatch, error)
}

// RootWatch is one running watch.
type RootWatch interface {
	// Touch says the watch was just observed (it may re-arm an evicted one).
	Touch()
	// Healthy is false while changes may be missed; results are then
	// incomplete.
	Healthy() bool
	Close()
}

// DirSource provides the skills found in a list of roots, read through FS.
// Earlier roots win over later ones; inside a root, folders are taken by code
// point order of their names, and the first of two equal names wins.
//
// Without a Watcher every call scans every root. With one, the registry can
// trust the last scan until the watcher reports a change, and a rescan
// re-reads only the root entries that changed: an edit in a root of 10,000
// skills costs one skill's read, not 10,000.
//
// Discovery reads only the head of each file, up to the end of its
// frontmatter (Limits), and reads the entries of a root concurrently, at most
// GOMAXPROCS at a time; the result, its order and its warnings are those of
// a one-by-one read.
//
// A read error that a retry can heal (IsTransient) makes the result
// incomplete; any other costs only its entry, skipped with a warning. An
// error that repeats identically on an unchanged entry for 3 consecutive
// reads is taken as permanent too, until the entry changes.
type DirSource struct {
	// FS reads the roots: OSFS, or the guarded work-dir port.
	FS     FS
	Source string   // label: "user", "project", ...
	Roots  []string // absolute, or relative to the process's working directory
	// Watcher, when set, watches the roots (see Watch).
	Watcher RootWatcher
	// Limits bounds the reads; the zero value is the defaults.
	Limits Limits

	mu     sync.Mutex
	state  []*rootState    // the last scan, one per root; nil before the first
	dirty  map[string]bool // root entries changed since the last scan
	rescan bool            // everything must be read again
	sub    RootWatch
	errs   map[string]errRecord // last transient error by entry (or root) path

	// The last answer, patched in place of a rebuild when an edit keeps a
	// skill's name (see patch); nil when it must be assembled again.
	last       *skills.Set
	index      map[string]int  // skill name -> index in last.Skills
	incomplete map[string]bool // entries whose last read failed transiently
	invalidate func()          // the registration's, from Watch
}

var (
	_ skills.Provider    = (*DirSource)(nil)
	_ skills.Watchable   = (*DirSource)(nil)
	_ skills.PathWatcher = (*DirSource)(nil)
)

// rootState is what the last scan saw in one root.
type rootState struct {
	dir        string // absolute
	entries    map[string]entryState
	names      []string           // the keys of entries, by code point (kept sorted, not re-sorted)
	warnings   []contract.Warning // about the root itself
	incomplete bool
}

// entryState is what the last scan made of one child of a root.
type entryState struct {
	skill      *skills.Skill
	warnings   []contract.Warning
	incomplete bool
	transient  string // the transient error's text, for the repeat rule
}

// fail records that reading the entry failed: a warning naming path and the
// error, and, when a retry can heal it, an incomplete result.
func (st *entryState) fail(source, path, what string, err error) {
	st.warnings = append(st.warnings, contract.Warning{Source: source, Path: path, Message: fmt.Sprintf("%s: %v", what, err)})
	if IsTransient(err) {
		st.incomplete = true
		st.transient = path + ": " + err.Error()
	}
}

// Skills returns the skills of every root. A missing root is an empty,
// complete result; a root that cannot be listed for another reason makes the
// result incomplete when a retry can heal it.
func (d *DirSource) Skills(ctx context.Context) (skills.Set, error) {
	set, sub, err := d.scan(ctx)
	if err != nil || sub == nil {
		return set, err
	}
	// Outside d.mu: touching may re-arm an evicted watch, whose callback
	// takes d.mu.
	sub.Touch()
	if !sub.Healthy() {
		set.Incomplete = true
		warn(&set, d.Source, strings.Join(d.Roots, ", "), "the file watcher cannot observe these roots reliably right now; the list may be out of date")
	}
	return set, nil
}

func (d *DirSource) scan(ctx context.Context) (skills.Set, RootWatch, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return skills.Set{}, nil, err
	}
	if d.sub == nil || d.state == nil || d.rescan {
		d.state = d.scanAll(ctx)
		d.rescan, d.dirty, d.last = false, nil, nil
	} else if len(d.dirty) > 0 {
		names := make([]string, 0, len(d.dirty))
		for name := range d.dirty {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			d.rereadEntry(ctx, name)
		}
		d.dirty = nil
	}
	if ctx.Err() != nil {
		d.rescan = true // the scan was cut short; never trust it
		return skills.Set{}, nil, ctx.Err()
	}
	if d.last == nil {
		d.assemble()
	}
	set := *d.last
	set.Guarded, set.Frozen = d.invalidate != nil, true
	// What failed transiently is read again next time.
	for name := range d.incomplete {
		d.markDirty(name)
	}
	for _, r := range d.state {
		if r.incomplete {
			d.rescan = true
		}
	}
	return set, d.sub, nil
}

func (d *DirSource) markDirty(name string) {
	if d.dirty == nil {
		d.dirty = map[string]bool{}
	}
	d.dirty[name] = true
}

// scanAll reads every root from scratch.
func (d *DirSource) scanAll(ctx context.Context) []*rootState {
	prev := d.errs
	d.errs = map[string]errRecord{} // only what fails in this scan counts on
	out := make([]*rootState, 0, len(d.Roots))
	for _, root := range d.Roots {
		out = append(out, d.scanRoot(ctx, root, prev))
	}
	return out
}

// scanRoot reads the direct children of one root, concurrently, and records
// them by name. prev holds the errors of the previous scan.
func (d *DirSource) scanRoot(ctx context.Context, root string, prev map[string]errRecord) *rootState {
	r := &rootState{dir: root, entries: map[string]entryState{}}
	abs, err := filepath.Abs(root)
	if err != nil {
		r.warnings = append(r.warnings, contract.Warning{Source: d.Source, Path: root, Message: fmt.Sprintf("cannot make the root absolute: %v", err)})
		r.incomplete = true
		return r
	}
	r.dir = abs
	entries, err := d.FS.ReadDir(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r // a real, complete absence
	case err != nil:
		st := entryState{}
		st.fail(d.Source, abs, "cannot list the skills root", err)
		d.settle(abs, &st, prev)
		r.warnings, r.incomplete = st.warnings, st.incomplete
		return r
	}
	entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return strings.HasPrefix(e.Name(), ".") })
	open, done := rootOpener(d.FS, abs)
	results := d.readEntries(ctx, open, abs, entries)
	done()
	if ctx.Err() != nil {
		r.incomplete = true
		return r
	}
	r.entries = make(map[string]entryState, len(entries))
	r.names = make([]string, len(entries))
	for i, e := range entries {
		st := results[i]
		if st.transient != "" { // d.errs holds nothing else of this root yet
			d.settle(filepath.Join(abs, e.Name()), &st, prev)
		}
		r.entries[e.Name()] = st
		r.names[i] = e.Name()
	}
	if !slices.IsSorted(r.names) { // ReadDir sorts by name; an FS may not
		slices.Sort(r.names)
	}
	return r
}

// readEntries reads entries of the root dir concurrently, at most GOMAXPROCS
// at a time, each result at its entry's index, so that what is assembled
// from them does not depend on scheduling.
func (d *DirSource) readEntries(ctx context.Context, open opener, dir string, entries []fs.DirEntry) []entryState {
	prefix := strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator) // dir is clean
	out := make([]entryState, len(entries))
	workers := min(runtime.GOMAXPROCS(0), len(entries))
	if workers <= 1 {
		for i, e := range entries {
			if ctx.Err() != nil {
				break
			}
			out[i] = d.readEntrySafe(ctx, open, prefix+e.Name(), e)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(entries) || ctx.Err() != nil {
					return
				}
				out[i] = d.readEntrySafe(ctx, open, prefix+entries[i].Name(), entries[i])
			}
		})
	}
	wg.Wait()
	return out
}

// readEntrySafe is readEntry with a panic turned into a warning: a worker's
// panic would otherwise take the process down.
func (d *DirSource) readEntrySafe(ctx context.Context, open opener, path string, e fs.DirEntry) (st entryState) {
	defer func() {
		if v := recover(); v != nil {
			st = entryState{}
			st.fail(d.Source, path, "cannot read; skipped", fmt.Errorf("panic: %v", v))
		}
	}()
	return d.readEntry(ctx, open, path, e)
}

// settle applies the repeat rule to an entry's (or a root's) read: a
// transient error seen identically on the unchanged entry for repeatLimit
// consecutive reads is taken as permanent. prev holds the earlier records.
func (d *DirSource) settle(path string, st *entryState, prev map[string]errRecord) {
	if st.transient == "" {
		delete(d.errs, path)
		return
	}
	stamp := stampOf(d.FS, path)
	rec, ok := prev[path]
	if ok && rec.msg == st.transient && rec.stamp == stamp {
		rec.count++
	} else {
		rec = errRecord{msg: st.transient, stamp: stamp, count: 1}
	}
	if d.errs == nil {
		d.errs = map[string]errRecord{}
	}
	d.errs[path] = rec
	if rec.count >= repeatLimit {
		st.incomplete = false
		if n := len(st.warnings); n > 0 {
			st.warnings[n-1].Message += fmt.Sprintf(" (the same error %d reads in a row: taken as permanent until this entry changes)", rec.count)
		}
	}
}

// forgetErrors drops the repeat records of a changed entry of every root.
func (d *DirSource) forgetErrors(name string) {
	for _, root := range d.Roots {
		if dir, err := filepath.Abs(root); err == nil {
			delete(d.errs, filepath.Join(dir, name))
		}
	}
}

// setEntry records an entry, keeping names sorted in O(log n) search and
// one copy.
func (r *rootState) setEntry(name string, e entryState) {
	if _, ok := r.entries[name]; !ok {
		i, _ := slices.BinarySearch(r.names, name)
		r.names = slices.Insert(r.names, i, name)
	}
	r.entries[name] = e
}

func (r *rootState) deleteEntry(name string) {
	if _, ok := r.entries[name]; !ok {
		return
	}
	delete(r.entries, name)
	if i, ok := slices.BinarySearch(r.names, name); ok {
		r.names = slices.Delete(r.names, i, i+1)
	}
}

// rereadEntry reads one child of every root again, after a change, and
// patches the last answer when it can (see patch).
func (d *DirSource) rereadEntry(ctx context.Context, name string) {
	if strings.HasPrefix(name, ".") || strings.ContainsRune(name, filepath.Separator) {
		return
	}
	incomplete := false
	for _, r := range d.state {
		path := filepath.Join(r.dir, name)
		old, had := r.entries[name]
		fi, err := d.FS.Lstat(path)
		var st entryState
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if had {
				r.deleteEntry(name)
				d.last = nil // membership changed: assemble again
			}
			delete(d.errs, path)
			continue
		case err != nil:
			st.fail(d.Source, path, "cannot read; skipped", err)
		default:
			st = d.readEntrySafe(ctx, fsOpener{d.FS}, path, fs.FileInfoToDirEntry(fi))
		}
		d.settle(path, &st, d.errs)
		r.setEntry(name, st)
		incomplete = incomplete || st.incomplete
		if !had || !d.patch(old, st) {
			d.last = nil
		}
	}
	if incomplete {
		if d.incomplete == nil {
			d.incomplete = map[string]bool{}
		}
		d.incomplete[name] = true
	} else {
		delete(d.incomplete, name)
	}
}

// patch updates the last answer for an entry re-read from old to st, and
// reports whether it could: when neither read failed, the entry's warnings
// are the same and its skill kept its name (or it has none either time) —
// an edit of a description or a body. Then the answer is the last one with
// that one skill replaced (in a copy: answers already returned stay as they
// were); nothing is re-indexed or rebuilt. Anything else is assembled again.
func (d *DirSource) patch(old, st entryState) bool {
	switch {
	case d.last == nil || old.incomplete || st.incomplete || !slices.Equal(old.warnings, st.warnings):
		return false
	case old.skill == nil && st.skill == nil:
		return true
	case old.skill == nil || st.skill == nil || old.skill.Name != st.skill.Name:
		return false
	}
	i, ok := d.index[old.skill.Name]
	if !ok {
		return false
	}
	if cur := d.last.Skills[i]; cur.File != old.skill.File || cur.BaseDir != old.skill.BaseDir {
		// The entry's skill lost to an earlier one of the same name; the
		// warning saying so names the same files as before.
		return true
	}
	patched := slices.Clone(d.last.Skills)
	patched[i] = *st.skill
	d.last = &skills.Set{Skills: slices.Clip(patched), Warnings: d.last.Warnings, Incomplete: d.last.Incomplete}
	return true
}

// assemble builds the provider's answer from the state: roots in order,
// entries by code point, the first skill of each name. It keeps the answer,
// the index of its names and the entries that failed transiently.
func (d *DirSource) assemble() {
	var set skills.Set
	total := 0
	for _, r := range d.state {
		total += len(r.names)
	}
	set.Skills = make([]skills.Skill, 0, total)
	seen := make(map[string]int, total) // name -> index in set.Skills
	d.incomplete = map[string]bool{}
	for _, r := range d.state {
		set.Warnings = append(set.Warnings, r.warnings...)
		if r.incomplete {
			set.Incomplete = true
		}
		for _, n := range r.names {
			e := r.entries[n]
			set.Warnings = append(set.Warnings, e.warnings...)
			if e.incomplete {
				set.Incomplete = true
				d.incomplete[n] = true
			}
			if e.skill == nil {
				continue
			}
			s := e.skill
			if first, dup := seen[s.Name]; dup {
				warn(&set, d.Source, s.File, fmt.Sprintf("skill %q is already provided by %s; keeping that one and skipping %s", s.Name, set.Skills[first].Origin(), s.Origin()))
				continue
			}
			seen[s.Name] = len(set.Skills)
			set.Skills = append(set.Skills, *s)
		}
	}
	// Clipped: a caller appending (a warning) must not write into the
	// arrays later answers share.
	set.Skills, set.Warnings = slices.Clip(set.Skills), slices.Clip(set.Warnings)
	d.last, d.index = &set, seen
}

// Watch starts the watcher on the roots; each change marks the entries it
// names (or everything) for re-reading and calls invalidate. Without a
// Watcher it returns ErrNotWatched and the registry asks again every time.
func (d *DirSource) Watch(invalidate func(), done <-chan struct{}) error {
	d.mu.Lock()
	d.invalidate = invalidate // for loads that find a stale name
	d.mu.Unlock()
	if d.Watcher == nil {
		return skills.ErrNotWatched
	}
	roots := make([]string, len(d.Roots))
	for i, r := range d.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return fmt.Errorf("watch %s: %w", r, err)
		}
		roots[i] = abs
	}
	sub, err := d.Watcher.WatchRoots(roots, func(entries []string, rescan bool) {
		d.mu.Lock()
		if rescan {
			d.rescan = true
		}
		for _, e := range entries {
			d.markDirty(e)
			d.forgetErrors(e)
		}
		d.mu.Unlock()
		invalidate()
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", strings.Join(roots, ", "), err)
	}
	d.mu.Lock()
	d.sub = sub
	d.state = nil
	d.mu.Unlock()
	go func() {
		<-done
		sub.Close()
	}()
	return nil
}

// PathChanged is the first-party write entry point: path was just written,
// created or removed by the agent's own tools. It reports whether the change
// can affect this source's catalog, marking what to re-read; a file deep in
// a bundle (scripts/, references/) cannot.
func (d *DirSource) PathChanged(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, root := range d.Roots {
		rootAbs, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rootAbs, abs)
		if err != nil {
			continue
		}
		if rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			// The root itself, or a folder above it, changed.
			if rel == "." || strings.HasPrefix(rootAbs, abs+string(filepath.Separator)) {
				d.rescan = true
				return true
			}
			continue
		}
		parts := strings.Split(rel, string(filepath.Separator))
		switch {
		case strings.HasPrefix(parts[0], "."):
			continue
		case len(parts) == 1,
			len(parts) == 2 && (parts[1] == "SKILL.md" || parts[1] == "skill.md"):
			d.markDirty(parts[0])
			d.forgetErrors(parts[0])
			return true
		}
	}
	return false
}

// warn adds a warning about path to s.
func warn(s *skills.Set, source, path, msg string) {
	s.Warnings = append(s.Warnings, contract.Warning{Source: source, Path: path, Message: msg})
}

// readEntry turns one child of a root into a skill, or explains why not. It
// reads only the head of the skill file: up to the end of its frontmatter.
func (d *DirSource) readEntry(ctx context.Context, open opener, path string, e fs.DirEntry) entryState {
	var st entryState
	warn := func(p, msg string) {
		st.warnings = append(st.warnings, contract.Warning{Source: d.Source, Path: p, Message: msg})
	}
	mode := e.Type()
	if mode&fs.ModeSymlink != 0 {
		fi, err := d.FS.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			warn(path, "broken symlink; skipped")
			return st
		case err != nil:
			st.fail(d.Source, path, "cannot follow symlink; skipped", err)
			return st
		}
		mode = fi.Mode().Type()
	}
	var file, baseDir, folder string
	var f io.ReadCloser
	switch {
	case mode.IsDir():
		var err error
		f, file, err = openSkillFile(open, d.FS, path)
		if err != nil {
			if errors.Is(err, errNoSkillFile) {
				warn(path, "folder has no SKILL.md; skipped")
			} else {
				st.fail(d.Source, path, "cannot read the skill folder; skipped", err)
			}
			return st
		}
		baseDir, folder = path, filepath.Base(path)
	case mode.IsRegular() && strings.HasSuffix(path, ".md"):
		file, baseDir, folder = path, filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".md")
		var err error
		if f, err = open.openRegular(file); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				err = fmt.Errorf("%w: %w", errVanished, err)
			}
			st.fail(d.Source, file, "cannot read; skipped", err)
			return st
		}
	case mode.IsRegular():
		return st // scripts or notes beside flat skills are not skills
	default:
		warn(path, fmt.Sprintf("not a regular file or directory (%s); skipped", mode))
		return st
	}

	limit := d.Limits.frontmatter()
	bufp := headBufs.Get().(*[]byte)
	defer putHeadBuf(bufp)
	data, end, over, err := readHead(f, limit, *bufp)
	*bufp = data
	f.Close()
	switch {
	case err != nil:
		st.fail(d.Source, file, "cannot read; skipped", err)
		return st
	case over:
		warn(file, fmt.Sprintf("frontmatter is not closed within the first %d bytes (the limit skills.maxFrontmatter); skipped", limit))
		return st
	}
	meta, _, findings := parseSkill(file, folder, data, end)
	usable := true
	for _, f := range findings {
		msg := f.Message
		if f.Severity == Unusable {
			usable = false
			msg += "; skipped"
		}
		warn(file, msg)
	}
	if !usable {
		return st
	}
	fsys, maxSize, entry, name := d.FS, d.Limits.fileSize(), filepath.Base(path), meta.Name
	st.skill = &skills.Skill{
		Name:                   meta.Name,
		Description:            meta.Description,
		Source:                 d.Source,
		BaseDir:                baseDir,
		File:                   file,
		DisableModelInvocation: meta.DisableModelInvocation,
		Load: func(ctx context.Context) (skills.Content, error) {
			c, err := loadFile(ctx, fsys, file, folder, maxSize)
			return skills.CheckFresh(c, err, name, func() { d.stale(entry) })
		},
	}
	return st
}

// stale marks an entry whose load found another name to be read again and
// invalidates the registration, so the next snapshot publishes the new name.
func (d *DirSource) stale(entry string) {
	d.mu.Lock()
	d.markDirty(entry)
	invalidate := d.invalidate
	d.mu.Unlock()
	if invalidate != nil {
		invalidate()
	}
}

var (
	errNoSkillFile = errors.New("no SKILL.md")
	errNotRegular  = errors.New("not a regular file")
)

// ErrTooLarge is wrapped by a load refusing a file over Limits.MaxFileSize.
var ErrTooLarge = errors.New("skill file is too large")

// opener opens the skill files of a discovery, each checked to be a regular
// file (a FIFO or a device would block or never end).
type opener interface {
	openRegular(file string) (io.ReadCloser, error)
}

// fsOpener opens through an FS.
type fsOpener struct{ fsys FS }

func (o fsOpener) openRegular(file string) (io.ReadCloser, error) { return openRegular(o.fsys, file) }

// openSkillFile opens dir/SKILL.md, or dir/skill.md when there is no
// SKILL.md. A folder that is gone by now vanished mid-read.
func openSkillFile(open opener, fsys FS, dir string) (io.ReadCloser, string, error) {
	var firstErr error
	for _, name := range []string{"SKILL.md", "skill.md"} {
		p := dir + string(filepath.Separator) + name // dir is clean, and never the root of the file system
		f, err := open.openRegular(p)
		if err == nil {
			return f, p, nil
		}
		if errors.Is(err, errNotRegular) {
			return nil, "", fmt.Errorf("%s: %w", p, err)
		}
		if !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, "", firstErr
	}
	if _, err := fsys.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("%s: %w", dir, errVanished)
	}
	return nil, "", errNoSkillFile
}

// openRegular opens file and checks that it is a regular file (a FIFO or a
// device would block or never end).
func openRegular(fsys FS, file string) (fs.File, error) {
	f, err := fsys.Open(file)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, errNotRegular
	}
	return f, nil
}

// headChunk is the first read of a file's head: most frontmatter, and the
// first 8 KiB the binary check looks at, fit in it.
const headChunk = 8 << 10

// headBufs recycles the buffers of discovery's reads: nothing parsed keeps a
// reference to them (the parser copies what it keeps).
var headBufs = sync.Pool{New: func() any { b := make([]byte, 0, headChunk); return &b }}

func putHeadBuf(b *[]byte) {
	if cap(*b) > headChunk {
		return // a long frontmatter's buffer: let it go
	}
	*b = (*b)[:0]
	headBufs.Put(b)
}

// readHead reads the start of a skill file into buf until its frontmatter is
// known to end (frontmatter.HeadLen), at most limit bytes. end is where the
// frontmatter (with its closing line) ends in data; the bytes after it, up
// to what the last read returned, are the start of the body. over reports
// that limit bytes were read and the frontmatter is still open.
func readHead(r io.Reader, limit int, buf []byte) (data []byte, end int, over bool, err error) {
	buf = buf[:0]
	if cap(buf) == 0 {
		buf = make([]byte, 0, min(limit, headChunk))
	}
	if cap(buf) > limit {
		buf = buf[:0:limit]
	}
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= limit {
				return buf, 0, true, nil
			}
			grown := make([]byte, len(buf), min(2*cap(buf), limit))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			return buf, 0, false, err
		}
		if end, done := frontmatter.HeadLen(buf, eof); done {
			return buf, end, false, nil
		}
	}
}

// ErrFrontmatterTooLarge is wrapped by ReadHead's error for a frontmatter
// not closed within the limit.
var ErrFrontmatterTooLarge = errors.New("frontmatter is too large")

// ReadHead reads the start of a regular file through fsys up to the end of
// its frontmatter, at most limit bytes (zero or less: DefaultMaxFrontmatter),
// for a reader that needs only the frontmatter (EXTENSION.md). A frontmatter
// still open after limit bytes is an error naming the limit.
func ReadHead(fsys FS, file string, limit int) ([]byte, error) {
	limit = Limits{MaxFrontmatter: limit}.frontmatter()
	f, err := openRegular(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	defer f.Close()
	data, _, over, err := readHead(f, limit, nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", file, err)
	case over:
		return nil, fmt.Errorf("read %s: %w: not closed within the first %d bytes (the limit skills.maxFrontmatter)", file, ErrFrontmatterTooLarge, limit)
	}
	return data, nil
}

// LoadFile reads and parses a skill file afresh, refusing a file over
// DefaultMaxFileSize: no body is ever cached, so a load always sees the file
// as it is now.
func LoadFile(ctx context.Context, fsys FS, file, folder string) (skills.Content, error) {
	return loadFile(ctx, fsys, file, folder, DefaultMaxFileSize)
}

func loadFile(ctx context.Context, fsys FS, file, folder string, maxSize int64) (skills.Content, error) {
	if err := ctx.Err(); err != nil {
		return skills.Content{}, err
	}
	data, err := readBounded(fsys, file, maxSize)
	if err != nil {
		return skills.Content{}, fmt.Errorf("load skill %s: %w", file, err)
	}
	meta, body, findings := ParseSkill(file, folder, data)
	for _, f := range findings {
		if f.Severity == Unusable {
			return skills.Content{}, fmt.Errorf("load skill %s: %s", file, f.Message)
		}
	}
	return skills.Content{Name: meta.Name, Body: body}, nil
}

// readBounded reads a whole regular file of at most maxSize bytes.
func readBounded(fsys FS, file string, maxSize int64) ([]byte, error) {
	f, err := openRegular(fsys, file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func(size string) error {
		return fmt.Errorf("%w: the file is %s, over the limit of %d bytes (skills.maxFileSize); shorten it or split it into files the skill references", ErrTooLarge, size, maxSize)
	}
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
		if size > maxSize {
			return nil, tooLarge(fmt.Sprintf("%d bytes", size))
		}
	}
	// The file may grow between Stat and the read: read one byte past the
	// limit to know.
	buf := bytes.NewBuffer(make([]byte, 0, min(size, maxSize)+1))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxSize+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > maxSize {
		return nil, tooLarge("more than that")
	}
	return buf.Bytes(), nil
}
