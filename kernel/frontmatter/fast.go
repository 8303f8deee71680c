package frontmatter

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// parseFast parses the YAML that published SKILL.md files are written in,
// and returns exactly the nodes yaml.v3 would (kind, tag, value, style, line,
// column, content; no comments), or ok=false when the text holds anything
// else, and the caller must ask yaml. It takes:
//
//   - block mappings ("key: value" lines; a key is a plain ASCII name), at
//     any depth, and block sequences ("- item" lines, indented or not under
//     their key) whose items are scalars or flow collections;
//   - scalars: plain (a string, or whatever yaml.v3 resolves the text to:
//     bool, int, float, null, timestamp), single- or double-quoted (with
//     their escapes), each on one line or folded over several, and literal
//     or folded block scalars ("|", "|-", "|+", ">", ">-", ">+");
//   - flow sequences and mappings ("[a, b]", {"k": "v"}) on one line, nested.
//
// It defers everything else: comments, tabs, anchors, aliases, tags,
// directives, document markers, complex keys, empty (null) values, block
// scalars with an indentation indicator, a value on the line after its key,
// a repeated key, a continuation line that starts with an indicator, and
// any indentation it does not expect. Deferring is always safe: yaml then
// parses, and words the error when there is one. The differential fuzz test
// FuzzFastPath holds the fast path to yaml.v3, with seeds of every form the
// real-shaped corpus (internal/skillsfloor) writes.
//
// yaml's tokenizer is most of the cost of discovering skills; this path
// skips it for the frontmatter people actually write.
func parseFast(text string) (map[string]*yaml.Node, []string, bool) {
	var p fastParser
	return p.parse(text)
}

// fastParser is the fast path's state. Its memory (lines, nodes, content,
// the map and the keys) is reused by the next parse: a result is valid until
// then.
type fastParser struct {
	text  string
	lines []fastLine
	li    int // the line being read

	nodes  []yaml.Node  // the nodes of the result, in chunks never grown in place
	cont   []*yaml.Node // the Content of the collections, likewise
	stack  []*yaml.Node // the entries of the collections being read
	buf    []byte       // a scalar's value being assembled
	keys   []string
	fields map[string]*yaml.Node
}

// fastLine is one line of the text, without its LF.
type fastLine struct {
	start, end int  // text[start:end]
	indent     int  // leading spaces
	blank      bool // spaces only, or empty
	brk        bool // an LF ends it (false only for a last line without one)
}

// Bounds that keep the fast path's work linear and its recursion shallow:
// longer keys, bigger nested mappings and deeper flow collections go to yaml.
const (
	// maxFastKey bounds keys. YAML refuses implicit keys over 1024
	// characters; real keys are short.
	maxFastKey = 128
	// maxFastEntries bounds a nested mapping, so that finding a repeated
	// key by scanning the earlier ones stays cheap.
	maxFastEntries = 64
	// maxFastDepth bounds the nesting of flow collections.
	maxFastDepth = 8
)

func (p *fastParser) parse(text string) (map[string]*yaml.Node, []string, bool) {
	if strings.IndexByte(text, '\t') >= 0 || hasOtherBreaks(text) || strings.Contains(text, "\ufeff") {
		return nil, nil, false
	}
	if !p.split(text) {
		return nil, nil, false
	}
	p.text, p.li = text, 0
	p.nodes = reuse(p.nodes, 0)
	p.cont = reuse(p.cont, 0)
	p.stack = reuse(p.stack, 0)
	if !p.mapping(0, true, false) || p.li < len(p.lines) || len(p.stack) == 0 {
		return nil, nil, false // an empty text too: yaml says what is wrong
	}
	if p.fields == nil {
		p.fields = make(map[string]*yaml.Node, len(p.stack)/2)
	}
	clear(p.fields)
	keys := reuse(p.keys, len(p.stack)/2)
	for i := 0; i < len(p.stack); i += 2 {
		k := p.stack[i].Value
		if _, dup := p.fields[k]; dup {
			return nil, nil, false // yaml's path words the error
		}
		p.fields[k] = p.stack[i+1]
		keys = append(keys, k)
	}
	p.keys = keys
	return p.fields, keys, true
}

