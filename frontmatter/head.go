package frontmatter

import "bytes"

// HeadLen reports how much of a file's start a reader needs for [Parse] to
// see the whole frontmatter, so that discovery can stop reading there
// instead of reading the body too. data is the start of the file as read so
// far; atEOF says nothing follows it.
//
// done is true once data settles the frontmatter: the first line is complete
// and is not the opening delimiter (there is no frontmatter; n is len(data)),
// or the closing delimiter line is complete (n is the length up to and
// including its line break), or atEOF (n is len(data): Parse then reports
// whatever is wrong). Otherwise done is false and n is 0: read more.
//
// The rules are Parse's: a BOM is skipped, a delimiter line is "---" with
// optional trailing spaces, tabs or CR.
func HeadLen(data []byte, atEOF bool) (n int, done bool) {
	text := bytes.TrimPrefix(data, []byte(utf8BOM))
	off := len(data) - len(text)
	first := true
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		line := text
		if i >= 0 {
			line = text[:i]
		} else if !atEOF {
			// A line cut short: "---" may still become "----".
			return 0, false
		}
		isDelim := isDelimiterBytes(line)
		switch {
		case first && !isDelim:
			return len(data), true
		case !first && isDelim:
			if i < 0 {
				return len(data), true
			}
			return off + i + 1, true
		}
		first = false
		if i < 0 {
			break
		}
		off += i + 1
		text = text[i+1:]
	}
	if atEOF {
		return len(data), true
	}
	return 0, false
}

func isDelimiterBytes(line []byte) bool {
	// Most lines are not: their first byte says so.
	return bytes.HasPrefix(line, []byte(delimiter)) && string(bytes.TrimRight(line, " \t\r")) == delimiter
}
