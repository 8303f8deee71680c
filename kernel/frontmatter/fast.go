package frontmatter

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxFastKey bounds the keys the fast path takes. YAML refuses implicit keys
// over 1024 characters; real keys are short, so anything long goes to yaml.
const maxFastKey = 128

// parseFast parses the frontmatter most SKILL.md files have: lines
// "key: value" at the start of the line, where each key is a plain ASCII name
// and each value a one-line scalar — plain (a string or a bool), or quoted
// with neither escapes nor embedded quotes — or, after a line "key:", one
// level of "  key: value" lines, equally indented. It returns exactly the
// nodes yaml.v3 would (kind, tag, value, style, line, column, content; no
// comments) and ok=true, or ok=false when the text holds anything else —
// escapes, block scalars, flow collections, comments, anchors, tags,
// continuation lines, numbers, dates, nulls, deeper nesting, a repeated key —
// and the caller must ask yaml. The differential fuzz test FuzzFastPath holds
// it to that.
//
// yaml's tokenizer is most of the cost of discovering skills; this path
// skips it for the common case.
func parseFast(text string) (map[string]*yaml.Node, []string, bool) {
	var p fastParser
	return p.parse(text)
}

// parse is parseFast on the memory of p, which the result uses: its map, key
// slice and nodes are valid until the next parse.
func (p *fastParser) parse(text string) (map[string]*yaml.Node, []string, bool) {
	if strings.IndexByte(text, '\t') >= 0 || hasOtherBreaks(text) || strings.Contains(text, "\ufeff") {
		return nil, nil, false
	}
	top, nested := fastLines(text)
	// One node a top-level line (its value, or the mapping it opens), two a
	// nested line (key and value), and as many pointers to the nested ones:
	// allocated at once, never grown while parsing.
	p.text, p.line = text, 0
	p.nodes = reuse(p.nodes, top+2*nested)
	p.content = reuse(p.content, 2*nested)
	keys := reuse(p.keys, top)
	if p.fields == nil {
		p.fields = make(map[string]*yaml.Node, top)
	}
	fields := p.fields
	clear(fields)
	for {
		l, ok, bad := p.next()
		if bad {
			return nil, nil, false
		}
		if !ok {
			break
		}
		if l[0] == ' ' {
			return nil, nil, false // indented, but not under a "key:" line
		}
		key, rest, ok := fastSplit(l)
		if !ok {
			return nil, nil, false
		}
		var v *yaml.Node
		if rest == len(l) {
			// "key:" opens a nested mapping on the following lines.
			if v, ok = p.mapping(); !ok {
				return nil, nil, false
			}
		} else if v, ok = p.scalar(l, rest); !ok {
			return nil, nil, false
		}
		if _, dup := fields[key]; dup {
			return nil, nil, false // yaml's path words the error
		}
		fields[key] = v
		keys = append(keys, key)
	}
	p.keys = keys
	if len(keys) == 0 {
		return nil, nil, false // empty: yaml says what is wrong
	}
	return fields, keys, true
}

// reuse returns s emptied, with room for n elements: s itself when it has
// the room, else a new slice.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	clear(s[:cap(s)]) // drop what the last parse pointed to
	return s[:0]
}

// fastLines counts the non-blank lines of text that start at the left
// margin and those that are indented.
func fastLines(text string) (top, nested int) {
	for len(text) > 0 {
		var l string
		l, text, _ = strings.Cut(text, "\n")
		switch {
		case l == "":
		case l[0] == ' ':
			nested++
		default:
			top++
		}
	}
	return top, nested
}

// fastParser walks the lines of the text, skipping blank ones. Its slices
// and map are the memory of the result, reused by the next parse.
type fastParser struct {
	text    string
	line    int // 1-based number of the line last returned
	nodes   []yaml.Node
	content []*yaml.Node // the Content of the nested mappings, one after another
	keys    []string
	fields  map[string]*yaml.Node
}

// next returns the next non-blank line without its trailing spaces; ok is
// false at the end of the text. A line of spaces alone is left to yaml: bad
// is true.
func (p *fastParser) next() (l string, ok, bad bool) {
	for len(p.text) > 0 {
		l, p.text, _ = strings.Cut(p.text, "\n")
		p.line++
		if t := strings.TrimRight(l, " "); t != "" {
			return t, true, false
		}
		if l != "" {
			return "", false, true
		}
	}
	return "", false, false
}

