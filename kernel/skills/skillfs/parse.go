package skillfs

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"

	"github.com/helios-agents/helios/frontmatter"
)

// Limits from the Agent Skills spec.
const (
	maxNameLen          = 64
	maxDescriptionLen   = 1024
	maxCompatibilityLen = 500
)

// Severity ranks a finding about a SKILL.md.
type Severity int

const (
	// Unusable: the skill cannot be used and is skipped.
	Unusable Severity = iota
	// SpecViolation: loads with a warning; `skills validate` reports an error.
	SpecViolation
	// Advice: loads with a warning; `skills validate` reports a warning too.
	Advice
	// Ignored: a key another agent defines (Claude Code's argument-hint,
	// effort, ...), which Helios does not use: loads without a word;
	// `skills validate` names it as info. Discovery does not even report
	// it.
	Ignored
)

// Finding is one problem with a skill file.
type Finding struct {
	// Severity says whether the skill still loads.
	Severity Severity
	// Message says what is wrong.
	Message string
}

// Meta is the frontmatter of a skill, as far as the kernel understands it.
type Meta struct {
	// Name is the normalized name (the folder's when the file has none).
	Name string
	// Description says when to use the skill.
	Description string
	// DisableModelInvocation hides the skill from the model.
	DisableModelInvocation bool
	// AllowedTools is allowed-tools split into rules: a string is split at
	// spaces and commas outside parentheses, a list gives one rule per
	// entry.
	AllowedTools []string
}

// knownKey reports the frontmatter keys of the Agent Skills spec, plus the
// kernel's own disable-model-invocation.
func knownKey(k string) bool {
	switch k {
	case "name", "description", "license", "compatibility", "metadata", "allowed-tools", "disable-model-invocation":
		return true
	}
	return false
}

// foreignKey reports the frontmatter keys that Claude Code defines for its
// skills (and commands), and keys common in published skills that no agent
// needs a warning about, none of which Helios uses: a skill installed for
// Claude Code loads here without a warning a key.
func foreignKey(k string) bool {
	switch k {
	case "argument-hint", "arguments", "when_to_use", "user-invocable", "model", "effort",
		"context", "agent", "hooks", "paths", "shell", "version", "type":
		return true
	}
	return false
}

// ParseSkill reads a skill file's bytes. folder is the name the skill is
// known by on disk (its directory, or the flat file's name without .md); it
// stands in for a missing name. The returned meta is usable unless a finding
// is Unusable. The body is the text after the frontmatter.
func ParseSkill(file, folder string, data []byte) (Meta, string, []Finding) {
	return parseSkill(file, folder, data, 0)
}

