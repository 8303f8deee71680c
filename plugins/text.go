package plugins

import "github.com/helios-agents/helios/kernel/utf8text"

// ValidUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json writes a string. Protobuf refuses a
// string field that is not UTF-8, and text (a tool's output in a compaction
// payload, a path, a handler's answer) must cross the wire alike in JSON and
// in the native messages. A valid s comes back as it is: a scan, no copy.
func ValidUTF8(s string) string { return utf8text.Valid(s) }
