package sanitize

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden reports whether Text escapes r.
func Hidden(r rune) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f
	}
	switch {
	case r >= 0xE0000 && r <= 0xE007F, r == '\u2028', r == '\u2029':
		return true
	}
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)
}

// Found is what Clean found in a string.
type Found struct {
	// Count is how many hidden characters (and bytes of invalid UTF-8)
	// were escaped; zero means the string came back unchanged.
	Count int
	// First is the first of them; utf8.RuneError for an invalid byte.
	First rune
}

// String says what was found, for a warning: "2 hidden characters (the
// first U+202E, a bidi control)". Empty when nothing was.
func (f Found) String() string {
	if f.Count == 0 {
		return ""
	}
	what := "hidden characters"
	if f.Count == 1 {
		what = "hidden character"
	}
	return fmt.Sprintf("%d %s (the first %s)", f.Count, what, Describe(f.First))
}

// Describe names a hidden character for a warning: its code point and its
// class, as in "U+202E, a bidi control".
func Describe(r rune) string {
	if r == utf8.RuneError {
		return "a byte that is not UTF-8"
	}
	return fmt.Sprintf("U+%04X, %s", r, class(r))
}

func class(r rune) string {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return "a Unicode TAG character"
	case r == '\u061C' || r == '\u200E' || r == '\u200F' || r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069':
		return "a bidi control"
	case r >= '\u200B' && r <= '\u200D' || r >= '\u2060' && r <= '\u2064' || r == '\uFEFF':
		return "a zero-width character"
	case r == '\u2028' || r == '\u2029':
		return "a line or paragraph separator"
	case unicode.Is(unicode.Cc, r):
		return "a control character"
	}
	return "an invisible format character"
}

// Text returns s with every hidden character made visible as an escape
// (see the package doc). A string with none comes back as it is: a scan,
// no copy.
func Text(s string) string {
	out, _ := Clean(s)
	return out
}

// Clean is Text, also reporting what it escaped.
func Clean(s string) (string, Found) {
	i := firstHidden(s)
	if i == len(s) {
		return s, Found{}
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	var f Found
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			f.note(r)
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// A line ending: the newline that follows says it all.
		case Hidden(r):
			f.note(r)
			if r > 0xFFFF {
				b.WriteString(`\U`)
				b.WriteString(pad(strconv.FormatInt(int64(r), 16), 8))
			} else {
				b.WriteString(`\u`)
				b.WriteString(pad(strconv.FormatInt(int64(r), 16), 4))
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String(), f
}

func (f *Found) note(r rune) {
	if f.Count == 0 {
		f.First = r
	}
	f.Count++
}

// firstHidden returns the index of the first byte Clean must look at, or
// len(s): ASCII is checked without decoding. Every skill's name and
// description pass here on each discovery.
func firstHidden(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := 0; i < len(s); {
		// Printable ASCII, eight bytes at once (as frontmatter's badChar
		// does): one under 0x20 borrows into its high bit when 0x20 is
		// subtracted, one over 0x7E carries into it when 0x01 is added.
		// Tab, LF and the rest are left to the byte at a time below.
		for ; i+8 <= len(s); i += 8 {
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			if ((x-0x20*ones)&^x|(x+ones|x))&highs != 0 {
				break
			}
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Hidden(r) {
			return i
		}
		i += n
	}
	return len(s)
}

func pad(hex string, n int) string {
	if len(hex) >= n {
		return hex
	}
	return strings.Repeat("0", n-len(hex)) + hex
}
