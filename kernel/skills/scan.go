package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/workfs"
)

// FS is what a skills root is read through. Paths are absolute. Stat follows
// symlinks. The user-level source uses OSFS; project skills use the guarded
// work-dir port, which refuses anything that resolves outside the work dir.
type FS interface {
	ReadDir(name string) ([]fs.DirEntry, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
}

// OSFS reads the local file system directly.
type OSFS struct{}

// ReadDir is os.ReadDir.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Stat is os.Stat.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// Lstat is os.Lstat.
func (OSFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// ReadFile is os.ReadFile.
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

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
type DirSource struct {
	// FS reads the roots: OSFS, or the guarded work-dir port.
	FS     FS
	Source string   // label: "user", "project", ...
	Roots  []string // absolute, or relative to the process's working directory
	// Watcher, when set, watches the roots (see Watch).
	Watcher RootWatcher

	mu     sync.Mutex
	state  []*rootState    // the last scan, one per root; nil before the first
	dirty  map[string]bool // root entries changed since the last scan
	rescan bool            // everything must be read again
	sub    RootWatch
}

var (
	_ Provider    = (*DirSource)(nil)
	_ Watchable   = (*DirSource)(nil)
	_ PathWatcher = (*DirSource)(nil)
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
	skill      *Skill
	warnings   []contract.Warning
	incomplete bool
}

// Skills returns the skills of every root. A missing root is an empty,
// complete result; a root that cannot be listed for another reason makes the
// result incomplete.
func (d *DirSource) Skills(ctx context.Context) (Set, error) {
	set, sub, err := d.scan(ctx)
	if err != nil || sub == nil {
		return set, err
	}
	// Outside d.mu: touching may re-arm an evicted watch, whose callback
	// takes d.mu.
	sub.Touch()
	if !sub.Healthy() {
		set.Incomplete = true
		set.warn(d.Source, strings.Join(d.Roots, ", "), "the file watcher cannot observe these roots reliably right now; the list may be out of date")
	}
	return set, nil
}

func (d *DirSource) scan(ctx context.Context) (Set, RootWatch, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Set{}, nil, err
	}
	if d.sub == nil || d.state == nil || d.rescan {
		d.state = d.scanAll(ctx)
		d.rescan, d.dirty = false, nil
	} else if len(d.dirty) > 0 {
		for name := range d.dirty {
			d.rereadEntry(ctx, name)
		}
		d.dirty = nil
	}
	if ctx.Err() != nil {
		d.rescan = true // the scan was cut short; never trust it
		return Set{}, nil, ctx.Err()
	}
	set := d.assemble()
	// What failed transiently is read again next time.
	for _, r := range d.state {
		for name, e := range r.entries {
			if e.incomplete {
				d.markDirty(name)
			}
		}
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
	out := make([]*rootState, 0, len(d.Roots))
	for _, root := range d.Roots {
		out = append(out, d.scanRoot(ctx, root))
	}
	return out
}

// scanRoot reads the direct children of one root.
func (d *DirSource) scanRoot(ctx context.Context, root string) *rootState {
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
		r.warnings = append(r.warnings, contract.Warning{Source: d.Source, Path: abs, Message: fmt.Sprintf("cannot list the skills root: %v", err)})
		r.incomplete = !isPermanent(err)
		return r
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			r.incomplete = true
			return r
		}
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r.entries[e.Name()] = d.readEntry(ctx, filepath.Join(abs, e.Name()), e)
	}
	r.sortNames()
	return r
}

func (r *rootState) sortNames() {
	r.names = r.names[:0]
	for n := range r.entries {
		r.names = append(r.names, n)
	}
	slices.Sort(r.names)
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

// rereadEntry reads one child of every root again, after a change.
func (d *DirSource) rereadEntry(ctx context.Context, name string) {
	if strings.HasPrefix(name, ".") || strings.ContainsRune(name, filepath.Separator) {
		return
	}
	for _, r := range d.state {
		path := filepath.Join(r.dir, name)
		fi, err := d.FS.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.deleteEntry(name)
		case err != nil:
			r.setEntry(name, entryState{incomplete: !isPermanent(err), warnings: []contract.Warning{{Source: d.Source, Path: path, Message: fmt.Sprintf("cannot read; skipped: %v", err)}}})
		default:
			r.setEntry(name, d.readEntry(ctx, path, fs.FileInfoToDirEntry(fi)))
		}
	}
}

