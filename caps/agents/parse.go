package agents

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
)

// ErrSkipped is wrapped by Parse's error for a file that defines no usable
// agent (no frontmatter, no name, no description).
var ErrSkipped = errors.New("agent skipped")

// ignoredKeys are Claude Code fields Helios reads past without a word:
// they change only how Claude Code's own terminal shows the agent.
var ignoredKeys = []string{"color"}

// unappliedKeys are Claude Code fields Helios does not apply; each is a
// warning, the rest of the definition applies.
var unappliedKeys = []string{"hooks", "memory", "background", "isolation", "effort", "initialPrompt", "disabled"}

// permissionModes are Claude Code's values of permissionMode.
var permissionModes = []string{"default", "acceptEdits", "dontAsk", "bypassPermissions", "plan", "auto"}

// toolAliases are Claude Code's names of the Agent tool.
var toolAliases = map[string]string{"Task": kernel.AgentToolName}

// Parse reads one agent file: data is its content, path names it in
// warnings and errors, source is where it comes from ("project", "user",
// "plugin:<name>"). A file that defines no usable agent is an error wrapping
// ErrSkipped; what is doubtful but usable is a warning naming the field.
func Parse(path, source string, data []byte) (kernel.AgentDef, []contract.Warning, error) {
	def := kernel.AgentDef{Source: source, Path: path}
	var warns []contract.Warning
	warn := func(key, format string, args ...any) {
		warns = append(warns, contract.Warning{Source: source, Path: path, Message: key + ": " + fmt.Sprintf(format, args...)})
	}
	doc, err := frontmatter.Parse(path, data)
	if err != nil {
		return def, nil, fmt.Errorf("%w: %w", ErrSkipped, err)
	}
	def.Prompt = strings.TrimSpace(doc.Body)
	def.Name, _ = doc.Scalar("name")
	def.Name = strings.TrimSpace(def.Name)
	if def.Name == "" {
		return def, nil, fmt.Errorf("%w: %s: name: missing or empty; an agent is called by its name", ErrSkipped, path)
	}
	def.Description, _ = doc.Scalar("description")
	def.Description = strings.TrimSpace(def.Description)
	if def.Description == "" {
		return def, nil, fmt.Errorf("%w: %s: description: missing or empty; the model could never choose agent %q well", ErrSkipped, path, def.Name)
	}
	for _, key := range doc.Keys {
		n := doc.Fields[key]
		switch key {
		case "name", "description":
		case "tools", "disallowedTools", "skills":
			names, bad := nameList(n)
			if bad != "" {
				warn(key, "%s; ignored", bad)
				continue
			}
			if key != "skills" {
				names = toolNames(names)
			}
			switch key {
			case "tools":
				if !(len(names) == 1 && names[0] == "*") {
					def.Tools = names
				}
			case "disallowedTools":
				def.DisallowedTools = names
			default:
				def.Skills = names
			}
		case "mcpServers":
			def.MCPServers = mcpServers(n, func(format string, args ...any) { warn(key, format, args...) })
		case "model":
			if v, ok := doc.Scalar(key); ok {
				def.Model = strings.TrimSpace(v)
			} else {
				warn(key, "not a string; the parent's model is used")
			}
		case "maxTurns":
			v, _ := doc.Scalar(key)
			if t, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && t > 0 {
				def.MaxTurns = t
			} else {
				warn(key, "%q is not a positive integer; the default applies", v)
			}
		case "permissionMode":
			v, _ := doc.Scalar(key)
			def.PermissionMode = strings.TrimSpace(v)
			if !slices.Contains(permissionModes, def.PermissionMode) {
				warn(key, "unknown mode %q; the parent's permission rules apply", v)
			}
		default:
			switch {
			case slices.Contains(ignoredKeys, key):
			case slices.Contains(unappliedKeys, key):
				warn(key, "Claude Code's field is not applied by Helios; the rest of the agent applies")
			default:
				warn(key, "unknown field; ignored")
			}
		}
	}
	return def, warns, nil
}

// nameList reads a comma-separated string or a list of strings. An empty
// string or list is an empty, non-nil list. bad says why n is neither.
func nameList(n *yaml.Node) (names []string, bad string) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	names = []string{}
	switch {
	case n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"):
		return names, ""
	case n.Kind == yaml.ScalarNode:
		for _, f := range strings.Split(n.Value, ",") {
			if f = strings.TrimSpace(f); f != "" {
				names = append(names, f)
			}
		}
		return names, ""
	case n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, "an entry is not a string"
			}
			if f := strings.TrimSpace(c.Value); f != "" {
				names = append(names, f)
			}
		}
		return names, ""
	}
	return nil, "neither a comma-separated string nor a list of names"
}

// toolNames maps Claude Code's spellings onto Helios's tools: Task and
// Agent(type) are the Agent tool (which types it may start is not
// restricted).
func toolNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if base, _, ok := strings.Cut(n, "("); ok && strings.HasSuffix(n, ")") {
			n = strings.TrimSpace(base)
		}
		if to, ok := toolAliases[n]; ok {
			n = to
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// mcpServers reads mcpServers: names of configured servers. Claude Code's
// inline server definitions ({name: config}) are not started by Helios:
// each is a warning, and its name is kept, so a configured server of that
// name applies.
func mcpServers(n *yaml.Node, warn func(string, ...any)) []string {
	if n != nil && n.Kind == yaml.SequenceNode {
		out := []string{}
		for _, c := range n.Content {
			switch c.Kind {
			case yaml.ScalarNode:
				out = append(out, strings.TrimSpace(c.Value))
			case yaml.MappingNode:
				for i := 0; i+1 < len(c.Content); i += 2 {
					warn("inline server %q is not started by Helios; only a configured server of that name applies", c.Content[i].Value)
					out = append(out, c.Content[i].Value)
				}
			default:
				warn("an entry is neither a name nor a server; ignored")
			}
		}
		return out
	}
	names, bad := nameList(n)
	if bad != "" {
		warn("%s; the parent's servers apply", bad)
		return nil
	}
	return names
}

// isAgentFile says whether name is an agent file: Markdown, not a README.
func isAgentFile(name string) bool {
	return strings.EqualFold(filepath.Ext(name), ".md") && !strings.EqualFold(name, "README.md")
}
