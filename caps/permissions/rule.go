package permissions

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// skillTool is the kernel's catalog-mode skill tool (kernel/skills
// SkillToolName, a test keeps them equal): Claude Code's Skill(name) rules
// match its calls by the name they load. This package imports kernel leaves
// only, so the name is repeated here.
const skillTool = "skill"

// kind is what a rule's specifier is read as.
type kind int

const (
	kindTool  kind = iota // no specifier: every call of the tool
	kindBash              // Bash(command pattern)
	kindPath              // Read/Edit/Write/Glob/Grep(gitignore-style path)
	kindSkill             // Skill(name pattern)
	kindOther             // a specifier for a tool Helios cannot read it for: matches nothing
)

// Rule is one parsed permission rule: `Tool` or `Tool(specifier)`.
type Rule struct {
	raw  string
	tool string // as Helios names it ("skill" for Claude Code's "Skill")
	kind kind
	spec string  // the specifier, whitespace as written
	cmd  pattern // kindBash, kindSkill
}

// ParseRule parses a rule in Claude Code's syntax. The error names the
// column (1-based, in bytes) and the reason.
func ParseRule(s string) (Rule, error) {
	r := Rule{raw: s}
	if strings.TrimSpace(s) == "" {
		return r, fmt.Errorf("column 1: empty rule")
	}
	if strings.TrimSpace(s) != s {
		return r, fmt.Errorf("column 1: leading or trailing space around the rule")
	}
	name, open := s, strings.IndexByte(s, '(')
	if open >= 0 {
		name = s[:open]
	} else if i := strings.IndexByte(s, ')'); i >= 0 {
		return r, fmt.Errorf("column %d: ')' without '('", i+1)
	}
	if name == "" {
		return r, fmt.Errorf("column 1: no tool name before '('")
	}
	for i, c := range name {
		if !(c == '_' || c == '-' || c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return r, fmt.Errorf("column %d: %q cannot be part of a tool name", i+1, c)
		}
	}
	r.tool = name
	if name == "Skill" {
		r.tool = skillTool
	}
	if open < 0 {
		return r, nil
	}
	if !strings.HasSuffix(s, ")") {
		if i := strings.LastIndexByte(s, ')'); i > open {
			return r, fmt.Errorf("column %d: text after the closing ')'", i+2)
		}
		return r, fmt.Errorf("column %d: '(' is never closed", open+1)
	}
	if strings.Contains(name, "*") {
		return r, fmt.Errorf("column %d: a tool name with '*' takes no specifier", open+1)
	}
	r.spec = s[open+1 : len(s)-1]
	if strings.TrimSpace(r.spec) == "" {
		return r, fmt.Errorf("column %d: empty specifier; write %q for every call of the tool", open+2, name)
	}
	switch r.tool {
	case "Bash":
		if strings.TrimSpace(r.spec) == "*" || strings.TrimSpace(r.spec) == ":*" {
			r.kind = kindTool // Bash(*) is Bash
			return r, nil
		}
		r.kind, r.cmd = kindBash, compilePattern(r.spec)
	case skillTool:
		r.kind, r.cmd = kindSkill, compilePattern(r.spec)
	case "Read", "Edit", "Write", "Glob", "Grep":
		p := r.spec
		if strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "~/") {
			return r, fmt.Errorf("column %d: only \"~/\" names a home folder", open+2)
		}
		if _, err := doublestar.Match(anchorPattern(p, Dirs{Project: "/p", Home: "/h"}), "/"); err != nil {
			return r, fmt.Errorf("column %d: path pattern %q: %w", open+2, p, err)
		}
		r.kind = kindPath
	default:
		r.kind = kindOther
	}
	return r, nil
}

// String returns the rule as written.
func (r Rule) String() string { return r.raw }

// Matches reports whether the rule matches the call, with its path patterns
// anchored at d. For Bash it is true when any simple command of the parsed
// command (or a redirection's target, for Edit and Write rules) matches:
// a filter, as Claude Code's hook `if`. A Bash command that does not parse
// is matched as its whole text.
func (r Rule) Matches(c Call, d Dirs) bool {
	if c.Tool == "Bash" && (r.tool == "Edit" || r.tool == "Write") {
		return r.matchesRedirects(parseCommand(bashCommand(c.Input)), d)
	}
	if !r.appliesTo(c.Tool) {
		return false
	}
	switch r.kind {
	case kindTool:
		return true
	case kindBash:
		return r.matchesAnyPart(parseCommand(bashCommand(c.Input)))
	case kindSkill:
		var in struct{ Name string }
		return json.Unmarshal(c.Input, &in) == nil && in.Name != "" && r.cmd.match(in.Name)
	case kindPath:
		p, ok := callPath(c, d)
		return ok && r.matchesPath(p, d)
	}
	return false
}

