package workfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Names of the protected paths at the top of a work dir (see [Protected]).
const (
	// ConfigName is the work dir's config file: whoever writes it chooses
	// what the next run starts.
	ConfigName = "helios.config.json"
	// LockName is the project's skills lockfile: `helios skills sync`
	// installs what it names, and `skills verify` checks the installed
	// skills against it.
	LockName = "helios-lock.json"
	// GitName is the repository: its hooks and config run code later,
	// outside any sandbox.
	GitName = ".git"
	// SkillsName is the one folder of StateDirs that stays writable: the
	// model creating a project skill is part of the contract.
	SkillsName = "skills"
)

// StateDirs are the folders that are read-only but for their skills folder.
var StateDirs = []string{".helios", ".agents"}

// ErrProtected is the sentinel of every refusal to change a protected path:
// errors.Is(err, ErrProtected) holds exactly when the FS refused a write,
// a removal or a new folder for that reason.
var ErrProtected = errors.New("protected path")

// ProtectedError is the refusal to change a protected path.
type ProtectedError struct {
	Path      string // the path as the caller gave it
	Protected string // the protected path it lies in, relative to Dir
	Dir       string // the work dir
	// Via is the protected name that leads to Protected when that lies
	// elsewhere (see [Targets]): ".git" for the folder its "gitdir:" file
	// names, "helios.config.json" for a linked config's real target; "" when
	// Protected is the name itself.
	Via string
}

// Error renders `path ".git/hooks/x" is in .git, which is read-only in the
// work dir /w`, or, for a path where a protected name leads, `path
// "meta/repo/config" is in meta/repo, where .git leads, which is read-only
// in the work dir /w`.
func (e *ProtectedError) Error() string {
	via := ""
	if e.Via != "" {
		via = ", where " + e.Via + " leads,"
	}
	return fmt.Sprintf("path %q is in %s%s which is read-only in the work dir %s", e.Path, e.Protected, or(via, ","), e.Dir)
}

// Unwrap returns [ErrProtected].
func (e *ProtectedError) Unwrap() error { return ErrProtected }

// Protected reports whether rel, a clean path relative to a work dir (or to
// any folder the model may write), lies in a protected path, and which:
// helios.config.json, helios-lock.json, .git and everything in it, and
// .helios and .agents (the folders themselves and everything in them)
// except their skills folders. Only the top of the folder counts: a/.git is not protected.
func Protected(rel string) (string, bool) {
	rel = filepath.ToSlash(rel)
	first, rest, _ := strings.Cut(rel, "/")
	switch first {
	case ConfigName, LockName, GitName:
		return first, true
	}
	for _, d := range StateDirs {
		if first != d {
			continue
		}
		if second, _, _ := strings.Cut(rest, "/"); second == SkillsName {
			return "", false
		}
		return first, true
	}
	return "", false
}

// protected refuses a change to the target t when either its path as given
// or its path with symlinks resolved lies in a protected path: a link
// named helios.config.json is as protected as the file, and a link
// pointing into .git leads into .git. Where a protected name leads is
// protected too (see [Targets]): the folder a "gitdir:" .git names, a
// linked config's real target.
func (f *FS) protected(path string, t target) error {
	for _, rel := range []string{t.rel, t.real} {
		if p, ok := Protected(rel); ok {
			return &ProtectedError{Path: path, Protected: p, Dir: f.dir}
		}
	}
	return f.linked(path, filepath.Join(f.dir, t.real))
}

// ErrSymlink is the sentinel of a write refused because its path goes
// through a symlink: errors.Is(err, ErrSymlink) holds exactly then.
var ErrSymlink = errors.New("symlink on the path of a write")

// SymlinkError is the refusal to write through a symlink, even one that
// stays inside the work dir: a link can be swapped between any check and
// the write, so writes follow none.
type SymlinkError struct {
	Path string // the path as the caller gave it
	Link string // the first link on it, relative to Dir; "" if it changed during the call
	Dir  string // the work dir
}

// Error renders `path "x/config" goes through the symlink x, and writes in the work dir /w follow no symlinks`.
func (e *SymlinkError) Error() string {
	link := "a symlink (it changed during the call)"
	if e.Link != "" {
		link = "the symlink " + e.Link
	}
	return fmt.Sprintf("path %q goes through %s, and writes in the work dir %s follow no symlinks", e.Path, link, e.Dir)
}

// Unwrap returns [ErrSymlink].
func (e *SymlinkError) Unwrap() error { return ErrSymlink }

// ErrNoOpenat2 is the refusal of every write on a kernel without openat2
// (Linux before 5.6): without it a write cannot be kept from following a
// folder swapped for a symlink, so it fails closed.
var ErrNoOpenat2 = errors.New("the kernel lacks openat2 (Linux 5.6 or later is needed to write in the work dir safely)")

// firstLink returns the first component of rel that is a symlink now, or ""
// when none is (it changed during the call).
func (f *FS) firstLink(rel string) string {
	p := ""
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, c)
		if fi, err := os.Lstat(filepath.Join(f.dir, p)); err != nil {
			return ""
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			return filepath.ToSlash(p)
		}
	}
	return ""
}
