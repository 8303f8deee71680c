// Package utf8text makes text valid UTF-8 the way encoding/json writes a
// string, for every place text must read the same whether it crossed JSON
// or not (session logs, the plugin wire's native messages).
package utf8text

import (
	"strings"
	"unicode/utf8"
)

// Valid returns s with each byte that is not part of valid UTF-8 replaced by
// U+FFFD, as encoding/json writes a string (strings.ToValidUTF8 replaces a
// whole run of such bytes at once, which JSON does not). A valid s comes
// back as it is: a scan, no copy.
func Valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
