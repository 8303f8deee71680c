package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/workfs"
)

// The per-skill limits of the Agent Skills extension: a skill past them is
// still served, without the files that do not fit, and a warning names them.
const (
	MaxFiles = skills.MaxFiles
	MaxBytes = skills.MaxBytes // summed over a skill's files
)

// maxDepth bounds how deep a skill's folders are walked (symlinked folders
// that point back up would otherwise loop until the file limit).
const maxDepth = 32

// ErrNotAFile is returned for a path that names no file of the skill.
var ErrNotAFile = errors.New("not a file of the skill")

// layout says where a skill's files live on disk.
type layout struct {
	root    string // the guard's root: the skill's base dir, or a flat skill's folder
	skillMD string // the instructions' path relative to root
	folder  bool   // every file under root belongs to the skill (not a flat .md)
}

// layoutOf returns where s lives, or false for a skill with no file (an
// in-process capability's): its SKILL.md is rendered from the catalog.
func layoutOf(s skills.Skill) (layout, bool) {
	if s.File == "" {
		return layout{}, false
	}
	dir, base := filepath.Dir(s.File), filepath.Base(s.File)
	if dir == s.BaseDir && (base == "SKILL.md" || base == "skill.md") {
		return layout{root: dir, skillMD: base, folder: true}, true
	}
	return layout{root: dir, skillMD: base}, true
}

// fileEntry is one file of a skill's manifest.
type fileEntry struct {
	Rel    string // slash path relative to the skill; SKILL.md for the instructions
	Size   int64
	Digest string // "sha256:<hex>", when asked for
}

// manifest lists the files of s in order (SKILL.md first, then by path in
// byte order), within MaxFiles and MaxBytes. With digests, each file is read
// and hashed and its size is what was read. A file that cannot be read, a
// symlink that points outside the skill and whatever does not fit the
// limits are left out, each named in a warning; the rest is served.
func manifest(ctx context.Context, s skills.Skill, digests bool) ([]fileEntry, []string) {
	l, ok := layoutOf(s)
	if !ok && !digests {
		return []fileEntry{{Rel: SkillFile}}, nil // listing it costs no load
	}
	if !ok {
		data, err := synthesized(ctx, s)
		if err != nil {
			return nil, []string{fmt.Sprintf("skill %q: %q left out: %v", s.Name, SkillFile, err)}
		}
		e := fileEntry{Rel: SkillFile, Size: int64(len(data))}
		if digests {
			e.Digest = digest(data)
		}
		return []fileEntry{e}, nil
	}
	g, err := workfs.New(l.root)
	if err != nil {
		return nil, []string{fmt.Sprintf("skill %q: its files cannot be read: %v", s.Name, err)}
	}
	defer g.Close()

	var warns []string
	var found []fileEntry
	if fi, err := g.Stat(l.skillMD); err != nil {
		warns = append(warns, fmt.Sprintf("skill %q: %q left out: %v", s.Name, SkillFile, err))
	} else {
		found = append(found, fileEntry{Rel: SkillFile, Size: fi.Size()})
	}
	if l.folder {
		w := walker{g: g, skill: s.Name, skip: l.skillMD}
		w.walk(".", 0)
		found = append(found, w.files...)
		warns = append(warns, w.warns...)
	}

	var out []fileEntry
	var left []string
	var total int64
	for _, e := range found {
		if digests {
			data, err := g.ReadFile(diskPath(l, e.Rel))
			if err != nil {
				warns = append(warns, fmt.Sprintf("skill %q: %q left out: %v", s.Name, e.Rel, err))
				continue
			}
			e.Size, e.Digest = int64(len(data)), digest(data)
		}
		if len(out) >= MaxFiles || total+e.Size > MaxBytes {
			left = append(left, e.Rel)
			continue
		}
		total += e.Size
		out = append(out, e)
	}
	if len(left) > 0 {
		warns = append(warns, fmt.Sprintf("skill %q: %d file(s) left out past the limits of %d files and %d bytes a skill: %s",
			s.Name, len(left), MaxFiles, MaxBytes, nameSome(left, 10)))
	}
	return out, warns
}

// walker collects the files under a skill folder through the guard.
type walker struct {
	g     *workfs.FS
	skill string
	skip  string // the instructions file, listed first as SKILL.md
	files []fileEntry
	warns []string
}

