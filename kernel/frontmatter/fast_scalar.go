package frontmatter

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// plain reads a plain scalar in block context: the rest of the line, then
// every following line indented more than ind, folded (one line break is a
// space, each blank line between two lines a line break).
func (p *fastParser) plain(at, ind int) (*yaml.Node, bool) {
	l := p.lines[p.li]
	first := trimSpaces(p.text[at:l.end])
	if !plainStart(first[0]) || !plainLine(first) {
		return nil, false
	}
	n := yaml.Node{Kind: yaml.ScalarNode, Value: first, Line: p.li + 1, Column: at - l.start + 1}
	p.li++
	b, breaks, more := p.buf[:0], 0, false
	for j := p.li; j < len(p.lines); j++ {
		c := p.lines[j]
		if c.blank {
			breaks++
			continue
		}
		if c.indent <= ind {
			break
		}
		s := trimSpaces(p.text[c.start+c.indent : c.end])
		if strings.IndexByte(plainIndicators, s[0]) >= 0 || !plainLine(s) {
			return nil, false
		}
		if !more {
			b, more = append(b, first...), true
		}
		b = appendBreaks(b, breaks)
		b = append(b, s...)
		breaks, p.li = 0, j+1
	}
	if more {
		n.Value, p.buf = string(b), b[:0]
	}
	n.Tag = resolved(n.Value)
	return p.node(n), true
}

// quoted reads a single- or double-quoted scalar starting at its quote,
// text[at], over several lines when multiline (a line break folds as in a
// plain scalar, the spaces around it are dropped, and a backslash before it
// in a double-quoted one joins the lines). The rest of its last line must be
// spaces.
func (p *fastParser) quoted(at int, multiline bool) (*yaml.Node, bool) {
	l := p.lines[p.li]
	v, end, li, ok := p.quotedValue(p.li, at, multiline)
	if !ok || !spaces(p.text[end:p.lines[li].end]) {
		return nil, false
	}
	style := yaml.DoubleQuotedStyle
	if p.text[at] == '\'' {
		style = yaml.SingleQuotedStyle
	}
	n := p.node(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: style, Line: p.li + 1, Column: p.column(l, at)})
	p.li = li + 1
	return n, true
}

// quotedValue scans the quoted scalar at text[at] on line li: its value,
// the offset after its closing quote and the index of the line of that
// quote. yaml does not hold the lines of a quoted scalar to any
// indentation; a document marker at the start of one ends the document,
// which is yaml's to say.
func (p *fastParser) quotedValue(li, at int, multiline bool) (v string, end, last int, ok bool) {
	text, q := p.text, p.text[at]
	lineEnd := p.lines[li].end
	// The common case: one line, no escape, no doubled single quote.
	if j := strings.IndexByte(text[at+1:lineEnd], q); j >= 0 {
		i := at + 1 + j
		escaped := q == '"' && strings.IndexByte(text[at+1:i], '\\') >= 0 ||
			q == '\'' && i+1 < lineEnd && text[i+1] == '\''
		if !escaped {
			return text[at+1 : i], i + 1, li, true
		}
	}
	b := p.buf[:0]
	for i := at + 1; ; {
		// The characters up to a space, the end of the line or the
		// closing quote.
		joined := false // an escaped line break
		for i < lineEnd && text[i] != ' ' {
			c := text[i]
			switch {
			case c == q && q == '\'' && i+1 < lineEnd && text[i+1] == '\'':
				b = append(b, '\'')
				i += 2
				continue
			case c == q:
				p.buf = b[:0]
				return string(b), i + 1, li, true
			case c == '\\' && q == '"' && i+1 == lineEnd:
				joined, i = true, lineEnd
				continue
			case c == '\\' && q == '"':
				var ok bool
				if b, i, ok = appendEscape(b, text, i, lineEnd); !ok {
					return "", 0, 0, false
				}
				continue
			}
			b = append(b, c)
			i++
		}
		ws := i
		for i < lineEnd && text[i] == ' ' {
			i++
		}
		if i < lineEnd {
			b = append(b, text[ws:i]...) // spaces inside a line are kept
			continue
		}
		// A line break: the spaces before it are dropped, and so are
		// the next line's leading ones.
		if !multiline || !p.lines[li].brk {
			return "", 0, 0, false
		}
		breaks := 0
		for li++; li < len(p.lines) && p.lines[li].blank; li++ {
			if !p.lines[li].brk {
				return "", 0, 0, false
			}
			breaks++
		}
		if li == len(p.lines) || p.docMarker(li) {
			return "", 0, 0, false
		}
		if joined {
			b = appendNewlines(b, breaks)
		} else {
			b = appendBreaks(b, breaks)
		}
		i, lineEnd = p.lines[li].start+p.lines[li].indent, p.lines[li].end
	}
}

