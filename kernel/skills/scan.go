package skills

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/workfs"
)

// FS is what a skills root is read through. Paths are absolute. Stat follows
// symlinks. The user-level source uses OSFS; project skills use the guarded
// work-dir port, which refuses anything that resolves outside the work dir.
type FS interface {
	ReadDir(name string) ([]fs.DirEntry, error)
	Stat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
}

// OSFS reads the local file system directly.
type OSFS struct{}

func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OSFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (OSFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }

// DirSource provides the skills found in a list of roots, read through FS.
// Earlier roots win over later ones; inside a root, folders are taken by code
// point order of their names, and the first of two equal names wins.
type DirSource struct {
	FS     FS
	Source string   // label: "user", "project", ...
	Roots  []string // absolute, or relative to the process's working directory
}

var _ Provider = (*DirSource)(nil)

// Skills scans every root. A missing root is an empty, complete result; a root
// that cannot be listed for another reason makes the result incomplete.
func (d *DirSource) Skills(ctx context.Context) (Set, error) {
	var set Set
	seen := map[string]Skill{}
	for _, root := range d.Roots {
		if err := ctx.Err(); err != nil {
			return set, err
		}
		abs, err := filepath.Abs(root)
		if err != nil {
			set.warn(d.Source, root, fmt.Sprintf("cannot make the root absolute: %v", err))
			set.Incomplete = true
			continue
		}
		for _, s := range d.scanRoot(ctx, abs, &set) {
			if first, dup := seen[s.Name]; dup {
				set.warn(d.Source, s.File, fmt.Sprintf("skill %q is already provided by %s; keeping that one and skipping %s", s.Name, first.Origin(), s.Origin()))
				continue
			}
			seen[s.Name] = s
			set.Skills = append(set.Skills, s)
		}
	}
	return set, nil
}

func (s *Set) warn(source, path, msg string) {
	s.Warnings = append(s.Warnings, contract.Warning{Source: source, Path: path, Message: msg})
}

// scanRoot reads the direct children of one root, by code point order.
func (d *DirSource) scanRoot(ctx context.Context, root string, set *Set) []Skill {
	entries, err := d.FS.ReadDir(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // a real, complete absence
	case err != nil:
		set.warn(d.Source, root, fmt.Sprintf("cannot list the skills root: %v", err))
		if !isPermanent(err) {
			set.Incomplete = true
		}
		return nil
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
	var out []Skill
	for _, e := range entries {
		if ctx.Err() != nil {
			set.Incomplete = true
			return out
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(root, name)
		s, ok := d.readEntry(ctx, path, e, set)
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// readEntry turns one child of a root into a skill, or explains why not.
func (d *DirSource) readEntry(ctx context.Context, path string, e fs.DirEntry, set *Set) (Skill, bool) {
	mode := e.Type()
	if mode&fs.ModeSymlink != 0 {
		fi, err := d.FS.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			set.warn(d.Source, path, "broken symlink; skipped")
			return Skill{}, false
		case err != nil:
			set.warn(d.Source, path, fmt.Sprintf("cannot follow symlink; skipped: %v", err))
			return Skill{}, false
		}
		mode = fi.Mode().Type()
	}
	switch {
	case mode.IsDir():
		file, ok := d.findSkillFile(path, set)
		if !ok {
			return Skill{}, false
		}
		return d.readSkill(ctx, file, path, filepath.Base(path), set)
	case mode.IsRegular() && strings.HasSuffix(path, ".md"):
		return d.readSkill(ctx, path, filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".md"), set)
	case mode.IsRegular():
		return Skill{}, false // scripts or notes beside flat skills are not skills
	default:
		set.warn(d.Source, path, fmt.Sprintf("not a regular file or directory (%s); skipped", mode))
		return Skill{}, false
	}
}

// findSkillFile returns dir/SKILL.md, or dir/skill.md when there is no SKILL.md.
func (d *DirSource) findSkillFile(dir string, set *Set) (string, bool) {
	var firstErr error
	for _, name := range []string{"SKILL.md", "skill.md"} {
		p := filepath.Join(dir, name)
		fi, err := d.FS.Stat(p)
		if err == nil {
			if !fi.Mode().IsRegular() {
				set.warn(d.Source, p, "not a regular file; skipped")
				return "", false
			}
			return p, true
		}
		if !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		set.warn(d.Source, dir, fmt.Sprintf("cannot read the skill folder; skipped: %v", firstErr))
		if !isPermanent(firstErr) {
			set.Incomplete = true
		}
		return "", false
	}
	set.warn(d.Source, dir, "folder has no SKILL.md; skipped")
	return "", false
}

// readSkill reads and parses one skill file. baseDir is absolute.
func (d *DirSource) readSkill(ctx context.Context, file, baseDir, folder string, set *Set) (Skill, bool) {
	data, err := d.FS.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Skill{}, false // deleted while we looked: it is gone
	case err != nil:
		set.warn(d.Source, file, fmt.Sprintf("cannot read; skipped: %v", err))
		if !isPermanent(err) {
			set.Incomplete = true
		}
		return Skill{}, false
	}
	meta, _, findings := ParseSkill(file, folder, data)
	usable := true
	for _, f := range findings {
		msg := f.Message
		if f.Severity == Unusable {
			usable = false
			msg += "; skipped"
		}
		set.warn(d.Source, file, msg)
	}
	if !usable {
		return Skill{}, false
	}
	fsys := d.FS
	return Skill{
		Name:                   meta.Name,
		Description:            meta.Description,
		Source:                 d.Source,
		BaseDir:                baseDir,
		File:                   file,
		DisableModelInvocation: meta.DisableModelInvocation,
		Load: func(ctx context.Context) (Content, error) {
			return LoadFile(ctx, fsys, file, folder)
		},
	}, true
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
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, workfs.ErrOutsideWorkDir)
}