// split cuts the text into lines. A line whose first character is '#' is a
// comment: yaml keeps comments in its nodes, so they are yaml's.
func (p *fastParser) split(text string) bool {
	lines := p.lines[:0]
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		brk := end >= 0
		if brk {
			end += start
		} else {
			end = len(text)
		}
		ind := 0
		for start+ind < end && text[start+ind] == ' ' {
			ind++
		}
		blank := start+ind == end
		if !blank && text[start+ind] == '#' {
			return false
		}
		lines = append(lines, fastLine{start: start, end: end, indent: ind, blank: blank, brk: brk})
		start = end + 1
	}
	p.lines = lines
	return true
}

// reuse returns s emptied, with room for n elements: s itself when it has
// the room, else a new slice. What s held (the last parse's, up to its
// length: nothing was written past it) is dropped.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	clear(s)
	return s[:0]
}

// node keeps n in the result's memory. A full chunk is left to the nodes
// already pointing into it and a new one started.
func (p *fastParser) node(n yaml.Node) *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]yaml.Node, 0, max(16, 2*cap(p.nodes)))
	}
	p.nodes = append(p.nodes, n)
	return &p.nodes[len(p.nodes)-1]
}

// collect moves the entries pushed since mark into the result's memory, as
// one collection's Content (nil when there are none, as yaml leaves it).
func (p *fastParser) collect(mark int) []*yaml.Node {
	n := len(p.stack) - mark
	if n == 0 {
		return nil
	}
	if cap(p.cont)-len(p.cont) < n {
		p.cont = make([]*yaml.Node, 0, max(32, n, 2*cap(p.cont)))
	}
	start := len(p.cont)
	p.cont = append(p.cont, p.stack[mark:]...)
	clear(p.stack[mark:])
	p.stack = p.stack[:mark]
	return p.cont[start:len(p.cont):len(p.cont)]
}

// nextLine skips blank lines and returns the next one; ok is false at the
// end of the text.
func (p *fastParser) nextLine() (fastLine, bool) {
	for p.li < len(p.lines) {
		if l := p.lines[p.li]; !l.blank {
			return l, true
		}
		p.li++
	}
	return fastLine{}, false
}

// mapping reads the "key: value" lines at indentation ind, pushing key and
// value nodes on the stack. It stops at a line indented less; a line
// indented more that no value took is yaml's. top is the document's mapping,
// whose repeated keys parse finds. inItem says the first key follows a
// sequence item's "- " on the current line, at column ind.
func (p *fastParser) mapping(ind int, top, inItem bool) bool {
	mark := len(p.stack)
	for {
		l, ok := p.nextLine()
		if inItem {
			l.indent, inItem = ind, false // the "- " before the key counts as indentation
		}
		if !ok || l.indent < ind {
			return true
		}
		if l.indent > ind || (!top && len(p.stack)-mark >= 2*maxFastEntries) {
			return false
		}
		s := p.text[l.start+ind : l.end]
		colon := strings.IndexByte(s, ':')
		if colon <= 0 || colon > maxFastKey || !fastKey(s[:colon]) || colon+1 < len(s) && s[colon+1] != ' ' {
			return false
		}
		key := s[:colon]
		if !top {
			for i := mark; i < len(p.stack); i += 2 {
				if p.stack[i].Value == key {
					return false
				}
			}
		}
		line := p.li + 1
		k := p.node(yaml.Node{Kind: yaml.ScalarNode, Tag: plainTag(key), Value: key, Line: line, Column: ind + 1})
		at := l.start + ind + colon + 1
		for at < l.end && p.text[at] == ' ' {
			at++
		}
		var v *yaml.Node
		if at == l.end {
			p.li++
			v, ok = p.below(ind)
		} else {
			v, ok = p.value(at, ind)
		}
		if !ok {
			return false
		}
		p.stack = append(p.stack, k, v)
	}
}

// isKeyAt reports whether s starts with a key the fast path takes and its
// ':' (a mapping entry, not a scalar).
func isKeyAt(s string) bool {
	colon := strings.IndexByte(s, ':')
	return colon > 0 && colon <= maxFastKey && fastKey(s[:colon]) && (colon+1 == len(s) || s[colon+1] == ' ')
}

