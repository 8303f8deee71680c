package permissions

import "strings"

// pattern is a Claude Code command pattern: '*' matches any run of
// characters, spaces included; "cmd:*" is the legacy prefix form of
// "cmd *"; a pattern ending in " *" with no other '*' also matches the
// bare command, so "npm run test *" matches "npm run test" and
// "npm run test -v" but never "npm run testify" (the space is a word
// boundary). Runs of white space count as one space.
type pattern struct {
	segs     []string // literal pieces between the '*'s
	optional string   // non-empty: the pattern also matches exactly this
}

func compilePattern(s string) pattern {
	s = strings.Join(strings.Fields(s), " ")
	if strings.HasSuffix(s, ":*") {
		s = strings.TrimSuffix(s, ":*") + " *"
	}
	p := pattern{segs: strings.Split(s, "*")}
	if strings.HasSuffix(s, " *") && strings.Count(s, "*") == 1 {
		p.optional = strings.TrimSuffix(s, " *")
	}
	return p
}

// match reports whether the whole of s matches.
func (p pattern) match(s string) bool {
	if p.optional != "" && s == p.optional {
		return true
	}
	segs := p.segs
	if len(segs) == 1 {
		return s == segs[0]
	}
	if !strings.HasPrefix(s, segs[0]) {
		return false
	}
	s = s[len(segs[0]):]
	last := segs[len(segs)-1]
	for _, seg := range segs[1 : len(segs)-1] {
		i := strings.Index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
