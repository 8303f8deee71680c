package catalog

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/helios-agents/helios/kernel/skills/internal/text"
)

// plain reports ASCII text that collapsing and escaping leave unchanged.
func plain(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '&', c == '<', c == '>', c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && s[i+1] == ' ':
			return false
		}
	}
	return true
}

// collapsedWidth returns the runes of collapse(s) and its escaped width,
// without building it.
func collapsedWidth(s string) (n, w int) {
	space, started := false, false
	for i := 0; i < len(s); {
		c := s[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if c == ' ' || c >= '\t' && c <= '\r' || c >= utf8.RuneSelf && unicode.IsSpace(r) {
			space = started
			continue
		}
		if space {
			n, w, space = n+1, w+1, false
		}
		started = true
		n++
		w += runeWidth(r, true)
	}
	return n, w
}

// cutWords returns s when it fits in limit characters, else its longest
// prefix that ends at a word end and fits with "…" appended, plus "…".
// Characters are counted as escaped markup when escaped is set. A word end
// is a rune boundary before a space, or beside a Han, Hiragana or Katakana
// character (scripts written without spaces). When no word end fits, a
// shortened description (escaped) is dropped (""), while the fixed limit of
// a full line falls back to the last rune boundary that fits.
func cutWords(s string, limit int, escaped bool) string {
	if w := width(s, escaped); w <= limit {
		return s
	}
	best, lastRune := -1, -1
	w := 0
	var prev rune = -1
	for i, r := range s {
		if w+1 > limit {
			break
		}
		if prev >= 0 {
			lastRune = i
			if prev != ' ' && (r == ' ' || text.Unbroken(prev) || text.Unbroken(r)) {
				best = i
			}
		}
		w += runeWidth(r, escaped)
		prev = r
	}
	if best < 0 {
		if escaped || lastRune < 0 {
			return ""
		}
		best = lastRune
	}
	return strings.TrimRight(s[:best], " ") + "…"
}

func runeWidth(r rune, escaped bool) int {
	if escaped {
		switch r {
		case '&':
			return 5 // &amp;
		case '<', '>':
			return 4 // &lt; &gt;
		}
	}
	return 1
}

func width(s string, escaped bool) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r, escaped)
	}
	return w
}
