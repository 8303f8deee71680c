package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/helios-agents/helios/workfs"
)

// protectMount is one bind mount the child applies in its private mount
// namespace, before Landlock: Path read-only (and everything mounted below
// it), or, for a skills folder inside a read-only one, writable again.
type protectMount struct {
	Path     string `json:"path"`
	Writable bool   `json:"writable,omitempty"`
}

// StateDirName is Helios's own folder in the home directory (the trust
// store, sessions, user skills). Like a work dir's .helios, it is read-only
// for confined commands, but for its skills folder, when it lies inside a
// writable path.
const StateDirName = ".helios"

// protectedMounts plans the mounts that keep the protected paths of roots
// (the writable folders: the work dir and tools.sandbox.writable, not the
// session's temp dir) read-only: at the top of each root, helios.config.json,
// helios-lock.json, .git (a folder, or a "gitdir:" file and the folder it
// names when that lies in a root) and .helios and .agents but their skills
// folders; and home's .helios when it lies in a root. Paths are resolved, so a protected name
// that is a symlink protects what it points to when that lies in a root
// (what lies elsewhere Landlock keeps read-only).
//
// A missing .git is a hole: a command could create one whose hooks run when
// the user next runs git. With create set, an empty .git folder is made
// there to be mounted over (git ignores an empty .git: it is no
// repository), and home's .helios is made too (the trust store goes
// there). Without it (a report), a missing .git is planned as it would be.
// A .git that is a symlink cannot be kept read-only (the link itself could
// be replaced): that is an error.
func protectedMounts(roots []string, home string, create bool) ([]protectMount, error) {
	var out []protectMount
	add := func(p string, writable bool) {
		if !slices.ContainsFunc(out, func(m protectMount) bool { return m.Path == p }) {
			out = append(out, protectMount{Path: p, Writable: writable})
		}
	}
	// stateDir protects dir (resolved) but its skills folder.
	stateDir := func(dir string) {
		add(dir, false)
		skills := filepath.Join(dir, workfs.SkillsName)
		if real, err := filepath.EvalSymlinks(skills); err == nil && real == skills {
			if fi, err := os.Stat(skills); err == nil && fi.IsDir() {
				add(skills, true)
			}
		}
	}
	for _, root := range roots {
		if err := protectGit(root, roots, create, add); err != nil {
			return nil, err
		}
		// The same set Write and Edit refuse (workfs.Targets).
		for _, t := range workfs.Targets(root) {
			if !inAny(t.Path, roots) {
				continue // outside every root: Landlock keeps it read-only
			}
			if t.State {
				stateDir(t.Path)
			} else {
				add(t.Path, false)
			}
		}
	}
	if home != "" {
		state := filepath.Join(home, StateDirName)
		if real, err := filepath.EvalSymlinks(state); err == nil {
			state = real
		}
		if inAny(state, roots) {
			if create {
				if err := os.MkdirAll(state, 0o700); err != nil {
					return nil, fmt.Errorf("protect %s: %w", state, err)
				}
			}
			stateDir(state)
		}
	}
	// A parent mount comes before what is mounted inside it (the writable
	// skills folder inside its read-only .helios).
	slices.SortStableFunc(out, func(a, b protectMount) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// protectGit plans root's .git: the folder or "gitdir:" file read-only
// (made when missing and create is set; refused when a symlink).
func protectGit(root string, roots []string, create bool, add func(string, bool)) error {
	p := filepath.Join(root, workfs.GitName)
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			add(p, false)
			return nil
		}
		switch err := os.Mkdir(p, 0o755); {
		case err == nil, errors.Is(err, fs.ErrExist):
		case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
			return nil // what Helios cannot create there, no command of it can
		case errors.Is(err, fs.ErrNotExist):
			return nil // the root itself is gone: the child's Landlock rules fail on it
		default:
			return fmt.Errorf("protect %s: %w", p, err)
		}
		if fi, err = os.Lstat(p); err != nil {
			return fmt.Errorf("protect %s: %w", p, err)
		}
	case err != nil:
		return fmt.Errorf("protect %s: %w", p, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symbolic link, which a command could replace by a repository of its own; make it a folder or a \"gitdir:\" file", ErrUnenforceable, p)
	}
	add(p, false) // the folder a "gitdir:" file names: workfs.Targets
	return nil
}

// inAny reports whether p lies in (or is) one of roots.
func inAny(p string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { _, ok := within(r, p); return ok })
}

// within returns p relative to root when p lies in (or is) root.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// protectedPath says which protected path p lies in, if any: a protected
// path of one of roots (see workfs.Protected) or home's .helios outside its
// skills folder. Config checks use it: a writable path or an allowed socket
// must not reopen what the sandbox protects.
func protectedPath(p string, roots []string, home string) (string, bool) {
	for _, r := range roots {
		if rel, ok := within(r, p); ok && rel != "." {
			if name, ok := workfs.Protected(rel); ok {
				return filepath.Join(r, name), true
			}
		}
	}
	if home != "" {
		if rel, ok := within(home, p); ok {
			if name, ok := workfs.Protected(rel); ok && name == StateDirName {
				return filepath.Join(home, name), true
			}
		}
	}
	return "", false
}

// homeDir is the user's home, resolved; "" when unknown.
func homeDir() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		return real
	}
	return home
}
