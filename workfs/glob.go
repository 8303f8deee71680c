package workfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Glob returns the absolute paths (under [FS.Dir], as the user sees them)
// matching pattern, sorted in byte order; nil when nothing matches.
//
// The pattern is relative to the work dir or absolute inside it, and uses
// the syntax of [path/filepath.Match] per path segment (`*`, `?`, `[...]`,
// `\` escapes), plus `**` as a whole segment: any number of segments. A
// trailing `**` matches everything beneath (not the directory itself);
// `a/**/b` also matches `a/b`. `*` matches names starting with a dot too.
//
// A pattern that reaches outside ("../**", "/etc/*", or an absolute prefix
// that is not literally the work dir) is an [*EscapeError]. `**` does not
// descend into symlinked directories, so a link cycle cannot make it loop;
// other segments follow links that stay inside. Paths that the FS would
// refuse — a symlink pointing out, say — are left out of the result, so
// every path returned can be used with the other methods. Like
// filepath.Glob, Glob ignores I/O errors such as unreadable directories; the
// only other error is a malformed pattern ([path/filepath.ErrBadPattern]).
func (f *FS) Glob(pattern string) ([]string, error) {
	rel, err := f.lexical(pattern, "glob pattern reaches outside")
	if err != nil {
		return nil, f.opErr("glob", pattern, err)
	}
	var segs []string
	if rel != "." {
		segs = strings.Split(rel, string(filepath.Separator))
	}
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if _, err := filepath.Match(s, ""); err != nil {
			return nil, fmt.Errorf("glob %q: %w", pattern, err)
		}
	}

	g := globber{f: f, found: map[string]bool{}}
	g.match(".", segs)
	if len(g.found) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(g.found))
	for rel := range g.found {
		out = append(out, filepath.Join(f.dir, rel))
	}
	slices.Sort(out)
	return out, nil
}

type globber struct {
	f     *FS
	found map[string]bool // relative paths; a set, because `**/**` reaches a path twice
}

// match adds the paths below dir (relative, existing) that match segs.
func (g *globber) match(dir string, segs []string) {
	if len(segs) == 0 {
		g.add(dir)
		return
	}
	seg, rest := segs[0], segs[1:]
	switch {
	case seg == "**":
		if len(rest) > 0 {
			g.match(dir, rest) // zero segments
		}
		for _, e := range g.list(dir) {
			child := filepath.Join(dir, e.Name())
			if len(rest) == 0 {
				g.add(child)
			}
			// Real directories only: a symlinked one could lead back up.
			if e.IsDir() {
				g.match(child, segs)
			}
		}
	case !hasMeta(seg):
		// A literal segment needs no listing; it may name a link inside.
		g.match(filepath.Join(dir, seg), rest)
	default:
		for _, e := range g.list(dir) {
			if ok, _ := filepath.Match(seg, e.Name()); ok {
				g.match(filepath.Join(dir, e.Name()), rest)
			}
		}
	}
}

// list reads dir, following links that stay inside; errors mean no entries.
func (g *globber) list(dir string) []fs.DirEntry {
	entries, err := g.f.ReadDir(dir)
	if err != nil {
		return nil
	}
	return entries
}

// add records rel when it exists and the FS would let it be used: an entry
// that is a symlink pointing outside is left out.
func (g *globber) add(rel string) {
	if _, err := g.f.Lstat(rel); err != nil {
		return
	}
	if _, err := g.f.Resolve(rel); errors.Is(err, ErrOutsideWorkDir) {
		return
	}
	g.found[rel] = true
}

func hasMeta(seg string) bool {
	return strings.ContainsAny(seg, `*?[\`)
}
