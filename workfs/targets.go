package workfs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Target is where one protected name at the top of a folder really is.
type Target struct {
	Name  string // the protected name it comes from: helios.config.json, helios-lock.json, .git, .helios or .agents
	Path  string // absolute, symlinks resolved
	State bool   // a state folder (.helios, .agents): read-only but for its skills folder
}

// Targets is the one answer to "what is protected" at the top of root (an
// absolute, resolved folder: a work dir or a writable path), for Write/Edit
// (the work-dir port) and for confined commands (the sandbox): each
// existing helios.config.json, helios-lock.json, .git, .helios and .agents
// with its symlinks resolved (a linked config protects its real target),
// and the folder a "gitdir:" file at .git names (a worktree's or a
// submodule's repository; relative to the file's folder, or absolute),
// resolved. What does not exist is left out; whether a Target lies where
// it can be written is the caller's to judge.
func Targets(root string) []Target {
	var out []Target
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	names := append([]string{ConfigName, LockName, GitName}, StateDirs...)
	for _, name := range names {
		real := filepath.Join(root, name)
		fi, err := os.Lstat(real)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if real, err = filepath.EvalSymlinks(real); err == nil {
				fi, err = os.Stat(real)
			}
		}
		if err != nil {
			continue // missing, or a dangling link
		}
		out = append(out, Target{Name: name, Path: real, State: fi.IsDir() && slices.Contains(StateDirs, name)})
		if name != GitName || !fi.Mode().IsRegular() {
			continue
		}
		if dir := gitdirOf(real); dir != "" {
			out = append(out, Target{Name: GitName, Path: dir})
		}
	}
	return out
}

// gitdirOf reads the folder a "gitdir: <path>" file names (a worktree or a
// submodule), resolved; "" when it names none that exists.
func gitdirOf(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(file), dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ""
	}
	return real
}

// linked refuses a change to abs (absolute, resolved, inside the work dir)
// when it lies in a Target of the work dir that is not at its own name: the
// real target of a linked protected name, or the folder a "gitdir:" file
// names. What lies at its own name the lexical check ([Protected]) refuses.
func (f *FS) linked(path, abs string) error {
	for _, t := range Targets(f.dir) {
		if t.Path == filepath.Join(f.dir, t.Name) {
			continue
		}
		rel, ok := inside(t.Path, abs)
		if !ok {
			continue
		}
		if first, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); t.State && first == SkillsName {
			continue
		}
		prot, ok := inside(f.dir, t.Path)
		if !ok {
			continue // outside the work dir: no write reaches it
		}
		return &ProtectedError{Path: path, Protected: filepath.ToSlash(prot), Dir: f.dir, Via: t.Name}
	}
	return nil
}
