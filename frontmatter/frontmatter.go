package frontmatter

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Sentinels carried by [Error.Err]; test for them with errors.Is.
var (
	// ErrNoFrontmatter means the first line (after an optional UTF-8 BOM) is
	// not "---". Callers treat such a file as having no metadata at all.
	ErrNoFrontmatter = errors.New("no frontmatter")
	// ErrUnclosed means no line after the opening one is "---".
	ErrUnclosed = errors.New("frontmatter is not closed")
	// ErrNotMapping means the frontmatter is empty, or its top level is a
	// scalar or a sequence, or a top-level key is not a scalar.
	ErrNotMapping = errors.New("frontmatter is not a mapping")
	// ErrYAML means the frontmatter is not one valid YAML document: a syntax
	// error, a second document, a repeated key, or bytes YAML forbids.
	ErrYAML = errors.New("frontmatter is not valid YAML")
	// ErrMissingKey is returned by [Document.Decode] for a key that is not in
	// the frontmatter; [Document.Has] asks first without an error.
	ErrMissingKey = errors.New("frontmatter key is missing")
	// ErrType is returned by [Document.Decode] when a value does not decode
	// into the destination, e.g. a list where a string was expected.
	ErrType = errors.New("frontmatter value has the wrong type")
)

// Error is every error of this package. It names the file and the 1-based
// line in that file, so the message reads like a compiler's.
type Error struct {
	File   string // as given to Parse
	Line   int    // 1-based line in File (a BOM does not count)
	Reason string // the detail, e.g. yaml's own message; may be empty
	Err    error  // one of the sentinels of this package
}

// Error renders "file:line: sentinel: reason".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	if e.Err != nil {
		b.WriteString(e.Err.Error())
		if e.Reason != "" {
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the sentinel, so errors.Is(err, ErrYAML) and the like work.
func (e *Error) Unwrap() error { return e.Err }

// Document is a parsed file: its frontmatter, kept as YAML nodes, and its body.
type Document struct {
	File     string                // as given to Parse
	Keys     []string              // top-level keys in file order
	Fields   map[string]*yaml.Node // value node of each top-level key
	Body     string                // text after the closing delimiter line; each line ends in a bare LF (see toLF)
	BodyLine int                   // 1-based line of the file where Body starts

	lines lineMap // yaml's line numbers to the file's, for Decode errors
}

const (
	utf8BOM   = "\ufeff"
	delimiter = "---"
	// yamlFirstLine is the file line on which the YAML text starts: the line
	// after the opening delimiter.
	yamlFirstLine = 2
)

// Parse splits data, the content of file, into frontmatter and body and
// parses the frontmatter. file is used only in errors and Document.File.
// Every error is an [*Error].
func Parse(file string, data []byte) (*Document, error) {
	var p Parser
	return p.Parse(file, data)
}

// A Parser parses one file after another, reusing its Document: the
// Document a Parse returns is valid only until the next Parse of the same
// Parser. It is for a reader of many files that keeps only strings out of
// each (discovery); anything else should call [Parse]. The zero value is
// ready to use; a Parser is not safe for concurrent use.
type Parser struct {
	doc Document
}

// Parse is [Parse] on the memory of p.
func (p *Parser) Parse(file string, data []byte) (*Document, error) {
	text := strings.TrimPrefix(string(data), utf8BOM)

	first, rest, more := strings.Cut(text, "\n")
	if !isDelimiter(first) {
		reason := fmt.Sprintf("first line is %q, not %s", clip(strings.TrimRight(first, "\r")), delimiter)
		if text == "" {
			reason = "file is empty"
		}
		return nil, &Error{File: file, Line: 1, Reason: reason, Err: ErrNoFrontmatter}
	}
	if !more {
		return nil, unclosed(file)
	}

	yamlStart := rest
	var yamlText, body string
	closeLine := 2
	for {
		line, after, ok := strings.Cut(rest, "\n")
		if isDelimiter(line) {
			yamlText = yamlStart[:len(yamlStart)-len(rest)]
			body = after
			break
		}
		if !ok {
			return nil, unclosed(file)
		}
		rest = after
		closeLine++
	}

	yamlText = toLF(yamlText)
	lines := newLineMap(yamlText)
	fields, keys, err := parseYAML(file, yamlText, lines)
	if err != nil {
		return nil, err
	}
	p.doc = Document{
		File:     file,
		Keys:     keys,
		Fields:   fields,
		Body:     toLF(body),
		BodyLine: closeLine + 1,
		lines:    lines,
	}
	return &p.doc, nil
}

// Has reports whether key is a top-level key of the frontmatter.
func (d *Document) Has(key string) bool {
	_, ok := d.Fields[key]
	return ok
}

// Scalar returns the text of a scalar value: strings as yaml reads them
// (quotes removed, escapes applied, block scalars folded), and numbers, bools
// and dates as written. A null value (`key:` or `key: ~`) is ("", true) so
// that "empty" and "null" need no separate checks. ok is false when key is
// missing or its value is a mapping or a sequence.
func (d *Document) Scalar(key string) (value string, ok bool) {
	n := deref(d.Fields[key])
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	if n.ShortTag() == "!!null" {
		return "", true
	}
	return n.Value, true
}

// Bool returns a YAML bool value. ok is false when key is missing or its
// value is anything else, including the strings "true" (quoted) and "yes":
// a lenient caller should warn about those rather than guess.
func (d *Document) Bool(key string) (value, ok bool) {
	n := deref(d.Fields[key])
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false, false
	}
	if err := n.Decode(&value); err != nil {
		return false, false
	}
	return value, true
}

