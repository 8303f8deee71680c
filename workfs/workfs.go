package workfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// ErrOutsideWorkDir is the sentinel of every refusal: errors.Is(err,
// ErrOutsideWorkDir) holds exactly when the FS refused a path for leading
// outside the work dir.
var ErrOutsideWorkDir = errors.New("outside the work dir")

// EscapeError is the refusal of a path that leads outside the work dir.
type EscapeError struct {
	Path   string // the path as the caller gave it
	Reason string // why it leads out, e.g. "symlink a/b points to /etc"
	Dir    string // the work dir that refused it
}

// Error renders `path "../x" is outside the work dir /w/work: <reason>`.
func (e *EscapeError) Error() string {
	dir := ""
	if e.Dir != "" {
		dir = " " + e.Dir
	}
	return fmt.Sprintf("path %q is outside the work dir%s: %s", e.Path, dir, e.Reason)
}

// Unwrap returns [ErrOutsideWorkDir].
func (e *EscapeError) Unwrap() error { return ErrOutsideWorkDir }

// FS is the guarded view of one work dir. It is safe for concurrent use.
type FS struct {
	dir   string // absolute and symlink-resolved
	alias string // the absolute form New was given, if it differs from dir
	root  *os.Root
	// dirFile is the work dir opened once, the base writes open beneath.
	dirFile *os.File
}

// New opens the guard on workDir, which must exist and be a directory. It is
// made absolute and its symlinks are resolved once, here: the work dir is
// what it was when the FS was made, wherever its name points later.
func New(workDir string) (*FS, error) {
	abs, err := filepath.Abs(workDir)
	if err != nil {
		return nil, fmt.Errorf("new workfs %q: %w", workDir, err)
	}
	dir, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("new workfs %q: %w", workDir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("new workfs %q: %w", workDir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("new workfs %q: %w", workDir, syscall.ENOTDIR)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("new workfs %q: %w", workDir, err)
	}
	dirFile, err := os.Open(dir)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("new workfs %q: %w", workDir, err)
	}
	f := &FS{dir: dir, root: root, dirFile: dirFile}
	if abs != dir {
		f.alias = abs
	}
	return f, nil
}

// Dir returns the work dir: absolute and symlink-resolved.
func (f *FS) Dir() string { return f.dir }

// Resolve returns path as an absolute, cleaned path inside the work dir, or
// an [*EscapeError]. Symlinks inside the path are checked (following the last
// element too, as a read or a write would) but not replaced: the result is
// the path as the user sees it under [FS.Dir]. The path need not exist.
func (f *FS) Resolve(path string) (string, error) {
	t, err := f.check(path, true)
	if err != nil {
		return "", f.opErr("resolve", path, err)
	}
	return filepath.Join(f.dir, t.rel), nil
}