// parseSkill is ParseSkill. A positive head says data is only the start of
// the file, as discovery reads it, and its frontmatter ends at data[head]:
// only data[:head] is parsed (the body returned is empty), and a multi-byte
// character cut at the end of data is not taken for invalid UTF-8.
func parseSkill(file, folder string, data []byte, head int) (Meta, string, []Finding) {
	// Discovery meets about three findings per published skill (29,000 in
	// 10,000): their messages are built by concatenation (see quote), not
	// fmt, and room for a few is made at once.
	var fs []Finding
	add := func(sev Severity, msg string) {
		if fs == nil {
			fs = make([]Finding, 0, 4)
		}
		fs = append(fs, Finding{sev, msg})
	}
	if isBinary(data, head > 0) {
		add(Unusable, "binary file, not a SKILL.md")
		return Meta{}, "", fs
	}
	parse := frontmatter.Parse
	if head > 0 {
		data = data[:head]
		// Discovery parses thousands of heads and keeps only strings out
		// of each: it reuses parsers.
		p := parsers.Get().(*frontmatter.Parser)
		defer parsers.Put(p)
		parse = p.Parse
	}
	doc, err := parse(file, data)
	if err != nil {
		add(Unusable, describeFrontmatterError(err))
		return Meta{}, "", fs
	}

	var m Meta
	switch desc, ok := doc.Scalar("description"); {
	case !doc.Has("description"):
		add(Unusable, "missing description (the model picks skills by their description)")
		return Meta{}, "", fs
	case !ok:
		add(Unusable, "description is not a string")
		return Meta{}, "", fs
	case strings.TrimSpace(desc) == "":
		add(Unusable, "empty description (the model picks skills by their description)")
		return Meta{}, "", fs
	default:
		// Cloned, as the name below: a value the parser could slice out
		// of the head would keep the whole head (metadata and all) alive
		// for as long as the catalog holds the skill; 10,000 published
		// skills kept 24 MB of heap instead of 16.
		m.Description = strings.Clone(strings.TrimSpace(desc))
		if n := runeCountOver(m.Description, maxDescriptionLen); n > maxDescriptionLen {
			add(SpecViolation, fmt.Sprintf("description is %d characters, over the spec's %d", n, maxDescriptionLen))
		}
	}

	switch name, ok := doc.Scalar("name"); {
	case !doc.Has("name") || (ok && strings.TrimSpace(name) == ""):
		add(SpecViolation, quote("missing name; using the folder's name ", folder))
		m.Name = norm.NFKC.String(folder)
	case !ok:
		add(SpecViolation, quote("name is not a string; using the folder's name ", folder))
		m.Name = norm.NFKC.String(folder)
	default:
		m.Name = strings.Clone(norm.NFKC.String(strings.TrimSpace(name)))
		if err := ValidateName(m.Name); err != nil {
			add(SpecViolation, err.Error())
		}
		if m.Name != norm.NFKC.String(folder) {
			add(SpecViolation, quote("name ", m.Name, " differs from its folder ", folder))
		}
	}

	if doc.Has("license") {
		if _, ok := doc.Scalar("license"); !ok {
			add(SpecViolation, "license is "+nodeKind(doc.Fields["license"])+", not a string (kept as is)")
		}
	}
	if doc.Has("compatibility") {
		if c, ok := doc.Scalar("compatibility"); !ok {
			add(SpecViolation, "compatibility is "+nodeKind(doc.Fields["compatibility"])+", not a string (kept as is)")
		} else if n := runeCountOver(c, maxCompatibilityLen); n > maxCompatibilityLen {
			add(SpecViolation, fmt.Sprintf("compatibility is %d characters, over the spec's %d", n, maxCompatibilityLen))
		}
	}
	if n := doc.Fields["metadata"]; n != nil && n.Kind != yaml.MappingNode {
		add(SpecViolation, "metadata is "+nodeKind(n)+", not a mapping (kept as is)")
	}
	if doc.Has("allowed-tools") {
		if v, ok := doc.Scalar("allowed-tools"); ok {
			m.AllowedTools = splitRules(v)
		} else {
			add(SpecViolation, "allowed-tools is "+nodeKind(doc.Fields["allowed-tools"])+", not a space-separated string (kept as is)")
			m.AllowedTools = ruleList(doc.Fields["allowed-tools"])
		}
	}
	if doc.Has("disable-model-invocation") {
		v, ok := doc.Bool("disable-model-invocation")
		if !ok {
			add(SpecViolation, "disable-model-invocation is "+nodeKind(doc.Fields["disable-model-invocation"])+", not a boolean; treated as false")
		}
		m.DisableModelInvocation = v
	}
	for _, k := range doc.Keys {
		switch {
		case knownKey(k):
		case foreignKey(k):
			if head == 0 { // discovery would drop it: not even built
				add(Ignored, quote("frontmatter key ", k, " is for other agents (Claude Code); Helios ignores it"))
			}
		default:
			add(Advice, quote("unknown frontmatter key ", k))
		}
	}
	return m, doc.Body, fs
}

// quote joins parts into a message, quoting those at odd indexes as %q
// does: quote("key ", k) is fmt.Sprintf("key %q", k), at one allocation.
func quote(parts ...string) string {
	var buf [256]byte
	b := buf[:0]
	for i, s := range parts {
		if i%2 == 1 {
			b = strconv.AppendQuote(b, s)
		} else {
			b = append(b, s...)
		}
	}
	return string(b)
}

