package sanitize_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel/sanitize"
)

func TestTextEscapesEveryClass(t *testing.T) {
	for _, c := range testkit.Hidden {
		t.Run(c.Class, func(t *testing.T) {
			in := "before " + c.Raw + " after"
			out, found := sanitize.Clean(in)
			assert.Equal(t, "before "+c.Escaped+" after", out)
			assert.Equal(t, 1, found.Count)
			assert.Equal(t, sanitize.Text(in), out)
			assert.True(t, utf8.ValidString(out))
			for _, r := range out {
				assert.False(t, sanitize.Hidden(r), "%U is still in the output", r)
			}
			assert.Equal(t, out, sanitize.Text(out), "escaping twice changes nothing")
		})
	}
}

// What a reader can see is kept as it is, and comes back without a copy.
func TestTextKeepsVisibleText(t *testing.T) {
	for _, s := range []string{
		"",
		"plain ASCII, with\ttabs and\nnewlines",
		"技能 мой-навык ñandú عربى עברית",
		"emoji 🚀 and a flag 🇫🇷",
		`a literal \u202e stays as written`,
		"a variation selector: ❤️",
	} {
		out, found := sanitize.Clean(s)
		assert.Equal(t, s, out)
		assert.Zero(t, found.Count)
		assert.Empty(t, found.String())
	}
}

// A carriage return ending a line is a line ending: dropped, not escaped,
// and not reported.
func TestTextLineEndings(t *testing.T) {
	out, found := sanitize.Clean("one\r\ntwo\r\n")
	assert.Equal(t, "one\ntwo\n", out)
	assert.Zero(t, found.Count)
	assert.Equal(t, `50%\u000d100%`+"\n", sanitize.Text("50%\r100%\n"), "a lone CR would rewrite the line")
}

// The warning names how many were found and the first one's code point and
// class.
// TestCleanAtEveryOffset puts each kind of hidden byte at every offset of
// a string, so that the eight-bytes-at-a-time scan of ASCII meets it in
// each lane of a word and in the tail, and checks that Clean finds it;
// tabs and line breaks there stay as they are.
func TestCleanAtEveryOffset(t *testing.T) {
	var hidden []string
	for c := range 0x20 {
		if c != '\t' && c != '\n' {
			hidden = append(hidden, string(rune(c)))
		}
	}
	hidden = append(hidden, "\x7f", "\x80", "\xff", "\u0085", "\u202e", "\u2028", "\U000E0041")
	for off := range 20 {
		for _, h := range hidden {
			s := strings.Repeat("a", off) + h + strings.Repeat("~", 19-off)
			got, f := sanitize.Clean(s)
			assert.Equal(t, 1, f.Count, "Clean(%q) = %q, %+v", s, got, f)
			assert.NotEqual(t, s, got, "Clean(%q) left it as it is", s)
		}
		for _, v := range []string{"\t", "\n", " ", "~", "é"} {
			s := strings.Repeat("a", off) + v + strings.Repeat("~", 19-off)
			got, f := sanitize.Clean(s)
			assert.Equal(t, 0, f.Count, "Clean(%q) = %q, %+v", s, got, f)
			assert.Equal(t, s, got)
		}
	}
}

func TestFoundString(t *testing.T) {
	for in, want := range map[string]string{
		"a\u202eb\u200bc": "2 hidden characters (the first U+202E, a bidi control)",
		"x\U000E0041":     "1 hidden character (the first U+E0041, a Unicode TAG character)",
		"\u200b":          "1 hidden character (the first U+200B, a zero-width character)",
		"\x1b[0m":         "1 hidden character (the first U+001B, a control character)",
		"\u2029":          "1 hidden character (the first U+2029, a line or paragraph separator)",
		"\u00ad":          "1 hidden character (the first U+00AD, an invisible format character)",
		"\xff":            "1 hidden character (the first a byte that is not UTF-8)",
	} {
		_, found := sanitize.Clean(in)
		assert.Equal(t, want, found.String(), "%q", in)
	}
}

func FuzzText(f *testing.F) {
	for _, c := range testkit.Hidden {
		f.Add("x" + c.Raw + "y")
	}
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		out := sanitize.Text(s)
		if !utf8.ValidString(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		for _, r := range out {
			if sanitize.Hidden(r) {
				t.Fatalf("%U survived in %q", r, out)
			}
		}
		if sanitize.Text(out) != out {
			t.Fatalf("not idempotent: %q", out)
		}
		if !strings.ContainsFunc(s, func(r rune) bool { return sanitize.Hidden(r) || r == utf8.RuneError }) && !strings.Contains(s, "\r") && out != s {
			t.Fatalf("changed visible text: %q -> %q", s, out)
		}
	})
}

func BenchmarkText(b *testing.B) {
	desc := strings.Repeat("Deploys the service to the staging cluster; use it when asked to ship. ", 4)
	b.Run("clean ASCII", func(b *testing.B) {
		for b.Loop() {
			_ = sanitize.Text(desc)
		}
	})
	uni := strings.Repeat("Déploie le service — 技能 — sur la grappe de préproduction. ", 4)
	b.Run("clean Unicode", func(b *testing.B) {
		for b.Loop() {
			_ = sanitize.Text(uni)
		}
	})
	hidden := desc + "\u202e"
	b.Run("one hidden", func(b *testing.B) {
		for b.Loop() {
			_ = sanitize.Text(hidden)
		}
	})
}