func (w *walker) walk(dir string, depth int) {
	if depth > maxDepth {
		w.warns = append(w.warns, fmt.Sprintf("skill %q: %q left out: deeper than %d folders", w.skill, dir, maxDepth))
		return
	}
	entries, err := w.g.ReadDir(dir)
	if err != nil {
		w.warns = append(w.warns, fmt.Sprintf("skill %q: folder %q left out: %v", w.skill, dir, err))
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		rel := filepath.ToSlash(p)
		if strings.HasPrefix(name, ".") || (dir == "." && (name == w.skip || name == "SKILL.md" || name == "skill.md")) {
			continue // hidden entries are not served; the instructions are listed first
		}
		fi, err := w.g.Stat(p) // follows symlinks, refusing those that lead out
		if err != nil {
			w.warns = append(w.warns, fmt.Sprintf("skill %q: %q left out: %v", w.skill, rel, err))
			continue
		}
		switch {
		case fi.IsDir():
			w.walk(p, depth+1)
		case fi.Mode().IsRegular():
			w.files = append(w.files, fileEntry{Rel: rel, Size: fi.Size()})
		default:
			w.warns = append(w.warns, fmt.Sprintf("skill %q: %q left out: not a regular file (%s)", w.skill, rel, fi.Mode().Type()))
		}
	}
}

// readSkillFile reads one file of s, rel being its slash path relative to
// the skill. It goes through the guard rooted at the skill's base dir, so
// "..", absolute paths and symlinks that lead out are refused with an
// error wrapping workfs.ErrOutsideWorkDir; hidden files and, for a flat
// skill, anything but SKILL.md are ErrNotAFile.
func readSkillFile(ctx context.Context, s skills.Skill, rel string) ([]byte, error) {
	l, ok := layoutOf(s)
	if rel == SkillFile && !ok {
		return synthesized(ctx, s)
	}
	if !ok || (rel != SkillFile && !l.folder) {
		return nil, fmt.Errorf("read %q of skill %q: %w", rel, s.Name, ErrNotAFile)
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") && seg != ".." && seg != "." {
			return nil, fmt.Errorf("read %q of skill %q: hidden: %w", rel, s.Name, ErrNotAFile)
		}
	}
	g, err := workfs.New(l.root)
	if err != nil {
		return nil, fmt.Errorf("read %q of skill %q: %w", rel, s.Name, err)
	}
	defer g.Close()
	p := diskPath(l, rel)
	fi, err := g.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("read %q of skill %q: %w", rel, s.Name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %q of skill %q: %w", rel, s.Name, ErrNotAFile)
	}
	if fi.Size() > MaxBytes {
		return nil, fmt.Errorf("read %q of skill %q: %d bytes is over the limit of %d", rel, s.Name, fi.Size(), MaxBytes)
	}
	data, err := g.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read %q of skill %q: %w", rel, s.Name, err)
	}
	return data, nil
}

// diskPath maps a skill-relative slash path to the guard's path.
func diskPath(l layout, rel string) string {
	if rel == SkillFile {
		return l.skillMD
	}
	return filepath.FromSlash(rel)
}

// synthesized renders the SKILL.md of a skill that has no file: its
// frontmatter from the catalog, then the body its loader returns now.
func synthesized(ctx context.Context, s skills.Skill) ([]byte, error) {
	if s.Load == nil {
		return nil, fmt.Errorf("skill %q has no loader", s.Name)
	}
	c, err := s.Load(ctx)
	if err != nil {
		return nil, err
	}
	fm, err := yaml.Marshal(struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}{s.Name, s.Description})
	if err != nil {
		return nil, err
	}
	return []byte("---\n" + string(fm) + "---\n" + c.Body), nil
}

func digest(data []byte) string { return skills.FileDigest(data) }

// mimeType names a file's media type: text/markdown for Markdown, the
// extension's type when known, else text/plain or octet-stream by content.
func mimeType(rel string, data []byte) string {
	ext := strings.ToLower(path.Ext(rel))
	if ext == ".md" || ext == ".markdown" {
		return "text/markdown"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	if data != nil && isText(data) {
		return "text/plain"
	}
	if data == nil {
		return ""
	}
	return "application/octet-stream"
}

// isText reports content served as text rather than a blob.
func isText(data []byte) bool {
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}

// nameSome lists up to n names, each quoted (a file name is data: it may
// hold a comma, a newline or an escape sequence), then how many more.
func nameSome(names []string, n int) string {
	quoted := make([]string, 0, min(n, len(names)))
	for _, name := range names[:min(n, len(names))] {
		quoted = append(quoted, strconv.Quote(name))
	}
	if len(names) <= n {
		return strings.Join(quoted, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(quoted, ", "), len(names)-n)
}
