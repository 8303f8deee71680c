package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/workfs"
)

// maxNesting bounds how deep a frontmatter value nests: deeper is refused,
// never cut silently.
const maxNesting = 64

// ErrFrontmatterTooLarge is wrapped by the error for a frontmatter that
// does not fit the limit skills.maxFrontmatter: its text, or what its
// aliases expand to.
var ErrFrontmatterTooLarge = errors.New("frontmatter is too large")

// skillFrontmatter reads s's SKILL.md now and returns its frontmatter as a
// JSON object, every field as the author wrote it: scalars keep their YAML
// type where JSON has one (timestamps and the like stay the author's text).
// name and description are always present: a frontmatter without a name
// gets the catalog's, as the catalog itself did.
//
// It obeys the bound discovery obeys (limits.MaxFrontmatter, config key
// skills.maxFrontmatter, 64 KiB by default): only the file's head is read,
// and a frontmatter not closed within the limit is refused; and since
// re-encoding, unlike discovery, follows YAML aliases, what the aliases add
// is held to the same limit, so a kilobyte of nested aliases (a "billion
// laughs") is refused instead of expanded. Every error names the file.
func skillFrontmatter(ctx context.Context, s skills.Skill, limits skillfs.Limits) (map[string]any, error) {
	limit := limits.MaxFrontmatter
	if limit <= 0 {
		limit = skillfs.DefaultMaxFrontmatter
	}
	head, err := readFrontmatter(ctx, s, limit)
	if err != nil {
		return nil, err
	}
	doc, err := frontmatter.Parse(s.File, head)
	if err != nil {
		return nil, err // names the file and line
	}
	x := expander{limit: limit, left: limit}
	out := make(map[string]any, len(doc.Keys)+2)
	for _, k := range doc.Keys {
		v, err := x.value(doc.Fields[k], 0, false)
		if err != nil {
			return nil, fmt.Errorf("%s: key %q: %w", or(s.File, s.Name), k, err)
		}
		out[k] = v
	}
	if _, ok := out["name"]; !ok {
		out["name"] = s.Name
	}
	if _, ok := out["description"]; !ok {
		out["description"] = s.Description
	}
	return out, nil
}

// readFrontmatter reads the head of s's SKILL.md through the guard, as
// discovery reads it: up to the end of its frontmatter, at most limit
// bytes. A skill with no file has its SKILL.md rendered from the catalog.
func readFrontmatter(ctx context.Context, s skills.Skill, limit int) ([]byte, error) {
	l, ok := layoutOf(s)
	if !ok {
		return synthesized(ctx, s)
	}
	g, err := workfs.New(l.root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	defer g.Close()
	head, err := skillfs.ReadHead(g, l.skillMD, limit)
	switch {
	case errors.Is(err, skillfs.ErrFrontmatterTooLarge):
		return nil, fmt.Errorf("%s: %w: not closed within the first %d bytes (the limit skills.maxFrontmatter)", s.File, ErrFrontmatterTooLarge, limit)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	return head, nil
}

// expander converts YAML nodes to values encoding/json can write,
// following aliases within a budget: each node reached through an alias
// costs its text plus one byte, and left is what remains. A frontmatter
// without aliases costs nothing, so the budget only ever refuses
// expansion.
type expander struct{ limit, left int }

func (x *expander) value(n *yaml.Node, depth int, aliased bool) (any, error) {
	if n == nil {
		return nil, nil
	}
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrFrontmatterTooLarge, maxNesting)
	}
	if n.Kind == yaml.AliasNode {
		return x.value(n.Alias, depth+1, true)
	}
	if err := x.charge(n, aliased); err != nil {
		return nil, err
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return x.value(n.Content[0], depth+1, aliased)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if err := x.charge(k, aliased || k != n.Content[i]); err != nil {
				return nil, err
			}
			v, err := x.value(n.Content[i+1], depth+1, aliased)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := x.value(c, depth+1, aliased)
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return l, nil
	}
	return scalar(n), nil
}

// charge takes what n costs from the budget when it was reached through an
// alias.
func (x *expander) charge(n *yaml.Node, aliased bool) error {
	if !aliased {
		return nil
	}
	if x.left -= len(n.Value) + 1; x.left < 0 {
		return fmt.Errorf("%w: its aliases expand past %d bytes (the limit skills.maxFrontmatter)", ErrFrontmatterTooLarge, x.limit)
	}
	return nil
}

// scalar is a scalar node's value in JSON terms.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool", "!!int":
		var v any
		if err := n.Decode(&v); err == nil {
			return v
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && f-f == 0 { // finite: JSON has no NaN or Inf
			return f
		}
	}
	return n.Value
}
