package permissions

import "fmt"

// Rule is one parsed permission rule.
type Rule struct {
	raw  string
	tool string
	spec string
	has  bool // a specifier in parentheses was written
	dirs Dirs
}

// ParseRule parses a rule; the error names the position and the reason.
func ParseRule(s string) (Rule, error) {
	if s == "" {
		return Rule{}, fmt.Errorf("at 1: empty rule")
	}
	return Rule{raw: s, tool: s}, nil
}

// String returns the rule as written.
func (r Rule) String() string { return r.raw }

// Matches reports whether the rule matches the call.
func (r Rule) Matches(c Call, d Dirs) bool { return r.tool == c.Tool }
