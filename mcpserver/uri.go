package mcpserver

import (
	"errors"
	"fmt"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"net/url"
	"strings"
)

// Scheme is the URI scheme of skill files.
const Scheme = "skill"

// SkillFile is the resource name of a skill's instructions, whatever the
// file is called on disk (skill.md, or a flat <name>.md).
const SkillFile = "SKILL.md"

// fileURI returns the URI of the file rel (a slash path relative to the
// skill) of the skill name, every part percent-encoded (RFC 3986), so that
// any name and any file name make a URI that parseURI reads back exactly.
//
// A name that follows the Agent Skills naming rules (lowercase letters of
// any script, digits, single hyphens) is the URI's authority, as SEP-2640
// has it: skill://pdf/SKILL.md, non-ASCII letters as their UTF-8 octets
// (skill://caf%C3%A9/SKILL.md). Any other name (published skills are called
// "API Fuzzing for Bug Bounty", "C# (.NET)", "PDF") cannot be an authority:
// an authority is case-insensitive, so "PDF" and "pdf" would be one URI,
// and parsers refuse escaped ASCII in one (Go's net/url rejects "%20",
// which the MCP SDK turns into a panic). It becomes the first path segment
// under an empty authority instead, which no conforming name uses:
// skill:///API%20Fuzzing%20for%20Bug%20Bounty/SKILL.md.
func fileURI(name, rel string) string {
	var b strings.Builder
	b.Grow(len(Scheme) + 4 + len(name) + len(rel))
	b.WriteString(Scheme + "://")
	if skillfs.ValidateName(name) != nil {
		b.WriteByte('/')
	}
	b.WriteString(url.PathEscape(name))
	for seg := range strings.SplitSeq(rel, "/") {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(seg))
	}
	return b.String()
}

// errBadURI is wrapped by every parse failure.
var errBadURI = errors.New("not a skill file URI")

// parseURI splits a skill file URI into the skill name and the file's path
// relative to the skill, unescaped: skill://<name>/<rel> and
// skill:///<name>/<rel> alike, whichever form the name was published in
// (a client may write either). The scheme is case-insensitive. It does not
// judge rel: ".." and absolute forms are left for the guard, which refuses
// them with a reason.
func parseURI(uri string) (name, rel string, err error) {
	prefix := Scheme + "://"
	if len(uri) < len(prefix) || !strings.EqualFold(uri[:len(prefix)], prefix) {
		return "", "", fmt.Errorf("%w: %q does not start with %s", errBadURI, uri, prefix)
	}
	rest := uri[len(prefix):]
	if strings.ContainsAny(rest, "?#") {
		return "", "", fmt.Errorf("%w: %q has a query or fragment", errBadURI, uri)
	}
	n, r, _ := strings.Cut(rest, "/")
	if n == "" { // the path form: an empty authority, then the name
		n, r, _ = strings.Cut(r, "/")
	}
	if n == "" || r == "" {
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