// Decode decodes the value of key into v with yaml's rules. The error is an
// [*Error] with [ErrMissingKey] or [ErrType], naming the file, the line of
// the offending value and the key.
func (d *Document) Decode(key string, v any) error {
	n, ok := d.Fields[key]
	if !ok {
		// Line 1 is where the frontmatter that lacks the key starts.
		return &Error{File: d.File, Line: 1, Reason: fmt.Sprintf("key %q", key), Err: ErrMissingKey}
	}
	err := n.Decode(v)
	if err == nil {
		return nil
	}
	line := d.lines.file(n.Line)
	reason := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		// yaml's lines count from the start of the YAML text; report file lines.
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			l, rest := splitLine(m)
			if l > 0 {
				l = d.lines.file(l)
				if i == 0 {
					line = l
					msgs[i] = rest
					continue
				}
				msgs[i] = "line " + strconv.Itoa(l) + ": " + rest
				continue
			}
			msgs[i] = m
		}
		reason = strings.Join(msgs, "; ")
	}
	reason = strings.TrimPrefix(reason, "yaml: ")
	return &Error{File: d.File, Line: line, Reason: fmt.Sprintf("key %q: %s", key, reason), Err: ErrType}
}

// parseYAML parses the frontmatter text with yaml.v3 into the value nodes of
// its top-level keys.
func parseYAML(file, text string, lines lineMap) (map[string]*yaml.Node, []string, error) {
	if line, reason := badChar(text); reason != "" {
		// yaml reports these without a line; find it ourselves.
		return nil, nil, &Error{File: file, Line: line + yamlFirstLine - 1, Reason: reason, Err: ErrYAML}
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, &Error{File: file, Line: 1, Reason: "frontmatter is empty", Err: ErrNotMapping}
		}
		return nil, nil, yamlError(file, text, lines, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, nil, yamlError(file, text, lines, err)
	default:
		// A line such as "--- x" is not our delimiter but starts a YAML
		// document; refuse rather than drop what follows it.
		return nil, nil, &Error{File: file, Line: lines.file(extra.Line),
			Reason: "a second YAML document starts here", Err: ErrYAML}
	}

	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, nil, &Error{File: file, Line: lines.file(top.Line),
			Reason: "top level is " + kindName(top), Err: ErrNotMapping}
	}
	if err := checkDuplicates(file, lines, top); err != nil {
		return nil, nil, err
	}

	fields := make(map[string]*yaml.Node, len(top.Content)/2)
	keys := make([]string, 0, len(top.Content)/2)
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, nil, &Error{File: file, Line: lines.file(k.Line),
				Reason: "a key is " + kindName(k) + ", not a name", Err: ErrNotMapping}
		}
		keys = append(keys, k.Value)
		fields[k.Value] = v
	}
	return fields, keys, nil
}

