package skillinstall

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/helios-agents/helios/kernel/skills"
)

// Report is what Verify found.
type Report struct {
	Root string `json:"root"`
	Lock string `json:"lock"`
	// OK is true when every locked skill matches its lock entry.
	OK     bool    `json:"ok"`
	Skills []Check `json:"skills"`
}

// Check compares one installed skill with its lock entry.
type Check struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	OK   bool   `json:"ok"`
	// Installed is false when the skill's folder is missing.
	Installed bool `json:"installed"`
	// Changed, Missing and Extra are slash paths in the skill folder: a
	// file whose digest differs from the lock's (or whose kind changed), a
	// locked file that is gone, a file the lock does not list.
	Changed []string `json:"changed"`
	Missing []string `json:"missing"`
	Extra   []string `json:"extra"`
	// Unreadable are files that could not be read, with the reason.
	Unreadable []string `json:"unreadable"`
}

// Verify compares every locked skill's folder with its lock entry, file by
// file. A corrupted lockfile is an error; drift is reported, not an error.
func (in *Installer) Verify(ctx context.Context) (Report, error) {
	lock, err := ReadLock(in.lockFile)
	if err != nil {
		return Report{}, fmt.Errorf("verify: %w", err)
	}
	r := Report{Root: in.root, Lock: in.lockFile, OK: true, Skills: []Check{}}
	for _, e := range lock.Skills {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		c := in.check(e)
		r.OK = r.OK && c.OK
		r.Skills = append(r.Skills, c)
	}
	return r, nil
}

// check compares the folder of e with e.Files. It reads only locked files,
// each at most skills.MaxBytes (a larger one cannot match), and never
// follows a symlink: a symlink is compared by its target.
func (in *Installer) check(e Locked) Check {
	dir := filepath.Join(in.root, e.Name)
	c := Check{Name: e.Name, Dir: dir, Changed: []string{}, Missing: []string{}, Extra: []string{}, Unreadable: []string{}}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		c.Missing = sortedKeys(e.Files)
		return c
	}
	c.Installed = true
	onDisk := map[string]os.FileMode{}
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			c.Unreadable = append(c.Unreadable, fmt.Sprintf("%s: %v", orDot(rel), err))
			return
		}
		for _, de := range entries {
			r := join(rel, de.Name())
			if de.IsDir() && depth < maxDepth {
				walk(r, depth+1)
				continue
			}
			onDisk[r] = de.Type()
		}
	}
	walk("", 0)
	for _, f := range sortedKeys(e.Files) {
		mode, ok := onDisk[f]
		if !ok {
			c.Missing = append(c.Missing, f)
			continue
		}
		d, err := digestOnDisk(filepath.Join(dir, filepath.FromSlash(f)), mode)
		switch {
		case err != nil:
			c.Unreadable = append(c.Unreadable, fmt.Sprintf("%s: %v", f, err))
		case d != e.Files[f]:
			c.Changed = append(c.Changed, f)
		}
	}
	for f := range onDisk {
		if _, ok := e.Files[f]; !ok {
			c.Extra = append(c.Extra, f)
		}
	}
	slices.Sort(c.Extra)
	c.OK = len(c.Changed)+len(c.Missing)+len(c.Extra)+len(c.Unreadable) == 0
	return c
}

// digestOnDisk digests a file as the lock does: a regular file's bytes, a
// symlink's target. Anything else has no digest a lock can hold.
func digestOnDisk(p string, mode os.FileMode) (string, error) {
	switch {
	case mode&os.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		return skills.FileDigest([]byte(t)), nil
	case mode.IsRegular():
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, skills.MaxBytes+1))
		if err != nil {
			return "", err
		}
		return skills.FileDigest(data), nil
	default:
		return "not a file: " + mode.Type().String(), nil
	}
}

func orDot(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
