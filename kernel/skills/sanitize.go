package skills

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/skills/internal/text"
)

// sanitizeSet makes each skill's name and description safe for the model
// and the terminal (package sanitize: controls, bidi controls, zero-width
// and TAG characters escaped), with one warning naming each skill changed.
// Every source's skills pass here once per observation, before a merge,
// so what the catalog, the tools and the CLI show is the same escaped text.
// A set with nothing to escape is returned as it is; otherwise its skills
// are copied, so a frozen set shared with its producer is never modified.
// Loads keep the name the provider knows (their closures were made
// before), so a load by the escaped name still reads the file.
func sanitizeSet(set Set, source string) Set {
	first := slices.IndexFunc(set.Skills, func(s Skill) bool {
		return sanitize.Text(s.Name) != s.Name || sanitize.Text(s.Description) != s.Description
	})
	if first < 0 {
		return set
	}
	skills := slices.Clone(set.Skills)
	warns := slices.Clone(set.Warnings)
	for i := first; i < len(skills); i++ {
		s := &skills[i]
		name, nf := sanitize.Clean(s.Name)
		desc, df := sanitize.Clean(s.Description)
		if name == s.Name && desc == s.Description {
			continue
		}
		var what string
		switch {
		case nf.Count > 0 && df.Count > 0:
			what = fmt.Sprintf("its name holds %s and its description %s", nf, df)
		case nf.Count > 0:
			what = "its name holds " + nf.String()
		default:
			what = "its description holds " + df.String()
		}
		warns = append(warns, contract.Warning{Source: cmp.Or(s.Source, source), Path: pathOf(*s),
			Message: fmt.Sprintf("skill %q: %s; the model and the terminal see them escaped", name, what)})
		s.Name, s.Description = name, desc
	}
	set.Skills, set.Warnings = skills, warns
	return set
}

// toolDescription is a tools-mode skill tool's description: the author's
// description with markup escaped, as the catalog escapes it, so a
// description cannot close a tag of the prompt around it.
func toolDescription(s Skill) string { return text.EscapeMarkup(s.Description) }
