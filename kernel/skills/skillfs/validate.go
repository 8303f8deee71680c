package skillfs

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Report is the strict verdict on one skill file.
type Report struct {
	// Path is the SKILL.md or flat .md checked (or the folder, when it has
	// no SKILL.md).
	Path string `json:"path"`
	// Name is the skill's name as it would load ("" when unusable).
	Name string `json:"name"`
	// Errors are spec violations: the skill may not load everywhere.
	Errors []string `json:"errors"`
	// Warnings are doubts, such as unknown keys.
	Warnings []string `json:"warnings"`
	// Info names what Helios ignores: keys other agents define.
	Info []string `json:"info,omitempty"`
}

// OK reports whether the skill has no errors.
func (r Report) OK() bool { return len(r.Errors) == 0 }

// Validate checks, strictly against the Agent Skills spec, a skill folder, a
// flat .md skill, or a root of skills (every direct child). Every spec
// violation is an error; unknown keys are warnings. A path that does not
// exist is an error.
func Validate(fsys FS, path string) ([]Report, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	fi, err := fsys.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	if !fi.IsDir() {
		folder := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
		if strings.EqualFold(filepath.Base(abs), "SKILL.md") {
			folder = filepath.Base(filepath.Dir(abs))
		}
		return []Report{validateFile(fsys, abs, folder)}, nil
	}
	if file, ok := skillFileIn(fsys, abs); ok {
		return []Report{validateFile(fsys, file, filepath.Base(abs))}, nil
	}
	// A root: every direct, non-hidden child that can be a skill.
	entries, err := fsys.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
	var out []Report
	seen := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(abs, name)
		fi, err := fsys.Stat(p)
		var r Report
		switch {
		case err != nil:
			r = Report{Path: p, Errors: []string{fmt.Sprintf("cannot read: %v", err)}, Warnings: []string{}}
		case fi.IsDir():
			file, ok := skillFileIn(fsys, p)
			if !ok {
				r = Report{Path: p, Errors: []string{"folder has no SKILL.md"}, Warnings: []string{}}
				break
			}
			r = validateFile(fsys, file, name)
		case fi.Mode().IsRegular() && strings.HasSuffix(name, ".md"):
			r = validateFile(fsys, p, strings.TrimSuffix(name, ".md"))
		default:
			continue
		}
		if r.Name != "" {
			if first, dup := seen[r.Name]; dup {
				r.Errors = append(r.Errors, fmt.Sprintf("name %q is already used by %s in this root", r.Name, first))
			} else {
				seen[r.Name] = r.Path
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func skillFileIn(fsys FS, dir string) (string, bool) {
	for _, n := range []string{"SKILL.md", "skill.md"} {
		p := filepath.Join(dir, n)
		if fi, err := fsys.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

func validateFile(fsys FS, file, folder string) Report {
	r := Report{Path: file, Errors: []string{}, Warnings: []string{}}
	data, err := readBounded(fsys, file, defaultMaxFileSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			r.Errors = append(r.Errors, "file does not exist")
		} else {
			r.Errors = append(r.Errors, fmt.Sprintf("cannot read: %v", err))
		}
		return r
	}
	meta, _, findings := ParseSkill(file, folder, data)
	usable := true
	for _, f := range findings {
		switch f.Severity {
		case Unusable:
			usable = false
			r.Errors = append(r.Errors, f.Message)
		case SpecViolation:
			r.Errors = append(r.Errors, f.Message)
		case Advice:
			r.Warnings = append(r.Warnings, f.Message)
		case Ignored:
			r.Info = append(r.Info, f.Message)
		}
	}
	if usable {
		r.Name = meta.Name
	}
	return r
}
