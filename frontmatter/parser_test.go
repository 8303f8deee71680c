package frontmatter

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

// badCharRunes is badChar written the plain way, a rune at a time: the
// reference its ASCII fast loop is held to.
func badCharRunes(text string) (int, string) {
	line := 1
	for i, r := range text {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"):
			return line, fmt.Sprintf("invalid UTF-8 byte 0x%02x", text[i])
		case r == '\n':
			line++
		case !yamlAllowed(r):
			return line, fmt.Sprintf("character %U is not allowed", r)
		}
	}
	return 0, ""
}

// Protects: the character check, which looks at eight bytes at a time
// while they are all printable ASCII, still finds every byte YAML refuses
// (controls, DEL) and counts every line, wherever in a word it stands:
// badChar gives what the plain rune-at-a-time check gives.
func TestBadCharAtEveryOffset(t *testing.T) {
	var refused []byte
	for c := range byte(0x80) {
		if !yamlAllowed(rune(c)) {
			refused = append(refused, c)
		}
	}
	require.Contains(t, refused, byte(0x7F))
	const plain = "name: a-skill\ndescription: Every byte is printable ASCII.\n"
	for i := range len(plain) {
		for _, c := range refused {
			text := plain[:i] + string(c) + plain[i:]
			wantLine, wantReason := badCharRunes(text)
			line, reason := badChar(text)
			assert.Equal(t, wantReason, reason, "badChar(%q)", text)
			assert.Equal(t, wantLine, line, "badChar(%q)", text)
		}
	}
}

// parserTexts are frontmatter texts a Parser meets one after another: every
// form the real-shaped corpus writes, its files, and texts that fail.
func parserTexts() []string {
	out := skillsfloor.RealFormExamples(1)
	for _, f := range skillsfloor.RealSkills(300, 1) {
		text := strings.ReplaceAll(strings.TrimPrefix(string(f.Data), utf8BOM), "\r\n", "\n")
		if _, rest, ok := strings.Cut(text, "---\n"); ok {
			if fm, _, ok := strings.Cut(rest, "\n---\n"); ok {
				out = append(out, fm+"\n")
			}
		}
	}
	return append(out, "", "a: b\na: c\n", "- a\n", "a: [b\n", "a: \x7f\n", "a: *x\n",
		"metadata:\n  a: b\n  c: d\nname: x\n", "name: after\ndescription: the last one\n")
}

// Protects: a Parser reused from one file to the next (discovery keeps one a
// worker) gives each file exactly what a fresh Parse gives: nothing of an
// earlier file — a key, a nested entry, a node — leaks into a later one,
// whether the earlier one parsed or failed.
func TestParserReuseMatchesParse(t *testing.T) {
	texts := parserTexts()
	var p Parser
	reversed := slices.Clone(texts)
	slices.Reverse(reversed)
	for _, order := range [][]string{texts, reversed} {
		for _, text := range order {
			data := []byte("---\n" + text + "---\nbody\n")
			want, wantErr := Parse("f.md", data)
			got, err := p.Parse("f.md", data)
			if wantErr != nil {
				assert.Equal(t, wantErr, err, "error of %q", text)
				assert.Nil(t, got)
				continue
			}
			require.NoError(t, err, "%q", text)
			assert.Equal(t, want.Keys, got.Keys, "keys of %q", text)
			require.Len(t, got.Fields, len(want.Fields), "fields of %q", text)
			for k, v := range want.Fields {
				require.Contains(t, got.Fields, k, "%q", text)
				assert.Equal(t, *v, *got.Fields[k], "value of %q in %q", k, text)
			}
			assert.Equal(t, want.Body, got.Body)
			assert.Equal(t, want.BodyLine, got.BodyLine)
		}
	}
}
