package frontmatter

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

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