// docMarker reports whether line li starts with "---" or "..." as a word:
// a document marker wherever yaml meets it.
func (p *fastParser) docMarker(li int) bool {
	l := p.lines[li]
	s := p.text[l.start:l.end]
	return (strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...")) && (len(s) == 3 || s[3] == ' ')
}

// appendEscape appends the character of the double-quoted escape at text[i]
// (a backslash) and returns the offset after it; ok is false for an escape
// yaml.v3 refuses (\/ among them) or one at the end of a line (a line
// continuation, left to yaml).
func appendEscape(b []byte, text string, i, lineEnd int) ([]byte, int, bool) {
	if i+1 >= lineEnd {
		return b, i, false
	}
	digits := 0
	switch text[i+1] {
	case '0':
		b = append(b, 0)
	case 'a':
		b = append(b, '\a')
	case 'b':
		b = append(b, '\b')
	case 't':
		b = append(b, '\t')
	case 'n':
		b = append(b, '\n')
	case 'v':
		b = append(b, '\v')
	case 'f':
		b = append(b, '\f')
	case 'r':
		b = append(b, '\r')
	case 'e':
		b = append(b, 0x1b)
	case ' ', '"', '\'', '\\':
		b = append(b, text[i+1])
	case 'N':
		b = append(b, "\u0085"...)
	case '_':
		b = append(b, "\u00a0"...)
	case 'L':
		b = append(b, "\u2028"...)
	case 'P':
		b = append(b, "\u2029"...)
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	default:
		return b, i, false
	}
	i += 2
	if digits == 0 {
		return b, i, true
	}
	if i+digits > lineEnd {
		return b, i, false
	}
	r := 0 // an int: eight hex digits overflow a rune
	for _, c := range []byte(text[i : i+digits]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return b, i, false
		}
		r = r<<4 | int(d)
	}
	if r >= 0xD800 && r <= 0xDFFF || r > 0x10FFFF {
		return b, i, false
	}
	if r < utf8.RuneSelf {
		return append(b, byte(r)), i + digits, true
	}
	return utf8.AppendRune(b, rune(r)), i + digits, true
}

// block reads a literal ("|") or folded (">") block scalar whose indicator
// is text[at], with an optional chomping indicator. Its lines are those
// indented at least as much as its first, which must be indented more than
// ind.
func (p *fastParser) block(at, ind int) (*yaml.Node, bool) {
	l := p.lines[p.li]
	literal := p.text[at] == '|'
	head := trimSpaces(p.text[at+1 : l.end])
	chomp := 0 // clip
	if head != "" && (head[0] == '-' || head[0] == '+') {
		chomp = 1 // keep
		if head[0] == '-' {
			chomp = -1 // strip
		}
		head = head[1:]
	}
	if head != "" || !l.brk {
		return nil, false // an indentation indicator, a comment, or worse
	}
	style := yaml.FoldedStyle
	if literal {
		style = yaml.LiteralStyle
	}
	n := yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: style, Line: p.li + 1, Column: at - l.start + 1}

	// Blank lines before the first line count as line breaks; their
	// spaces as indentation, when more than the first line's.
	li, lead, maxLead := p.li+1, 0, 0
	for ; li < len(p.lines) && p.lines[li].blank; li++ {
		lead, maxLead = lead+1, max(maxLead, p.lines[li].indent)
	}
	if li == len(p.lines) || p.lines[li].indent <= ind || maxLead > p.lines[li].indent {
		return nil, false // empty, or indented in a way that is yaml's to judge
	}
	bi := p.lines[li].indent
	b := p.buf[:0]
	trailing, leadingBreak, leadingBlank := lead, false, false
	for ; li < len(p.lines); li++ {
		c := p.lines[li]
		if c.blank {
			if c.indent > bi || !c.brk {
				return nil, false // spaces that are content, or no break
			}
			trailing++
			continue
		}
		if c.indent < bi {
			break
		}
		s := p.text[c.start+bi : c.end]
		trailingBlank := s[0] == ' '
		if !literal && leadingBreak && !leadingBlank && !trailingBlank {
			if trailing == 0 {
				b = append(b, ' ')
			}
		} else if leadingBreak {
			b = append(b, '\n')
		}
		b = appendNewlines(b, trailing)
		b = append(b, s...)
		trailing, leadingBreak, leadingBlank = 0, c.brk, trailingBlank
	}
	if chomp != -1 && leadingBreak {
		b = append(b, '\n')
	}
	if chomp == 1 {
		b = appendNewlines(b, trailing)
	}
	n.Value, p.buf = string(b), b[:0]
	p.li = li
	return p.node(n), true
}

// plainStart accepts the first character of a plain scalar the fast path
// takes: a letter, a digit, any non-ASCII character, or one of a few
// punctuation marks that are no YAML indicator.
func plainStart(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9' || c >= utf8.RuneSelf || strings.IndexByte("./($~+_", c) >= 0
}

// plainIndicators are the characters a continuation line of a plain scalar
// may not start with here (yaml may take some; the fast path leaves them).
const plainIndicators = "-?:,[]{}#&*!|>'\"%@`"

// plainLine reports whether a line of a plain scalar (trailing spaces cut)
// is surely all scalar: ": " (or a final ':') would start a mapping value
// and " #" a comment. (Both are rare: a byte search finds each candidate.)
func plainLine(s string) bool {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], ':')
		if j < 0 {
			break
		}
		if i += j + 1; i == len(s) || s[i] == ' ' {
			return false
		}
	}
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '#')
		if j < 0 {
			return true
		}
		if i += j; i > 0 && s[i-1] == ' ' {
			return false
		}
		i++
	}
}

// resolved is the tag yaml.v3 gives a plain scalar: its own resolution, which
// a Node without a tag reports.
func resolved(v string) string {
	if len(v) > 0 && isASCIILetter(v[0]) {
		return plainTag(v) // the common case, without a Node
	}
	return (&yaml.Node{Kind: yaml.ScalarNode, Value: v}).ShortTag()
}

// plainTag is yaml.v3's resolution of a plain scalar that starts with a
// letter: among such words only true/false and null, in three spellings
// each, are not strings (resolve.go's resolveMap).
func plainTag(v string) string {
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool"
	case "null", "Null", "NULL":
		return "!!null"
	}
	return "!!str"
}

// appendBreaks folds n+1 line breaks: one is a space, more are n newlines.
func appendBreaks(b []byte, n int) []byte {
	if n == 0 {
		return append(b, ' ')
	}
	return appendNewlines(b, n)
}

func appendNewlines(b []byte, n int) []byte {
	for range n {
		b = append(b, '\n')
	}
	return b
}
