package mcpserver

import (
	"net/url"
	"strings"
	"testing"

	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// publishedNames are the shapes of names published skills really use
// (spaces, parentheses, semicolons, "#", "%", unicode, upper case), and
// the worst a frontmatter can hold.
var publishedNames = []string{
	"pdf", "git-workflow", "café", "技能", "données-2",
	"API Fuzzing for Bug Bounty", "Cloud Security (AWS)", "red-team; tools", "C# (.NET)",
	"100% coverage", "PDF", "Next.js", "what?", "a/b", "a@b:c", "tab\there", "line\nbreak",
	"\u202eevil", "..", ".", "%2e%2e", "%", "skill://x", "[::1]", "~user", "a+b=c&d$", "\xff\xfe",
}

// Each name builds a URI that net/url accepts (the SDK panics on any it
// refuses) and that reads back as exactly that name and file; a name
// following the Agent Skills rules is the authority, any other the first
// path segment.
func TestFileURIRoundTrip(t *testing.T) {
	for _, name := range publishedNames {
		for _, rel := range []string{SkillFile, "references/FORMS.md", "scripts/run me (1).sh", "a%20b/#c?.md", "../x", "/etc/passwd"} {
			u := fileURI(name, rel)
			_, err := url.Parse(u)
			require.NoError(t, err, "%q %q → %s", name, rel, u)
			n, r, err := parseURI(u)
			require.NoError(t, err, u)
			assert.Equal(t, name, n, u)
			assert.Equal(t, rel, r, u)
			assert.Equal(t, skillfs.ValidateName(name) == nil, !strings.HasPrefix(u, "skill:///"), "the form of %s", u)
		}
	}
	assert.Equal(t, "skill://pdf/SKILL.md", fileURI("pdf", SkillFile))
	assert.Equal(t, "skill://caf%C3%A9/SKILL.md", fileURI("café", SkillFile))
	assert.Equal(t, "skill:///API%20Fuzzing%20for%20Bug%20Bounty/SKILL.md", fileURI("API Fuzzing for Bug Bounty", SkillFile))
	assert.Equal(t, "skill:///PDF/scripts/run%20me%20%281%29.sh", fileURI("PDF", "scripts/run me (1).sh"))
	assert.Equal(t, "skill:///C%23%20%28.NET%29/SKILL.md", fileURI("C# (.NET)", SkillFile))
}

// A client may write a name in either form, escaped as it likes; both
// read back. What is not a skill file URI is refused.
func TestParseURIForms(t *testing.T) {
	for uri, want := range map[string][2]string{
		"skill://API%20Fuzzing/SKILL.md": {"API Fuzzing", SkillFile},
		"skill:///pdf/SKILL.md":          {"pdf", SkillFile},
		"SKILL://pdf/a/b.md":             {"pdf", "a/b.md"},
		"skill://a(b);c/x%2Fy":           {"a(b);c", "x/y"},
		"skill:///a%2Fb/SKILL.md":        {"a/b", SkillFile},
		"skill://x//etc/passwd":          {"x", "/etc/passwd"},
	} {
		n, r, err := parseURI(uri)
		if assert.NoError(t, err, uri) {
			assert.Equal(t, want, [2]string{n, r}, uri)
		}
	}
	for _, uri := range []string{"", "skill:", "skill://", "skill://pdf", "skill://pdf/", "skill:///", "skill:////SKILL.md",
		"skill:///pdf", "file://pdf/SKILL.md", "skill://pdf/SKILL.md?x", "skill://pdf/SKILL.md#top", "skill://p%zz/SKILL.md"} {
		_, _, err := parseURI(uri)
		assert.ErrorIs(t, err, errBadURI, uri)
	}
}

// FuzzSkillURI: any name and file path build a URI that net/url accepts,
// that an independent RFC 3986 parser (net/url) reads as the same name,
// and that parseURI reads back exactly; rebuilding from what was read
// gives the same URI.
func FuzzSkillURI(f *testing.F) {
	for _, name := range publishedNames {
		f.Add(name, SkillFile)
	}
	f.Add("pdf", "references/a b/c#d?.md")
	f.Fuzz(func(t *testing.T, name, rel string) {
		if name == "" || rel == "" {
			t.Skip("a catalog name and a file path are never empty")
		}
		u := fileURI(name, rel)
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatalf("fileURI(%q, %q) = %s: net/url refuses it: %v", name, rel, u, err)
		}
		for i := 0; i < len(u); i++ {
			if u[i] <= ' ' || u[i] >= 0x7f {
				t.Fatalf("fileURI(%q, %q) = %q holds byte %#x unescaped", name, rel, u, u[i])
			}
		}
		if skillfs.ValidateName(name) == nil {
			if parsed.Host != name {
				t.Fatalf("%s: net/url reads the authority as %q, not %q", u, parsed.Host, name)
			}
		} else {
			seg, _, _ := strings.Cut(strings.TrimPrefix(parsed.EscapedPath(), "/"), "/")
			if got, err := url.PathUnescape(seg); parsed.Host != "" || err != nil || got != name {
				t.Fatalf("%s: net/url reads host %q and first segment %q (%v), not the name %q", u, parsed.Host, got, err, name)
			}
		}
		n, r, err := parseURI(u)
		if err != nil || n != name || r != rel {
			t.Fatalf("parseURI(%s) = %q, %q, %v; want %q, %q", u, n, r, err, name, rel)
		}
		if again := fileURI(n, r); again != u {
			t.Fatalf("rebuilt %s as %s", u, again)
		}
	})
}
