package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"
)

// writeListJSON writes l exactly as writeJSON would, byte for byte, without
// reflection or the indenting pass over the whole text: `skills list --json`
// over 10,000 skills writes about 3.5 MB, and encoding/json spent as long on
// it as discovery spent reading the files. The skills are written by hand
// (flat records of strings and a bool); the warnings, few and rare, go
// through writeJSON's encoder. TestListJSONMatchesEncodingJSON and
// FuzzAppendJSONString hold the two to the same bytes.
func writeListJSON(w io.Writer, l listJSON) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	buf := make([]byte, 0, 4<<10)
	buf = append(buf, "{\n  \"complete\": "...)
	buf = strconv.AppendBool(buf, l.Complete)
	buf = append(buf, ",\n  \"skills\": "...)
	if l.Skills == nil {
		buf = append(buf, "null"...)
	} else {
		buf = append(buf, '[')
	}
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
		if len(buf) >= 3<<10 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	switch {
	case len(l.Skills) > 0:
		buf = append(buf, "\n  ]"...)
	case l.Skills != nil:
		buf = append(buf, ']')
	}
	buf = append(buf, ",\n  \"warnings\": "...)
	var warnings bytes.Buffer
	enc := json.NewEncoder(&warnings)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l.Warnings); err != nil {
		return err
	}
	buf = append(buf, bytes.TrimSuffix(warnings.Bytes(), []byte("\n"))...)
	buf = append(buf, "\n}\n"...)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way encoding/json writes
// it with HTML escaping off: quotes, backslashes and control characters
// escaped (\b \f \n \r \t by name, the others as \u00XX), invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 escaped; everything else as it is.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
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