// ReadDir lists the directory at path, sorted by name in byte order. The
// entries describe themselves, not what a symlink among them points to.
func (f *FS) ReadDir(path string) ([]fs.DirEntry, error) {
	t, err := f.check(path, true)
	if err != nil {
		return nil, f.opErr("readdir", path, err)
	}
	d, err := f.root.Open(t.real)
	if err != nil {
		return nil, f.opErr("readdir", path, err)
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	// Byte order, never locale: listings must be the same on every machine.
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if err != nil {
		return entries, f.opErr("readdir", path, err)
	}
	return entries, nil
}

// Stat describes the file at path, following symlinks; it is refused if any
// link on the way points outside.
func (f *FS) Stat(path string) (fs.FileInfo, error) {
	t, err := f.check(path, true)
	if err != nil {
		return nil, f.opErr("stat", path, err)
	}
	fi, err := f.root.Stat(t.real)
	if err != nil {
		return nil, f.opErr("stat", path, err)
	}
	return fi, nil
}

// Lstat describes the file at path without following a final symlink, which
// may point anywhere: describing the link reads nothing outside. Links before
// the last element must stay inside.
func (f *FS) Lstat(path string) (fs.FileInfo, error) {
	t, err := f.check(path, false)
	if err != nil {
		return nil, f.opErr("lstat", path, err)
	}
	fi, err := f.root.Lstat(t.real)
	if err != nil {
		return nil, f.opErr("lstat", path, err)
	}
	return fi, nil
}

// ReadFile returns the content of the file at path.
func (f *FS) ReadFile(path string) ([]byte, error) {
	t, err := f.check(path, true)
	if err != nil {
		return nil, f.opErr("read", path, err)
	}
	data, err := f.root.ReadFile(t.real)
	if err != nil {
		return nil, f.opErr("read", path, err)
	}
	return data, nil
}

// WriteFile writes data to the file at path, creating or truncating it with
// perm (before umask). Missing parent directories are created with 0o755
// (before umask), all inside the work dir. It never follows a symlink, even
// one that stays inside: a link anywhere on the path is refused with a
// [*SymlinkError]. On Linux each directory on the way is opened beneath the
// one before it (openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS), so a
// folder swapped for a link during the call cannot redirect the write, and
// the protected paths are checked on the folder that was opened; a kernel
// without openat2 (before 5.6) refuses every write with [ErrNoOpenat2]. A
// protected path (see [Protected]) is refused with a [*ProtectedError]; its
// parents may be created on the way to a skills folder
// (.helios/skills/x/SKILL.md).
func (f *FS) WriteFile(path string, data []byte, perm fs.FileMode) error {
	t, err := f.check(path, true)
	if err != nil {
		return f.opErr("write", path, err)
	}
	if err := f.protected(path, t); err != nil {
		return err
	}
	return f.write(path, t, data, perm)
}

// MkdirAll creates the directory at path and any missing parents with perm
// (before umask). An existing directory is not an error. A protected path
// is refused.
func (f *FS) MkdirAll(path string, perm fs.FileMode) error {
	t, err := f.check(path, true)
	if err != nil {
		return f.opErr("mkdir", path, err)
	}
	if err := f.protected(path, t); err != nil {
		return err
	}
	if err := f.root.MkdirAll(t.real, perm); err != nil {
		return f.opErr("mkdir", path, err)
	}
	return nil
}

// Remove removes the file or empty directory at path. A final symlink is
// removed itself, wherever it points. A protected path is refused.
func (f *FS) Remove(path string) error {
	t, err := f.check(path, false)
	if err != nil {
		return f.opErr("remove", path, err)
	}
	if err := f.protected(path, t); err != nil {
		return err
	}
	if err := f.root.Remove(t.real); err != nil {
		return f.opErr("remove", path, err)
	}
	return nil
}

// Close releases the work dir's handle. Every call after Close fails.
func (f *FS) Close() error {
	return errors.Join(f.root.Close(), f.dirFile.Close())
}

// target is a path the guard accepted.
type target struct {
	rel  string // cleaned and relative to dir: what the caller sees
	real string // rel with its symlinks replaced as of the check: what os.Root gets
}

// check applies every rule of the guard to path. follow says whether a
// symlink as the last element is followed (read, write) or acted on itself
// (lstat, remove).
func (f *FS) check(path string, follow bool) (target, error) {
	rel, err := f.lexical(path, "")
	if err != nil {
		return target{}, err
	}
	resolved, err := f.walk(path, rel, follow)
	if err != nil {
		return target{}, err
	}
	return target{rel: rel, real: resolved}, nil
}

// lexical cleans path into a path relative to dir, refusing what leads out
// without looking at the disk. outReason, when set, replaces the reasons for
// ".." and absolute paths (Glob words them for patterns).
func (f *FS) lexical(path, outReason string) (string, error) {
	if path == "" {
		return "", fs.ErrInvalid
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", f.escape(path, "NUL byte")
	}
	if filepath.IsAbs(path) {
		p := filepath.Clean(path)
		if rel, ok := inside(f.dir, p); ok {
			return rel, nil
		}
		if f.alias != "" {
			if rel, ok := inside(f.alias, p); ok {
				return rel, nil
			}
		}
		return "", f.escape(path, or(outReason, "absolute path outside"))
	}
	rel := filepath.Clean(path)
	if climbs(rel) {
		return "", f.escape(path, or(outReason, "contains .. that climbs above it"))
	}
	return rel, nil
}

// maxLinks bounds the symlinks followed in one path, as Linux's MAXSYMLINKS.
const maxLinks = 40

// step is one path component still to walk, with the symlink whose target
// brought it in (nil for the caller's own components), to name the culprit.
type step struct {
	name string
	via  *link
}

type link struct {
	at     string // where the link is, relative to dir
	target string // what it says
}

// walk follows rel (clean, relative, lexically inside) through the disk the
// way the kernel would, one component at a time, and returns it with its
// symlinks replaced, or an *EscapeError naming the link that leads out. Once
// a component is missing (or cannot be examined) the rest cannot hold links
// and is taken as written; the operation itself then reports the problem.
func (f *FS) walk(given, rel string, follow bool) (string, error) {
	var done []string // resolved components: real directories, no links
	todo := steps(rel, nil)
	var missing error
	links := 0
	for len(todo) > 0 {
		s := todo[0]
		todo = todo[1:]
		if s.name == ".." {
			if missing != nil {
				// The OS cannot go up from a directory that is not there.
				return "", missing
			}
			if len(done) == 0 {
				// Only a link's target can bring ".." here: rel is clean and inside.
				return "", f.escape(given, s.via.reason())
			}
			done = done[:len(done)-1]
			continue
		}
		done = append(done, s.name)
		if missing != nil {
			continue
		}
		p := filepath.Join(f.dir, filepath.Join(done...))
		fi, err := os.Lstat(p)
		if err != nil {
			missing = err
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 || (len(todo) == 0 && !follow) {
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: given, Err: syscall.ELOOP}
		}
		dest, err := os.Readlink(p)
		if err != nil {
			missing = err
			continue
		}
		l := &link{at: filepath.Join(done...), target: dest}
		done = done[:len(done)-1]
		if filepath.IsAbs(dest) {
			rest, ok := f.underDir(dest)
			if !ok {
				return "", f.escape(given, l.reason())
			}
			done = done[:0]
			todo = append(stepsOf(rest, l), todo...)
			continue
		}
		todo = append(steps(dest, l), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return filepath.Join(done...), nil
}

// underDir returns the components of an absolute link target below dir (or
// its alias), with any ".." left in for walk to resolve after the links
// before it, as the kernel does. The prefix must name dir literally: a ".."
// or another link inside it would make the answer depend on what lies
// outside the work dir.
func (f *FS) underDir(dest string) ([]string, bool) {
	got := components(dest)
	for _, dir := range []string{f.dir, f.alias} {
		if dir == "" {
			continue
		}
		want := components(dir)
		if len(got) >= len(want) && slices.Equal(got[:len(want)], want) {
			return got[len(want):], true
		}
	}
	return nil, false
}

// components splits p at separators, dropping "" and "." but keeping "..":
// what ".." means depends on the links before it.
func components(p string) []string {
	var out []string
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// steps splits a relative path into steps brought in by via.
func steps(p string, via *link) []step { return stepsOf(components(p), via) }

func stepsOf(comps []string, via *link) []step {
	out := make([]step, len(comps))
	for i, c := range comps {
		out[i] = step{name: c, via: via}
	}
	return out
}

func (l *link) reason() string {
	if l == nil {
		return "contains .. that climbs above it"
	}
	return fmt.Sprintf("symlink %s points to %s", filepath.ToSlash(l.at), l.target)
}

func (f *FS) escape(path, reason string) *EscapeError {
	return &EscapeError{Path: path, Reason: reason, Dir: f.dir}
}

// opErr shapes an error of operation op on path: refusals pass unchanged,
// os.Root's own refusal becomes an *EscapeError, and a *fs.PathError is
// renamed to the operation and the path the caller gave, so callers never
// see the resolved path.
func (f *FS) opErr(op, path string, err error) error {
	var esc *EscapeError
	if errors.As(err, &esc) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if isRootEscape(pe.Err) {
			// Our walk found no way out, so a link changed in between.
			return f.escape(path, "a symlink on the way points outside (it changed during the call)")
		}
		return &fs.PathError{Op: op, Path: path, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// isRootEscape reports os.Root's refusal of a path that escapes it. os keeps
// that error unexported ("path escapes from parent"), so match its text.
func isRootEscape(err error) bool {
	return err != nil && err.Error() == "path escapes from parent"
}

// inside reports whether the clean absolute path p lies in dir, and where.
// filepath.Rel compares whole components, so "/w/work-evil" is not inside
// "/w/work" as a string-prefix check would have it.
func inside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || climbs(rel) {
		return "", false
	}
	return rel, true
}

// climbs reports whether the clean relative path rel starts above its base.
func climbs(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
