package frontmatter

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxFastKey bounds the keys the fast path takes. YAML refuses implicit keys
// over 1024 characters; real keys are short, so anything long goes to yaml.
const maxFastKey = 128

// parseFast parses frontmatter made only of lines "key: value", where each
// key is a plain ASCII name at the start of its line and each value a plain
// one-line scalar that yaml.v3 would resolve to a string or a bool. It returns
// exactly the nodes yaml.v3 would (kind, tag, value, style, line, column; no
// comments) and ok=true, or ok=false when the text holds anything else —
// quotes, escapes, block scalars, flow collections, comments, anchors,
// continuation lines, numbers, dates, nulls, a repeated key — and the caller
// must ask yaml. A differential fuzz test (fast_test.go) holds it to that.
//
// Most SKILL.md frontmatter is like that, and yaml's tokenizer is most of the
// cost of discovering skills.
func parseFast(text string) (map[string]*yaml.Node, []string, bool) {
	if strings.ContainsAny(text, "\t\r\u0085\u2028\u2029\ufeff") {
		return nil, nil, false
	}
	n := strings.Count(text, "\n") + 1
	nodes := make([]yaml.Node, 0, n)
	keys := make([]string, 0, n)
	line := 0
	for len(text) > 0 {
		l, rest, _ := strings.Cut(text, "\n")
		text = rest
		line++
		if l == "" {
			continue
		}
		colon := strings.IndexByte(l, ':')
		if colon <= 0 || colon > maxFastKey || !fastKey(l[:colon]) ||
			colon+1 >= len(l) || l[colon+1] != ' ' {
			return nil, nil, false
		}
		start := colon + 1
		for start < len(l) && l[start] == ' ' {
			start++
		}
		value := strings.TrimRight(l[start:], " ")
		tag, ok := fastValueTag(value)
		if !ok {
			return nil, nil, false
		}
		keys = append(keys, l[:colon])
		nodes = append(nodes, yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: line, Column: start + 1})
	}
	if len(keys) == 0 {
		return nil, nil, false // empty: yaml says what is wrong
	}
	fields := make(map[string]*yaml.Node, len(keys))
	for i, k := range keys {
		if _, dup := fields[k]; dup {
			return nil, nil, false // yaml's path words the error
		}
		fields[k] = &nodes[i]
	}
	return fields, keys, true
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

// fastValueTag returns the tag yaml.v3 resolves a plain one-line value to,
// when the value is surely plain and a string or a bool. A value starting
// with a letter (or any non-ASCII character) is never an indicator, a number
// or a date; among such words yaml.v3 maps only true/false and null in their
// three spellings to other tags (resolve.go's resolveMap). Inside the value,
// ": " (or a final ':') would start a mapping and " #" a comment.
func fastValueTag(v string) (string, bool) {
	if v == "" || !(isASCIILetter(v[0]) || v[0] >= 0x80) {
		return "", false
	}
	if strings.Contains(v, ": ") || strings.HasSuffix(v, ":") || strings.Contains(v, " #") {
		return "", false
	}
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool", true
	case "null", "Null", "NULL":
		return "", false
	}
	return "!!str", true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
