package workfs

import (
	"errors"
	"fmt"
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
}

// Error renders `path ".git/hooks/x" is in .git, which is read-only in the work dir /w`.
func (e *ProtectedError) Error() string {
	return fmt.Sprintf("path %q is in %s, which is read-only in the work dir %s", e.Path, e.Protected, e.Dir)
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
// pointing into .git leads into .git.
func (f *FS) protected(path string, t target) error {
	for _, rel := range []string{t.rel, t.real} {
		if p, ok := Protected(rel); ok {
			return &ProtectedError{Path: path, Protected: p, Dir: f.dir}
		}
	}
	return nil
}