// below reads a value that starts on the lines after its key, which stands
// at indentation ind: a block mapping indented more, or a block sequence
// (indented or not). Anything else (no value: a null) is yaml's.
func (p *fastParser) below(ind int) (*yaml.Node, bool) {
	l, ok := p.nextLine()
	if !ok || l.indent < ind {
		return nil, false
	}
	s := p.text[l.start+l.indent : l.end]
	if s[0] == '-' && (len(s) == 1 || s[1] == ' ') {
		return p.sequence(l.indent)
	}
	if l.indent == ind {
		return nil, false
	}
	n := p.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: p.li + 1, Column: l.indent + 1})
	mark := len(p.stack)
	if !p.mapping(l.indent, false, false) {
		return nil, false
	}
	n.Content = p.collect(mark)
	return n, true
}

// sequence reads the "- item" lines at indentation ind. Each item is a
// scalar or a flow collection on the item's line, or a block mapping whose
// first key is there ("- key: value", the next keys under it).
func (p *fastParser) sequence(ind int) (*yaml.Node, bool) {
	n := p.node(yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: p.li + 1, Column: ind + 1})
	mark := len(p.stack)
	for {
		l, ok := p.nextLine()
		if !ok || l.indent < ind {
			break
		}
		if l.indent > ind {
			return nil, false
		}
		s := p.text[l.start+ind : l.end]
		if s[0] != '-' {
			break // the next key of the mapping around, or yaml's
		}
		if len(s) == 1 || s[1] != ' ' {
			return nil, false
		}
		at := l.start + ind + 1
		for at < l.end && p.text[at] == ' ' {
			at++
		}
		if at == l.end {
			return nil, false // "- " alone: a null, or a value below
		}
		var v *yaml.Node
		if isKeyAt(p.text[at:l.end]) {
			col := at - l.start
			v = p.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: p.li + 1, Column: col + 1})
			m := len(p.stack)
			if !p.mapping(col, false, true) {
				return nil, false
			}
			v.Content = p.collect(m)
		} else if v, ok = p.value(at, ind); !ok {
			return nil, false
		}
		p.stack = append(p.stack, v)
	}
	n.Content = p.collect(mark)
	return n, true
}

// value reads the value starting at text[at], on the current line, of a key
// or sequence item at indentation ind (yaml's indentation level: lines that
// continue the value are indented more). It leaves p.li on the line after
// the value.
func (p *fastParser) value(at, ind int) (*yaml.Node, bool) {
	switch p.text[at] {
	case '"', '\'':
		return p.quoted(at, true)
	case '|', '>':
		return p.block(at, ind)
	case '[', '{':
		v, li, end, ok := p.flow(p.li, at, 0)
		if !ok || !spaces(p.text[end:p.lines[li].end]) {
			return nil, false
		}
		p.li = li + 1
		return v, true
	}
	return p.plain(at, ind)
}

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

// flow reads the flow sequence or mapping whose bracket is text[at] on
// line li, over as many lines as it takes; it returns the node, the line of
// its closing bracket and the offset after that bracket.
func (p *fastParser) flow(li, at, depth int) (*yaml.Node, int, int, bool) {
	if depth >= maxFastDepth {
		return nil, 0, 0, false
	}
	text := p.text
	isMap := text[at] == '{'
	n := yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Line: li + 1, Column: p.column(p.lines[li], at)}
	closing := byte(']')
	if isMap {
		n.Kind, n.Tag, closing = yaml.MappingNode, "!!map", '}'
	}
	mark := len(p.stack)
	li, i, ok := p.flowSkip(li, at+1)
	if ok && text[i] == closing {
		return p.node(n), li, i + 1, true
	}
	for ok {
		if isMap {
			k, _, end, ok := p.flowItem(li, i, depth, true)
			if !ok || end-i > maxFastKey {
				return nil, 0, 0, false
			}
			for j := mark; j < len(p.stack); j += 2 {
				if p.stack[j].Value == k.Value {
					return nil, 0, 0, false
				}
			}
			// The ':' on the key's line: a key is one line.
			i = skipSpaces(text, end, p.lines[li].end)
			if i == p.lines[li].end || text[i] != ':' {
				return nil, 0, 0, false // a key without a value
			}
			if li, i, ok = p.flowSkip(li, i+1); !ok {
				return nil, 0, 0, false
			}
			p.stack = append(p.stack, k)
		}
		v, endLine, end, ok := p.flowItem(li, i, depth, false)
		if !ok {
			return nil, 0, 0, false
		}
		li = endLine // a nested collection may end on a later line
		p.stack = append(p.stack, v)
		if li, i, ok = p.flowSkip(li, end); !ok {
			return nil, 0, 0, false
		}
		switch text[i] {
		case closing:
			n.Content = p.collect(mark)
			return p.node(n), li, i + 1, true
		case ',':
			if li, i, ok = p.flowSkip(li, i+1); ok && text[i] == closing {
				n.Content = p.collect(mark) // a trailing comma ends the entries
				return p.node(n), li, i + 1, true
			}
		default:
			return nil, 0, 0, false
		}
	}
	return nil, 0, 0, false
}

