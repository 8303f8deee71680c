package mcpserver

import (
	"context"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/helios-agents/helios/kernel/frontmatter"
	"github.com/helios-agents/helios/kernel/skills"
)

// skillFrontmatter reads s's SKILL.md now and returns its frontmatter as a
// JSON object, every field as the author wrote it: scalars keep their YAML
// type where JSON has one (timestamps and the like stay the author's text).
// name and description are always present: a frontmatter without a name
// gets the catalog's, as the catalog itself did.
func skillFrontmatter(ctx context.Context, s skills.Skill) (map[string]any, error) {
	data, err := readSkillFile(ctx, s, SkillFile)
	if err != nil {
		return nil, err
	}
	doc, err := frontmatter.Parse(s.File, data)
	if err != nil {
		return nil, fmt.Errorf("frontmatter of skill %q: %w", s.Name, err)
	}
	out := make(map[string]any, len(doc.Keys)+2)
	for _, k := range doc.Keys {
		out[k] = jsonValue(doc.Fields[k], 0)
	}
	if _, ok := out["name"]; !ok {
		out["name"] = s.Name
	}
	if _, ok := out["description"]; !ok {
		out["description"] = s.Description
	}
	return out, nil
}

// jsonValue converts a YAML node to a value encoding/json can write.
func jsonValue(n *yaml.Node, depth int) any {
	if n == nil || depth > 64 {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return jsonValue(n.Content[0], depth+1)
	case yaml.AliasNode:
		return jsonValue(n.Alias, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = jsonValue(n.Content[i+1], depth+1)
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			l[i] = jsonValue(c, depth+1)
		}
		return l
	}
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