// assemble builds the provider's answer from the state: roots in order,
// entries by code point, the first skill of each name.
func (d *DirSource) assemble() Set {
	var set Set
	total := 0
	for _, r := range d.state {
		total += len(r.names)
	}
	set.Skills = make([]Skill, 0, total)
	seen := make(map[string]int, total) // name -> index in set.Skills
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
			}
			if e.skill == nil {
				continue
			}
			s := e.skill
			if first, dup := seen[s.Name]; dup {
				set.warn(d.Source, s.File, fmt.Sprintf("skill %q is already provided by %s; keeping that one and skipping %s", s.Name, set.Skills[first].Origin(), s.Origin()))
				continue
			}
			seen[s.Name] = len(set.Skills)
			set.Skills = append(set.Skills, *s)
		}
	}
	return set
}

// Watch starts the watcher on the roots; each change marks the entries it
// names (or everything) for re-reading and calls invalidate. Without a
// Watcher it returns ErrNotWatched and the registry asks again every time.
func (d *DirSource) Watch(invalidate func(), done <-chan struct{}) error {
	if d.Watcher == nil {
		return ErrNotWatched
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
			return true
		}
	}
	return false
}

func (s *Set) warn(source, path, msg string) {
	s.Warnings = append(s.Warnings, contract.Warning{Source: source, Path: path, Message: msg})
}

// readEntry turns one child of a root into a skill, or explains why not.
func (d *DirSource) readEntry(ctx context.Context, path string, e fs.DirEntry) entryState {
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
			warn(path, fmt.Sprintf("cannot follow symlink; skipped: %v", err))
			st.incomplete = !isPermanent(err)
			return st
		}
		mode = fi.Mode().Type()
	}
	var file, baseDir, folder string
	switch {
	case mode.IsDir():
		var err error
		file, err = d.findSkillFile(path)
		if err != nil {
			if errors.Is(err, errNoSkillFile) {
				warn(path, "folder has no SKILL.md; skipped")
			} else {
				warn(path, fmt.Sprintf("cannot read the skill folder; skipped: %v", err))
				st.incomplete = !isPermanent(err)
			}
			return st
		}
		baseDir, folder = path, filepath.Base(path)
	case mode.IsRegular() && strings.HasSuffix(path, ".md"):
		file, baseDir, folder = path, filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".md")
	case mode.IsRegular():
		return st // scripts or notes beside flat skills are not skills
	default:
		warn(path, fmt.Sprintf("not a regular file or directory (%s); skipped", mode))
		return st
	}

	data, err := d.FS.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return st // deleted while we looked: it is gone
	case err != nil:
		warn(file, fmt.Sprintf("cannot read; skipped: %v", err))
		st.incomplete = !isPermanent(err)
		return st
	}
	meta, _, findings := ParseSkill(file, folder, data)
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
	fsys := d.FS
	st.skill = &Skill{
		Name:                   meta.Name,
		Description:            meta.Description,
		Source:                 d.Source,
		BaseDir:                baseDir,
		File:                   file,
		DisableModelInvocation: meta.DisableModelInvocation,
		Load: func(ctx context.Context) (Content, error) {
			return LoadFile(ctx, fsys, file, folder)
		},
	}
	return st
}

var (
	errNoSkillFile = errors.New("no SKILL.md")
	errNotRegular  = errors.New("not a regular file")
)

// findSkillFile returns dir/SKILL.md, or dir/skill.md when there is no SKILL.md.
func (d *DirSource) findSkillFile(dir string) (string, error) {
	var firstErr error
	for _, name := range []string{"SKILL.md", "skill.md"} {
		p := filepath.Join(dir, name)
		fi, err := d.FS.Stat(p)
		if err == nil {
			if !fi.Mode().IsRegular() {
				return "", fmt.Errorf("%s: %w", p, errNotRegular)
			}
			return p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return "", firstErr
	}
	return "", errNoSkillFile
}

// LoadFile reads and parses a skill file afresh: no body is ever cached, so a
// load always sees the file as it is now.
func LoadFile(ctx context.Context, fsys FS, file, folder string) (Content, error) {
	if err := ctx.Err(); err != nil {
		return Content{}, err
	}
	data, err := fsys.ReadFile(file)
	if err != nil {
		return Content{}, fmt.Errorf("load skill %s: %w", file, err)
	}
	meta, body, findings := ParseSkill(file, folder, data)
	for _, f := range findings {
		if f.Severity == Unusable {
			return Content{}, fmt.Errorf("load skill %s: %s", file, f.Message)
		}
	}
	return Content{Name: meta.Name, Body: body}, nil
}

// isPermanent reports errors that a rescan will not fix, so they do not make
// the catalog incomplete forever.
func isPermanent(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, workfs.ErrOutsideWorkDir) || errors.Is(err, errNotRegular)
}
