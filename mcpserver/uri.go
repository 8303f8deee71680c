package mcpserver

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Scheme is the URI scheme of skill files.
const Scheme = "skill"

// SkillFile is the resource name of a skill's instructions, whatever the
// file is called on disk (skill.md, or a flat <name>.md).
const SkillFile = "SKILL.md"

// fileURI returns skill://<name>/<rel>, each segment escaped so that any
// file name makes a valid URI.
func fileURI(name, rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return Scheme + "://" + url.PathEscape(name) + "/" + strings.Join(segs, "/")
}

// errBadURI is wrapped by every parse failure.
var errBadURI = errors.New("not a skill file URI")

// parseURI splits skill://<name>/<rel> into the skill name and the file's
// path relative to the skill, unescaped. It does not judge rel: ".." and
// absolute forms are left for the guard, which refuses them with a reason.
func parseURI(uri string) (name, rel string, err error) {
	rest, ok := strings.CutPrefix(uri, Scheme+"://")
	if !ok {
		return "", "", fmt.Errorf("%w: %q does not start with %s://", errBadURI, uri, Scheme)
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return "", "", fmt.Errorf("%w: %q has a query or fragment", errBadURI, uri)
	}
	n, r, ok := strings.Cut(rest, "/")
	if !ok || n == "" || r == "" {
		return "", "", fmt.Errorf("%w: %q has no skill name and file path", errBadURI, uri)
	}
	if name, err = url.PathUnescape(n); err != nil {
		return "", "", fmt.Errorf("%w: %q: %v", errBadURI, uri, err)
	}
	if rel, err = url.PathUnescape(r); err != nil {
		return "", "", fmt.Errorf("%w: %q: %v", errBadURI, uri, err)
	}
	return name, rel, nil
}
