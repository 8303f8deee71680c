package main

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"
)

// writeListJSON writes l exactly as writeJSON would, byte for byte, without
// reflection or the indenting pass over the whole text: `skills list --json`
// over 10,000 skills writes about 3.5 MB, and encoding/json spent as long on
// it as discovery spent reading the files. The skills and the warnings are
// flat records of strings (and a bool), written by hand: published skills
// bring about three warnings each (unknown keys, names unlike their folder),
// so on the real shape the warnings weigh as much as the skills.
// TestListJSONMatchesEncodingJSON and FuzzAppendJSONString hold the two to
// the same bytes.
func writeListJSON(w io.Writer, l listJSON) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	buf := make([]byte, 0, 4<<10)
	var err error
	// flush hands the buffer to bw once it holds a few KiB.
	flush := func() {
		if len(buf) >= 3<<10 && err == nil {
			_, err = bw.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, "{\n  \"complete\": "...)
	buf = strconv.AppendBool(buf, l.Complete)
	buf = append(buf, ",\n  \"skills\": "...)
	buf = openArray(buf, l.Skills == nil)
	for i, s := range l.Skills {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    {\n      \"name\": "...)
		buf = appendJSONString(buf, s.Name)
		buf = append(buf, ",\n      \"description\": "...)
		buf = appendJSONString(buf, s.Description)
		buf = append(buf, ",\n      \"source\": "...)
		buf = appendJSONString(buf, s.Source)
		buf = append(buf, ",\n      \"baseDir\": "...)
		buf = appendJSONString(buf, s.BaseDir)
		if s.File != "" {
			buf = append(buf, ",\n      \"file\": "...)
			buf = appendJSONString(buf, s.File)
		}
		if s.DisableModelInvocation {
			buf = append(buf, ",\n      \"disableModelInvocation\": true"...)
		}
		buf = append(buf, "\n    }"...)
		flush()
	}
	buf = closeArray(buf, len(l.Skills))
	buf = append(buf, ",\n  \"warnings\": "...)
	buf = openArray(buf, l.Warnings == nil)
	for i, wn := range l.Warnings {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    {\n      \"source\": "...)
		buf = appendJSONString(buf, wn.Source)
		buf = append(buf, ",\n      \"path\": "...)
		buf = appendJSONString(buf, wn.Path)
		buf = append(buf, ",\n      \"message\": "...)
		buf = appendJSONString(buf, wn.Message)
		buf = append(buf, "\n    }"...)
		flush()
	}
	buf = closeArray(buf, len(l.Warnings))
	buf = append(buf, "\n}\n"...)
	if err != nil {
		return err
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

// openArray starts a JSON array as writeJSON writes one: null when nil.
func openArray(buf []byte, isNil bool) []byte {
	if isNil {
		return append(buf, "null"...)
	}
	return append(buf, '[')
}

// closeArray ends an array opened by openArray holding n elements (none
// when it was null): an empty one closes on its line, a full one on the
// next.
func closeArray(buf []byte, n int) []byte {
	switch {
	case n > 0:
		return append(buf, "\n  ]"...)
	case buf[len(buf)-1] == '[':
		return append(buf, ']')
	}
	return buf
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way encoding/json writes
// it with HTML escaping off: quotes, backslashes and control characters
// escaped (\b \f \n \r \t by name, the others as \u00XX), invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 escaped; everything else as it is.
func appendJSONString(dst []byte, s string) []byte {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at once while none needs a look: no control
		// character (one under 0x20 borrows into its high bit when 0x20 is
		// subtracted), no quote or backslash (a zero byte after the XOR
		// borrows likewise), nothing outside ASCII (its high bit is set).
		for ; i+8 <= len(s); i += 8 {
			b := s[i : i+8]
			x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			q, bs := x^('"'*ones), x^('\\'*ones)
			if (x-0x20*ones|(q-ones)&^q|(bs-ones)&^bs|x)&highs != 0 {
				break
			}
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
