package plugins

import (
	"strings"
	"unicode/utf8"
)

// ValidUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json writes a string. Protobuf refuses a
// string field that is not UTF-8, and text (a tool's output in a compaction
// payload, a path, a handler's answer) must cross the wire alike in JSON and
// in the native messages. A valid s comes back as it is: a scan, no copy.
func ValidUTF8(s string) string {
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