// appliesTo reports whether the rule's tool covers tool: Edit rules cover
// Write, Read rules Glob and Grep (Claude Code: Edit rules apply to every
// tool that edits files, Read rules to every tool that reads them);
// mcp__server covers each of its tools.
func (r Rule) appliesTo(tool string) bool {
	switch {
	case r.tool == tool:
		return true
	case r.tool == "Edit" && tool == "Write", r.tool == "Read" && (tool == "Glob" || tool == "Grep"):
		return true
	case strings.Contains(r.tool, "*"):
		return r.kind == kindTool && compilePattern(r.tool).match(tool)
	case strings.HasPrefix(r.tool, "mcp__") && r.kind == kindTool:
		// mcp__server (no tool part) is every tool of that server.
		if !strings.Contains(strings.TrimPrefix(r.tool, "mcp__"), "__") {
			return strings.HasPrefix(tool, r.tool+"__")
		}
	}
	return false
}

// matchesAnyPart reports whether a Bash rule matches any part of p, as
// written or as a wrapper runs it.
func (r Rule) matchesAnyPart(p parsed) bool {
	if !p.ok {
		return r.cmd.match(p.raw)
	}
	for _, part := range p.parts {
		for _, t := range part.deny {
			if r.cmd.match(t) {
				return true
			}
		}
	}
	return false
}

// matchesRedirects reports whether an Edit or Write rule matches a path a
// command redirects its output to.
func (r Rule) matchesRedirects(p parsed, d Dirs) bool {
	for _, t := range p.redirects {
		switch {
		case r.kind == kindTool:
			return true
		case r.kind == kindPath && t != "":
			if r.matchesPath(absPath(t, d.Work), d) {
				return true
			}
		}
	}
	return false
}

// matchesPath matches an absolute, cleaned path against the rule's pattern,
// gitignore-style: a pattern naming a folder covers what it holds.
func (r Rule) matchesPath(path string, d Dirs) bool {
	pat := anchorPattern(r.spec, d)
	for p := path; ; p = filepath.Dir(p) {
		if ok, _ := doublestar.Match(pat, p); ok {
			return true
		}
		if p == "/" || p == "." || p == filepath.Dir(p) {
			return false
		}
	}
}

// anchorPattern turns a rule's path pattern into an absolute doublestar
// pattern: "//x" absolute, "~/x" under Home, "/x", "./x" and "x" under
// Project; a pattern without a slash inside matches at any depth (as in
// .gitignore); a trailing "/" is the folder and all it holds. ".." and "."
// are resolved, so a pattern cannot escape its anchor unnoticed.
func anchorPattern(p string, d Dirs) string {
	dir := strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	var abs string
	switch {
	case strings.HasPrefix(p, "//"):
		abs = "/" + strings.TrimLeft(p, "/")
	case strings.HasPrefix(p, "~/"):
		abs = d.Home + "/" + p[2:]
	case strings.HasPrefix(p, "/"), strings.HasPrefix(p, "./"):
		abs = d.Project + "/" + strings.TrimLeft(strings.TrimPrefix(p, "."), "/")
	case !strings.Contains(p, "/"):
		abs = d.Project + "/**/" + p
	default:
		abs = d.Project + "/" + p
	}
	abs = filepath.Clean(abs)
	if dir {
		abs += "/**"
	}
	return abs
}

// callPath is the absolute, cleaned path a file tool's call names: Glob's
// pattern read as a path, Grep's path (the work dir when it names none).
func callPath(c Call, d Dirs) (string, bool) {
	var in struct {
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
	}
	if json.Unmarshal(c.Input, &in) != nil {
		return "", false
	}
	p := in.Path
	switch {
	case c.Tool == "Glob":
		p = in.Pattern
	case c.Tool == "Grep" && p == "":
		p = "."
	}
	if p == "" {
		return "", false
	}
	return absPath(p, d.Work), true
}

// absPath resolves p against work and cleans it.
func absPath(p, work string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(work, p)
	}
	return filepath.Clean(p)
}

// bashCommand is the command of a Bash call's input.
func bashCommand(in json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(in, &a)
	return a.Command
}