// runeCountOver counts the characters of s only when there may be more than
// limit: otherwise it returns len(s), no more than limit either (a
// character takes a byte at least). A result over limit is the count; most
// descriptions and names need none.
func runeCountOver(s string, limit int) int {
	if len(s) <= limit {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// parsers are the frontmatter parsers of discovery; nothing parseSkill
// returns points into their memory.
var parsers = sync.Pool{New: func() any { return new(frontmatter.Parser) }}

// ErrInvalidName is wrapped by ValidateName's errors.
var ErrInvalidName = errors.New("invalid skill name")

// ValidateName checks a (NFKC-normalized) name against the spec: 1–64
// characters, lowercase letters of any script and digits, single hyphens
// between them. Exported for tools that write skills, to check a name
// before they write it.
func ValidateName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrInvalidName, name, why) }
	n := runeCountOver(name, maxNameLen)
	switch {
	case n == 0:
		return bad("empty")
	case n > maxNameLen:
		return bad(fmt.Sprintf("%d characters, over the spec's %d", n, maxNameLen))
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return bad("starts or ends with a hyphen")
	case strings.Contains(name, "--"):
		return bad("has consecutive hyphens")
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			// Most names are ASCII: no table lookups for them.
		case unicode.IsDigit(r):
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			return bad("has an uppercase letter; use lowercase")
		case unicode.IsLetter(r):
			// Lowercase letters and letters of scripts without case (技能).
		default:
			return bad(fmt.Sprintf("has %q; only lowercase letters, digits and hyphens are allowed", r))
		}
	}
	return nil
}

// isBinary treats NUL bytes or invalid UTF-8 in the first 8 KiB as binary.
// cut says data may end inside a multi-byte character.
func isBinary(data []byte, cut bool) bool {
	const n = 8 << 10
	head := data
	if len(head) > n || cut {
		head = head[:min(len(head), n)]
		// A multi-byte rune may be cut at the boundary: drop its start.
		for i := 1; i <= 3 && i <= len(head); i++ {
			if c := head[len(head)-i]; utf8.RuneStart(c) {
				if c >= utf8.RuneSelf && !utf8.FullRune(head[len(head)-i:]) {
					head = head[:len(head)-i]
				}
				break
			}
		}
	}
	// One pass each: this runs on every file discovery reads.
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head)
}

func nodeKind(n *yaml.Node) string {
	if n == nil {
		return "missing"
	}
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
	case yaml.AliasNode:
		return "an alias"
	}
	return "an unexpected value"
}

// describeFrontmatterError keeps the parser's message (it names file and line)
// but drops the file name, which the warning already carries.
func describeFrontmatterError(err error) string {
	var fe *frontmatter.Error
	if errors.As(err, &fe) {
		// Keep the sentinel ("frontmatter is not valid YAML"): the reason
		// alone ("did not find expected key") does not say what is wrong.
		msg := fe.Reason
		if fe.Err != nil {
			msg = fe.Err.Error()
			if fe.Reason != "" {
				msg += ": " + fe.Reason
			}
		}
		if fe.Line > 0 {
			return fmt.Sprintf("line %d: %s", fe.Line, msg)
		}
		return msg
	}
	return err.Error()
}

// ruleList reads an allowed-tools list (Claude Code's form): one rule per
// string entry; other entries are left out (the spec violation says so).
func ruleList(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, e := range n.Content {
		if e.Kind == yaml.ScalarNode {
			out = append(out, splitRules(e.Value)...)
		}
	}
	return out
}

// splitRules splits allowed-tools at spaces and commas outside
// parentheses: "Bash(git add:*) Read" is two rules, the space inside the
// first belongs to it.
func splitRules(s string) []string {
	var (
		out          []string
		depth, start int
	)
	add := func(t string) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			add(s[start:i])
			start = i + 1
		}
	}
	add(s[start:])
	return out
}