// checkDuplicates refuses a key repeated in any mapping. yaml.v3 checks this
// only when decoding into Go values, not into a yaml.Node, and a silently
// dropped duplicate is a field the author thinks is set.
func checkDuplicates(file string, lines lineMap, n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if prev, ok := seen[k.Value]; ok {
				return &Error{File: file, Line: lines.file(k.Line),
					Reason: fmt.Sprintf("mapping key %q already defined at line %d", k.Value, lines.file(prev.Line)),
					Err:    ErrYAML}
			}
			seen[k.Value] = k
		}
	}
	// Aliases are not followed: their anchor was checked where it stands,
	// and following them could loop.
	if n.Kind == yaml.AliasNode {
		return nil
	}
	for _, c := range n.Content {
		if err := checkDuplicates(file, lines, c); err != nil {
			return err
		}
	}
	return nil
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line ([0-9]+): `) })

// parserProblems are the messages of yaml's parser (as opposed to its
// scanner). For these yaml.v3 reports the 0-based line of its mark
// (go.yaml.in/yaml/v3 decode.go, parser.fail: only scanner errors get +1), so
// one more is needed to get the 1-based line of the YAML text.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

var unknownAnchorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown anchor '(.*)' referenced$`) })

// yamlError turns an error of yaml's parser into an *Error on the file's line.
func yamlError(file, text string, lines lineMap, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line, rest := splitLine(msg)
	switch {
	case line > 0 && parserProblems[rest]:
		line++
	case line > 0:
	case unknownAnchorRE().MatchString(rest):
		// aliasLine counts LF lines, as the file does.
		line = aliasLine(text, unknownAnchorRE().FindStringSubmatch(rest)[1])
		return &Error{File: file, Line: line + yamlFirstLine - 1, Reason: rest, Err: ErrYAML}
	default:
		// yaml omits the line when its mark is on the first line.
		line = 1
	}
	return &Error{File: file, Line: lines.file(line), Reason: rest, Err: ErrYAML}
}

// splitLine splits yaml's "line N: message" into N and message; N is 0 when
// the message has no line.
func splitLine(msg string) (int, string) {
	m := yamlLineRE().FindStringSubmatch(msg)
	if m == nil {
		return 0, msg
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, msg
	}
	return n, msg[len(m[0]):]
}

// aliasLine returns the 1-based line of the first alias "*name" in text, or 1.
func aliasLine(text, name string) int {
	for i, l := range strings.Split(text, "\n") {
		for off := 0; ; {
			j := strings.Index(l[off:], "*"+name)
			if j < 0 {
				break
			}
			end := off + j + 1 + len(name)
			if end == len(l) || strings.ContainsRune(" \t\r,[]{}", rune(l[end])) {
				return i + 1
			}
			off = end
		}
	}
	return 1
}

// badChar finds the first byte sequence YAML refuses (invalid UTF-8 or a
// control character) and returns its 1-based line in text and a reason, or
// an empty reason. yaml reports these by byte offset only.
func badChar(text string) (int, string) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	line := 1
	for i := 0; i < len(text); {
		// Printable ASCII, tab and LF are most of any frontmatter: they are
		// checked eight bytes, or one, at a time, without decoding a rune.
		// Eight bytes at once: one under 0x20 borrows into its high bit
		// when 0x20 is subtracted, one over 0x7E carries into it when 0x01
		// is added.
		for ; i+8 <= len(text); i += 8 {
			s := text[i : i+8]
			x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
				uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
			if ((x-0x20*ones)&^x|(x+ones|x))&highs != 0 {
				break
			}
		}
		if i == len(text) {
			break
		}
		if c := text[i]; c >= 0x20 && c < 0x7F || c == '\t' {
			i++
			continue
		} else if c == '\n' {
			line++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return line, fmt.Sprintf("invalid UTF-8 byte 0x%02x", text[i])
		case r == '\n':
			line++
		case !yamlAllowed(r):
			return line, fmt.Sprintf("character %U is not allowed", r)
		}
		i += size
	}
	return 0, ""
}

