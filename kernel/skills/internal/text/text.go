// Package text holds the small text rules the skills packages share: how a
// description is collapsed and escaped for the model, how a count is
// written, and which scripts are written without spaces between words.
package text

import (
	"strconv"
	"strings"
	"unicode"
)

// Collapse joins the words of s with single spaces.
func Collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

var markup = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// EscapeMarkup escapes &, < and >, so a description cannot close a tag of
// the prompt around it.
func EscapeMarkup(s string) string { return markup.Replace(s) }

// Unbroken reports a character of a script written without spaces between
// words, where a line may break between any two characters.
func Unbroken(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

// Thousands writes n with comma separators.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
