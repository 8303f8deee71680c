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
