package permissions

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Set is the compiled rules of every settings layer. A nil *Set allows
// every call (Decide returns Allow with List "defaultMode").
type Set struct {
	deny, ask, allow []entry
	mode             Mode
	dirs             Dirs // the first layer's, for pre-approved rules
}

// entry is a rule with where it came from.
type entry struct {
	rule   Rule
	dirs   Dirs
	source string
}

// readOnly are the tools defaultMode "plan" lets run unmatched.
var readOnly = map[string]bool{"Read": true, "Glob": true, "Grep": true, skillTool: true, "skill_search": true}

// Compile parses every rule of the layers, project first then user. All
// layers are consulted (deny anywhere wins over ask anywhere over allow
// anywhere); the first layer that sets defaultMode sets it. Errors name the
// file, the JSON path ("permissions.allow[2]") and the column in the rule,
// all of them at once.
func Compile(layers []Layer) (*Set, error) {
	s := &Set{}
	var errs []error
	for i, l := range layers {
		if i == 0 {
			s.dirs = l.Dirs
		}
		for _, list := range []struct {
			name  string
			rules []string
			to    *[]entry
		}{{"deny", l.Config.Deny, &s.deny}, {"ask", l.Config.Ask, &s.ask}, {"allow", l.Config.Allow, &s.allow}} {
			for j, raw := range list.rules {
				r, err := ParseRule(raw)
				if err != nil {
					errs = append(errs, fmt.Errorf("%spermissions.%s[%d] %q: %w", prefix(l.Source), list.name, j, raw, err))
					continue
				}
				*list.to = append(*list.to, entry{rule: r, dirs: l.Dirs, source: l.Source})
			}
		}
		switch m := l.Config.DefaultMode; m {
		case "":
		case ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk:
			if s.mode == "" {
				s.mode = m
			}
		default:
			errs = append(errs, fmt.Errorf("%spermissions.defaultMode: %q is not one of default, acceptEdits, plan, dontAsk", prefix(l.Source), m))
		}
	}
	if s.mode == "" {
		s.mode = ModeDefault
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// prefix is "source: ", or nothing for a layer without a source (the
// caller names the file).
func prefix(source string) string {
	if source == "" {
		return ""
	}
	return source + ": "
}

// Mode is the defaultMode that decides unmatched calls.
func (s *Set) Mode() Mode {
	if s == nil || s.mode == "" {
		return ModeDefault
	}
	return s.mode
}

// ReadDenied reports whether a deny rule forbids reading path (absolute),
// and which: a `Read` rule naming it or a folder holding it. Glob and Grep
// leave such files out of what they list and search, as Claude Code's Glob
// and Grep take the Read deny rules as ignore patterns; ask rules hide
// nothing.
func (s *Set) ReadDenied(path string) (string, bool) {
	if s == nil {
		return "", false
	}
	path = filepath.Clean(path)
	for _, e := range s.deny {
		if e.rule.tool != "Read" {
			continue
		}
		if e.rule.kind == kindTool || e.rule.kind == kindPath && e.rule.matchesPath(path, e.dirs) {
			return e.rule.raw, true
		}
	}
	return "", false
}

// Decide decides a call: deny rules first, then ask, then allow; the first
// list with a matching rule decides; an unmatched call follows the mode.
// preapproved are the rules of a loaded skill's or command's
// `allowed-tools`: they turn ask or unmatched into allow, never a deny.
// For Bash, a deny or ask rule matches when it matches any simple command
// (or, for Edit and Write rules, any output redirection); allow needs every
// simple command approved, each by some allow (or pre-approved) rule.
func (s *Set) Decide(c Call, preapproved []Rule) Decision {
	if s == nil {
		return Decision{Behavior: Allow, List: "defaultMode", Reason: "no permission rules are configured"}
	}
	var p parsed
	if c.Tool == "Bash" {
		p = parseCommand(bashCommand(c.Input))
	}
	if e, ok := s.first(s.deny, c, p); ok {
		return Decision{Behavior: Deny, Rule: e.rule.raw, List: "deny",
			Reason: fmt.Sprintf("denied by rule %q in permissions.deny of %s", e.rule.raw, e.source)}
	}
	pre := make([]entry, len(preapproved))
	for i, r := range preapproved {
		pre[i] = entry{rule: r, dirs: s.dirs, source: "allowed-tools"}
	}
	if e, ok := s.first(s.ask, c, p); ok {
		if len(pre) > 0 {
			if used, ok := s.approved(append(s.allow[:len(s.allow):len(s.allow)], pre...), c, p); ok {
				return Decision{Behavior: Allow, Rule: ruleNames(used), List: "allowed-tools",
					Reason: fmt.Sprintf("rule %q in permissions.ask of %s would ask; pre-approved by %s", e.rule.raw, e.source, approvals(used))}
			}
		}
		if s.mode == ModeDontAsk {
			return Decision{Behavior: Deny, Rule: e.rule.raw, List: "ask",
				Reason: fmt.Sprintf("rule %q in permissions.ask of %s asks, and defaultMode \"dontAsk\" denies what would ask", e.rule.raw, e.source)}
		}
		return Decision{Behavior: Ask, Rule: e.rule.raw, List: "ask",
			Reason: fmt.Sprintf("rule %q in permissions.ask of %s asks before this call", e.rule.raw, e.source)}
	}
	if used, ok := s.approved(s.allow, c, p); ok {
		return Decision{Behavior: Allow, Rule: ruleNames(used), List: "allow",
			Reason: "allowed by " + approvals(used)}
	}
	if len(pre) > 0 {
		if used, ok := s.approved(append(s.allow[:len(s.allow):len(s.allow)], pre...), c, p); ok {
			return Decision{Behavior: Allow, Rule: ruleNames(used), List: "allowed-tools",
				Reason: "pre-approved by " + approvals(used) + " (the active skill or command)"}
		}
	}
	switch s.mode {
	case ModeDontAsk:
		return Decision{Behavior: Deny, List: "defaultMode",
			Reason: "no allow rule matches, and defaultMode \"dontAsk\" denies every call no rule allows"}
	case ModePlan:
		if !readOnly[c.Tool] {
			return Decision{Behavior: Deny, List: "defaultMode",
				Reason: fmt.Sprintf("no allow rule matches, and defaultMode \"plan\" runs read-only tools only (not %s)", c.Tool)}
		}
	}
	return Decision{Behavior: Allow, List: "defaultMode",
		Reason: fmt.Sprintf("no rule matches; defaultMode %q lets it run", s.mode)}
}

// first is the first entry of list that matches the call.
func (s *Set) first(list []entry, c Call, p parsed) (entry, bool) {
	for _, e := range list {
		r := e.rule
		if c.Tool == "Bash" {
			switch {
			case r.tool == "Bash" && r.kind == kindTool:
				return e, true
			case r.tool == "Bash" && r.kind == kindBash && r.matchesAnyPart(p):
				return e, true
			case (r.tool == "Edit" || r.tool == "Write") && p.ok && r.matchesRedirects(p, e.dirs):
				return e, true
			}
			continue
		}
		if r.Matches(c, e.dirs) {
			return e, true
		}
	}
	return entry{}, false
}

// approved reports whether rules approve the call, with the entries that
// did. A Bash command is approved when a rule covers every Bash call, or
// when it parsed and each text of each simple command matches some rule.
func (s *Set) approved(rules []entry, c Call, p parsed) ([]entry, bool) {
	if c.Tool != "Bash" {
		e, ok := s.first(rules, c, p)
		return []entry{e}, ok
	}
	for _, e := range rules {
		if e.rule.tool == "Bash" && e.rule.kind == kindTool {
			return []entry{e}, true
		}
	}
	if !p.ok || len(p.parts) == 0 {
		return nil, false
	}
	var used []entry
	for _, part := range p.parts {
		if part.unknown {
			return nil, false
		}
		for _, t := range part.allow {
			e, ok := matchText(rules, t)
			if !ok {
				return nil, false
			}
			used = appendOnce(used, e)
		}
	}
	return used, true
}

// ruleNames is the rules, joined by ", ".
func ruleNames(es []entry) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.rule.raw
	}
	return strings.Join(names, ", ")
}

// approvals says which rules of which list and file approved a call.
func approvals(es []entry) string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		if e.source == "allowed-tools" {
			fmt.Fprintf(&b, "%q in allowed-tools", e.rule.raw)
		} else {
			fmt.Fprintf(&b, "%q in permissions.allow of %s", e.rule.raw, e.source)
		}
	}
	return b.String()
}

// matchText is the first Bash rule of rules whose pattern matches text.
func matchText(rules []entry, text string) (entry, bool) {
	for _, e := range rules {
		if e.rule.tool == "Bash" && e.rule.kind == kindBash && e.rule.cmd.match(text) {
			return e, true
		}
	}
	return entry{}, false
}

func appendOnce(s []entry, v entry) []entry {
	for _, x := range s {
		if x.rule.raw == v.rule.raw && x.source == v.source {
			return s
		}
	}
	return append(s, v)
}