// flowSkip skips the spaces and line breaks between the tokens of a flow
// collection from text[i] on line li and returns where the next token
// starts. ok is false at the end of the text, at a comment, and at a line
// that starts with a document marker.
func (p *fastParser) flowSkip(li, i int) (int, int, bool) {
	for {
		l := p.lines[li]
		for i < l.end && p.text[i] == ' ' {
			i++
		}
		if i < l.end {
			if p.text[i] == '#' && i > l.start && p.text[i-1] == ' ' {
				return 0, 0, false
			}
			return li, i, true
		}
		if li++; li == len(p.lines) || p.docMarker(li) {
			return 0, 0, false
		}
		i = p.lines[li].start
	}
}

// flowItem reads an entry of a flow collection at text[at] on line li: a
// nested collection, a quoted scalar on the line, or a plain scalar. A key
// is a scalar. It returns the line where the entry ends and the offset after
// it.
func (p *fastParser) flowItem(li, at int, depth int, key bool) (*yaml.Node, int, int, bool) {
	text, l := p.text, p.lines[li]
	switch text[at] {
	case '[', '{':
		if key {
			return nil, 0, 0, false
		}
		return p.flow(li, at, depth+1)
	case '"', '\'':
		v, end, _, ok := p.quotedValue(li, at, false)
		if !ok {
			return nil, 0, 0, false
		}
		style := yaml.DoubleQuotedStyle
		if text[at] == '\'' {
			style = yaml.SingleQuotedStyle
		}
		return p.node(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: style, Line: li + 1, Column: p.column(l, at)}), li, end, true
	}
	if !plainStart(text[at]) {
		return nil, 0, 0, false
	}
	// A plain scalar in a flow collection ends at a flow indicator. A ':'
	// followed by a space ends a key; one followed by anything but a space,
	// the end of the line or a flow indicator is part of the scalar
	// ("Bash(git:*)"). Any other ':' (or a '#', a '?') is yaml's.
	end := at
	for end < l.end {
		c := text[end]
		if c == ',' || c == ']' || c == '}' || c == '[' || c == '{' {
			break
		}
		if c == ':' {
			next := byte(' ')
			if end+1 < l.end {
				next = text[end+1]
			}
			if key && next == ' ' && end+1 < l.end {
				break
			}
			if strings.IndexByte(" ,[]{}", next) >= 0 {
				return nil, 0, 0, false
			}
		}
		if c == '#' || c == '?' {
			return nil, 0, 0, false
		}
		end++
	}
	if end == l.end {
		// At the end of the line a plain scalar would go on over the next
		// unless a flow indicator follows there.
		nli, ni, ok := p.flowSkip(li, end)
		if !ok || nli == li || strings.IndexByte(",]}", text[ni]) < 0 {
			return nil, 0, 0, false
		}
	}
	v := trimSpaces(text[at:end])
	return p.node(yaml.Node{Kind: yaml.ScalarNode, Tag: resolved(v), Value: v, Line: li + 1, Column: p.column(l, at)}), li, end, true
}

// column is yaml's 1-based column of text[at] on line l: it counts
// characters, not bytes.
func (p *fastParser) column(l fastLine, at int) int {
	return utf8.RuneCountInString(p.text[l.start:at]) + 1
}

// fastKey accepts a plain key made of ASCII letters, digits, '-' and '_',
// starting with a letter: no indicator, no quote, nothing yaml reads twice.
func fastKey(k string) bool {
	if !isASCIILetter(k[0]) {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if !isASCIILetter(c) && !(c >= '0' && c <= '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
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

func skipSpaces(text string, i, end int) int {
	for i < end && text[i] == ' ' {
		i++
	}
	return i
}

func spaces(s string) bool { return trimSpaces(s) == "" }

// trimSpaces cuts the spaces at the end of s.
func trimSpaces(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