// peekIndented reports whether the next non-blank line is indented.
func (p *fastParser) peekIndented() bool {
	rest := p.text
	for len(rest) > 0 {
		l, after, _ := strings.Cut(rest, "\n")
		if l != "" {
			return l[0] == ' '
		}
		rest = after
	}
	return false
}

func (p *fastParser) node(n yaml.Node) *yaml.Node {
	p.nodes = append(p.nodes, n)
	return &p.nodes[len(p.nodes)-1]
}

// mapping reads the indented "key: value" lines after a "key:" line.
func (p *fastParser) mapping() (*yaml.Node, bool) {
	m := yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	indent, start := 0, len(p.content)
	for p.peekIndented() {
		l, ok, _ := p.next()
		if !ok {
			return nil, false
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent == 0 {
			indent = n
			m.Line, m.Column = p.line, n+1
		} else if n != indent {
			return nil, false
		}
		key, rest, ok := fastSplit(l[n:])
		if !ok || rest == len(l)-n || len(m.Content) >= 2*maxFastNested || fastHasKey(m.Content, key) {
			return nil, false
		}
		tag, _ := plainTag(key)
		k := p.node(yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: key, Line: p.line, Column: n + 1})
		v, ok := p.scalar(l, n+rest)
		if !ok {
			return nil, false
		}
		p.content = append(p.content, k, v)
		m.Content = p.content[start:len(p.content):len(p.content)]
	}
	if len(m.Content) == 0 {
		return nil, false // "key:" alone is null: yaml places it
	}
	return p.node(m), true
}

// maxFastNested bounds the entries of a nested mapping the fast path takes,
// so that finding a repeated key by scanning the earlier ones stays cheap.
const maxFastNested = 32

// fastHasKey reports whether the key nodes of content (key, value, key,
// value, ...) hold key.
func fastHasKey(content []*yaml.Node, key string) bool {
	for i := 0; i < len(content); i += 2 {
		if content[i].Value == key {
			return true
		}
	}
	return false
}

// fastSplit splits "key: value" (or "key:" at the end of the line) into the
// key and the offset just after ':'.
func fastSplit(l string) (string, int, bool) {
	colon := strings.IndexByte(l, ':')
	if colon <= 0 || colon > maxFastKey || !fastKey(l[:colon]) {
		return "", 0, false
	}
	if colon+1 < len(l) && l[colon+1] != ' ' {
		return "", 0, false
	}
	return l[:colon], colon + 1, true
}

// scalar reads the value of line l starting at byte at (after the colon;
// trailing spaces already cut).
func (p *fastParser) scalar(l string, at int) (*yaml.Node, bool) {
	start := at
	for start < len(l) && l[start] == ' ' {
		start++
	}
	v := l[start:]
	n := yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Line: p.line, Column: start + 1}
	switch {
	case v == "":
		return nil, false
	case v[0] == '"' || v[0] == '\'':
		q := v[0]
		end := strings.IndexByte(v[1:], q)
		if end < 0 || end+2 != len(v) || (q == '"' && strings.IndexByte(v, '\\') >= 0) {
			return nil, false // escapes, doubled quotes, text after the quote
		}
		n.Value = v[1 : end+1]
		n.Style = yaml.DoubleQuotedStyle
		if q == '\'' {
			n.Style = yaml.SingleQuotedStyle
		}
	default:
		tag, ok := fastPlainTag(v)
		if !ok {
			return nil, false
		}
		n.Tag, n.Value = tag, v
	}
	return p.node(n), true
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

// fastPlainTag returns the tag yaml.v3 resolves a plain one-line value to,
// when the value is surely plain and a string or a bool. A value starting
// with a letter (or any non-ASCII character) is never an indicator, a number
// or a date. Inside the value, ": " (or a final ':') would start a mapping
// and " #" a comment.
func fastPlainTag(v string) (string, bool) {
	if !(isASCIILetter(v[0]) || v[0] >= 0x80) {
		return "", false
	}
	if strings.Contains(v, ": ") || strings.HasSuffix(v, ":") || strings.Contains(v, " #") {
		return "", false
	}
	tag, ok := plainTag(v)
	return tag, ok && tag != "!!null"
}

// plainTag is yaml.v3's resolution of a plain scalar that starts with a
// letter: among such words only true/false and null, in three spellings
// each, are not strings (resolve.go's resolveMap).
func plainTag(v string) (string, bool) {
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool", true
	case "null", "Null", "NULL":
		return "!!null", true
	}
	return "!!str", true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
