package commands

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/helios-agents/helios/frontmatter"
)

// parseInto fills c from a command file's content: its frontmatter keys
// and body, or c.Err.
func parseInto(c *Command, data []byte) {
	if !utf8.Valid(data) || strings.ContainsRune(string(data), 0) {
		c.Err = fmt.Errorf("%s: not UTF-8 text", c.Path)
		return
	}
	doc, err := parseLenient(c.Path, data)
	switch {
	case errors.Is(err, frontmatter.ErrNoFrontmatter):
		// A file without frontmatter is all body, as in Claude Code.
		c.body = strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\ufeff")
		c.Description = firstLine(c.body)
		return
	case err != nil:
		c.Err = err
		return
	}
	c.body = doc.Body
	var errs []error
	if v, ok := doc.Scalar("description"); ok {
		c.Description = strings.TrimSpace(v)
	} else if doc.Has("description") {
		errs = append(errs, fmt.Errorf("%s: key \"description\": not a string", c.Path))
	}
	if c.Description == "" {
		c.Description = firstLine(c.body)
	}
	c.ArgumentHint = hint(doc.Fields["argument-hint"])
	if v, ok := doc.Scalar("model"); ok {
		c.Model = strings.TrimSpace(v)
	} else if doc.Has("model") {
		errs = append(errs, fmt.Errorf("%s: key \"model\": not a string", c.Path))
	}
	tools, err := toolList(doc.Fields["allowed-tools"])
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: key \"allowed-tools\": %w", c.Path, err))
	}
	c.AllowedTools = tools
	c.Err = errors.Join(errs...)
}

// parseLenient parses the frontmatter strictly, and when that fails as
// YAML, again with each one-line value quoted: Claude Code reads
// `argument-hint: [name] | --flag`, which is not YAML, as the text it is.
// The strict error is kept when the retry fails too.
func parseLenient(file string, data []byte) (*frontmatter.Document, error) {
	doc, err := frontmatter.Parse(file, data)
	if err == nil || !errors.Is(err, frontmatter.ErrYAML) {
		return doc, err
	}
	if quoted, ok := quoteValues(string(data)); ok {
		if d, qerr := frontmatter.Parse(file, []byte(quoted)); qerr == nil {
			return d, nil
		}
	}
	return nil, err
}

var plainLine = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*):[ \t]+(.*\S)[ \t]*$`)

// quoteValues single-quotes the value of every top-level "key: value" line
// of the frontmatter that is not quoted already.
func quoteValues(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	if len(lines) < 2 || strings.TrimRight(strings.TrimPrefix(lines[0], "\ufeff"), "\r") != "---" {
		return "", false
	}
	changed := false
	for i := 1; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		if line == "---" {
			break
		}
		m := plainLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[2], "'") || strings.HasPrefix(m[2], `"`) {
			continue
		}
		lines[i] = m[1] + ": '" + strings.ReplaceAll(m[2], "'", "''") + "'"
		changed = true
	}
	return strings.Join(lines, "\n"), changed
}

// hint renders argument-hint: a string as written; a flow sequence, which
// `argument-hint: [file]` is in YAML, back as "[file]".
func hint(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return strings.TrimSpace(n.Value)
	case yaml.SequenceNode:
		parts := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			parts = append(parts, e.Value)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return ""
}

// toolList reads allowed-tools: a comma-separated string or a list.
// Commas inside parentheses belong to a pattern: "Bash(git add:*), Read".
func toolList(n *yaml.Node) ([]string, error) {
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return splitTools(n.Value), nil
	case yaml.SequenceNode:
		var out []string
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return out, fmt.Errorf("line %d: an entry is not a string", e.Line)
			}
			out = append(out, splitTools(e.Value)...)
		}
		return out, nil
	}
	return nil, errors.New("not a string or a list")
}

func splitTools(s string) []string {
	var (
		out   []string
		depth int
		start int
	)
	add := func(t string) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				add(s[start:i])
				start = i + 1
			}
		}
	}
	add(s[start:])
	return out
}

func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return strings.TrimSpace(strings.TrimLeft(l, "#"))
		}
	}
	return ""
}