// yamlAllowed is YAML 1.1's printable set, which yaml.v3's reader enforces.
func yamlAllowed(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7E:
		return true
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// lineMap maps a line of the YAML text, as yaml counts it, to a line of the
// file. The two differ when the text holds line breaks other than LF (a lone
// CR, NEL, U+2028, U+2029), which yaml counts and the file's LF lines do
// not; only then is the table built (breaks[i] is the file line of yaml line
// i+1), so the common case costs no allocation.
type lineMap struct {
	breaks []int
	lines  int // LF lines of the text (its last line included), when breaks is nil
}

func newLineMap(text string) lineMap {
	if !hasOtherBreaks(text) {
		return lineMap{lines: strings.Count(text, "\n") + 1}
	}
	m := []int{yamlFirstLine}
	file := yamlFirstLine
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '\n':
			file++
			m = append(m, file)
		case text[i] == '\r', // toLF removed every CR before an LF, so this CR is alone
			strings.HasPrefix(text[i:], "\u0085"),
			strings.HasPrefix(text[i:], "\u2028"),
			strings.HasPrefix(text[i:], "\u2029"):
			m = append(m, file)
		}
	}
	return lineMap{breaks: m}
}

// hasOtherBreaks reports line breaks yaml counts besides LF: CR, NEL, LS,
// PS. (strings.ContainsAny with non-ASCII runes decodes every rune; these
// byte searches do not.)
func hasOtherBreaks(text string) bool {
	return strings.IndexByte(text, '\r') >= 0 || strings.Contains(text, "\u0085") ||
		strings.Contains(text, "\u2028") || strings.Contains(text, "\u2029")
}

// file returns the file line of yaml line n, clamped to the YAML text: yaml
// may point just past its last line (end of stream), which is the closing
// delimiter's line.
func (m lineMap) file(n int) int {
	b := m.breaks
	switch {
	case len(b) == 0 && m.lines == 0: // a Document not made by Parse
		return n + yamlFirstLine - 1
	case len(b) == 0:
		return min(max(n, 1), m.lines) + yamlFirstLine - 1
	case n < 1:
		return b[0]
	case n > len(b):
		return b[len(b)-1]
	}
	return b[n-1]
}

// toLF ends every line with a bare LF: it removes the CRs before each LF.
// Usually that is the CR of a CRLF. A run of several, as in CR CR LF, comes
// from a file converted to CRLF twice, and still ends one line: replacing
// each CRLF once would leave a CRLF behind ("\r\r\n" becomes "\r\n"), which
// yaml reads as one break and the line map as two. A CR elsewhere is kept.
func toLF(text string) string {
	if strings.IndexByte(text, '\r') < 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(strings.TrimRight(text[:i], "\r"))
		b.WriteByte('\n')
		text = text[i+1:]
	}
}

func isDelimiter(line string) bool {
	// Most lines are not: their first byte says so.
	return strings.HasPrefix(line, delimiter) && strings.TrimRight(line, " \t\r") == delimiter
}

func unclosed(file string) error {
	return &Error{File: file, Line: 1, Reason: "no line after the opening " + delimiter + " is " + delimiter, Err: ErrUnclosed}
}

func deref(n *yaml.Node) *yaml.Node {
	// Bounded: an alias always points at an anchored node that is not itself
	// an alias, but a hand-built Node could chain them.
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "null"
		}
		return "a scalar"
	}
	return "not a value"
}

// clip shortens s for an error message, on a rune boundary.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
