package skillfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
)

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
// A read error that a retry can heal (isTransient) makes the result
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
	// pre holds, by root, the entries Watch read once their watch was
	// armed, for the first scan; nil once used.
	pre []map[string]prefetched

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
	if isTransient(err) {
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
		pre := d.pre
		if d.rescan {
			pre = nil // reported since: read everything again
		}
		d.state = d.scanAll(ctx, pre)
		d.rescan, d.dirty, d.last, d.pre = false, nil, nil, nil
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

// scanAll reads every root from scratch, but for what pre (by root, from
// Watch) read of it since its watch was armed.
func (d *DirSource) scanAll(ctx context.Context, pre []map[string]prefetched) []*rootState {
	prev := d.errs
	d.errs = map[string]errRecord{} // only what fails in this scan counts on
	out := make([]*rootState, 0, len(d.Roots))
	for i, root := range d.Roots {
		var p map[string]prefetched
		if i < len(pre) {
			p = pre[i]
		}
		out = append(out, d.scanRoot(ctx, root, prev, p))
	}
	return out
}

// scanRoot reads the direct children of one root, concurrently, and records
// them by name. prev holds the errors of the previous scan; pre, entries
// already read.
func (d *DirSource) scanRoot(ctx context.Context, root string, prev map[string]errRecord, pre map[string]prefetched) *rootState {
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
	results := d.readEntries(ctx, fsOpener{d.FS}, abs, entries, pre)
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
// from them does not depend on scheduling. An entry in pre, of the same
// type and not reported changed since, is not read again.
func (d *DirSource) readEntries(ctx context.Context, open opener, dir string, entries []fs.DirEntry, pre map[string]prefetched) []entryState {
	prefix := strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator) // dir is clean
	out := make([]entryState, len(entries))
	read := func(e fs.DirEntry) entryState {
		if p, ok := pre[e.Name()]; ok && p.mode == e.Type() && !d.dirty[e.Name()] {
			return p.st
		}
		return d.readEntrySafe(ctx, open, prefix+e.Name(), e.Type())
	}
	workers := min(runtime.GOMAXPROCS(0), len(entries))
	if workers <= 1 {
		for i, e := range entries {
			if ctx.Err() != nil {
				break
			}
			out[i] = read(e)
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
				out[i] = read(entries[i])
			}
		})
	}
	wg.Wait()
	return out
}

// readEntrySafe is readEntry with a panic turned into a warning: a worker's
// panic would otherwise take the process down.
func (d *DirSource) readEntrySafe(ctx context.Context, open opener, path string, mode fs.FileMode) (st entryState) {
	defer func() {
		if v := recover(); v != nil {
			st = entryState{}
			st.fail(d.Source, path, "cannot read; skipped", fmt.Errorf("panic: %v", v))
		}
	}()
	return d.readEntry(ctx, open, path, mode)
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
			st = d.readEntrySafe(ctx, fsOpener{d.FS}, path, fi.Mode().Type())
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
	total, warnings := 0, 0
	for _, r := range d.state {
		total += len(r.names)
		warnings += len(r.warnings)
		for _, e := range r.entries {
			warnings += len(e.warnings)
		}
	}
	// Sized up front: a root holds tens of thousands of skills, and
	// published skills carry about three warnings each.
	set.Skills = make([]skills.Skill, 0, total)
	if warnings > 0 {
		set.Warnings = make([]contract.Warning, 0, warnings)
	}
	seen := make(map[string]int, total) // name -> index in set.Skills
	d.incomplete = map[string]bool{}
	for _, r := range d.state {
		set.Warnings = append(set.Warnings, r.warnings...)
		if r.incomplete {
			set.Incomplete = true
		}
		for _, n := range r.names {
			e := r.entries[n]
			if e.incomplete {
				set.Incomplete = true
				d.incomplete[n] = true
			}
			s := e.skill
			first, dup := -1, false
			if s != nil {
				first, dup = seen[s.Name]
			}
			if dup && skills.SameFile(*s, set.Skills[first]) {
				// The same folder reached again (a symlinked root or skill
				// folder): one skill, and its warnings were given once.
				continue
			}
			set.Warnings = append(set.Warnings, e.warnings...)
			if s == nil {
				continue
			}
			if dup {
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

// warn adds a warning about path to s.
func warn(s *skills.Set, source, path, msg string) {
	s.Warnings = append(s.Warnings, contract.Warning{Source: source, Path: path, Message: msg})
}
