package catalog_test

// Contract C13: the catalog budget.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

func budSkill(name, source, desc string) skills.Skill {
	return skills.Skill{Name: name, Source: source, Description: desc, BaseDir: "/s/" + source + "/" + name,
		Load: func(context.Context) (skills.Content, error) {
			return skills.Content{Name: name, Body: "Body of " + name + "."}, nil
		}}
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// budFrame is what the message costs without any line: the sentence, the
// tags, and the note when n skills are omitted.
func budFrame(n int) int {
	f := catalog.MessageFrame()
	w := runes(f.Head) + runes(f.Tail)
	if n > 0 {
		w += runes(f.Note(n))
	}
	return w
}

// budLines returns the lines between the tags.
func budLines(v catalog.View) []string {
	if v.Text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(v.Text, "\n"), "\n")
}

var budWords = []string{"deploy", "the", "service", "héllo", "naïve", "日本語の説明", "мир", "données", "a", "<tag>", "R&D", "ünïcödé", "🙂emoji", "x", "build", "changelog", "技能", "説明文です"}

func budRandomSkills(r *rand.Rand, n int) []skills.Skill {
	sources := []string{skills.SourceProject, skills.SourceUser, skills.CapabilitySource("a"), skills.CapabilitySource("b")}
	names := []string{"alpha", "beta", "技能", "мой-навык", "zeta", "deploy", "review", "a1", "b-2"}
	out := make([]skills.Skill, 0, n)
	seen := map[string]bool{}
	for len(out) < n {
		name := names[r.IntN(len(names))] + fmt.Sprint(r.IntN(1000))
		if seen[name] {
			continue
		}
		seen[name] = true
		words := make([]string, 1+r.IntN(60))
		if r.IntN(8) == 0 { // long descriptions, up to the spec's 1,024
			words = make([]string, 60+r.IntN(80))
		}
		for i := range words {
			words[i] = budWords[r.IntN(len(budWords))]
		}
		s := budSkill(name, sources[r.IntN(len(sources))], strings.Join(words, " "))
		s.DisableModelInvocation = r.IntN(20) == 0
		out = append(out, s)
	}
	return out
}

// C13 properties, over random skill sets and budgets: the message fits the
// budget; any permutation of the input gives the same message; every pinned
// skill is present (with its full line) whenever the pinned lines fit;
// included + omitted = total; no cut inside a rune, and every shortened
// description is a prefix of the full one ending at a word end. C23: a
// description within the spec's 1,024 characters is whole in a full line,
// and nothing is shortened or omitted unless the full lines do not fit.
func TestCatalogBudgetProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2026))
	frame := catalog.MessageFrame()
	var regimes [3]int // all full, shortened, omitted: each must occur
	pinnedChecked := 0
	for iter := range 400 {
		ss := budRandomSkills(r, r.IntN(40))
		visible := 0
		for _, s := range ss {
			if !s.DisableModelInvocation {
				visible++
			}
		}
		var pinned []string
		for _, s := range ss {
			if r.IntN(6) == 0 {
				pinned = append(pinned, s.Name)
			}
		}
		if r.IntN(4) == 0 {
			pinned = append(pinned, "not-a-skill")
		}
		unlimited := catalog.Render(ss, skills.Budget{Pinned: pinned}, frame)
		b := skills.Budget{Chars: budFrame(visible) + r.IntN(runes(unlimited.Message)+10), ContextWindow: 128000, Pinned: pinned}
		if r.IntN(2) == 0 { // near the names' width, where skills are omitted
			names := 0
			for _, l := range budLines(unlimited) {
				n, _, _ := strings.Cut(l, ":")
				names += runes(n) + 1
			}
			b.Chars = budFrame(visible) + r.IntN(names+1)
		}
		v := catalog.Render(ss, b, frame)
		name := fmt.Sprintf("iter %d: %d skills, budget %d", iter, len(ss), b.Chars)
		if v.Cut() {
			assert.Greater(t, runes(unlimited.Message), b.Chars, "%s: cut although the full lines fit", name)
		} else {
			assert.Equal(t, unlimited.Message, v.Message, "%s: nothing cut, yet not the full lines", name)
		}
		for _, s := range ss {
			if !s.DisableModelInvocation {
				whole := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(strings.Join(strings.Fields(s.Description), " "))
				if !strings.Contains(unlimited.Text, "- "+s.Name+": "+whole+"\n") {
					t.Errorf("%s: the description of %q (%d characters) is not whole in its full line", name, s.Name, runes(s.Description))
					break // one per iteration is enough
				}
			}
		}

		assert.LessOrEqual(t, runes(v.Message), b.Chars, name)
		assert.Equal(t, runes(v.Message), v.Summary.Used, name)
		assert.Equal(t, visible, v.Summary.Total, name)
		assert.Equal(t, v.Summary.Total, v.Summary.Included+len(v.Summary.Omitted), name)
		assert.Len(t, budLines(v), v.Summary.Included, name)
		assert.True(t, utf8.ValidString(v.Message), "%s: message is not valid UTF-8", name)
		switch {
		case len(v.Summary.Omitted) > 0:
			regimes[2]++
		case v.Summary.Shortened > 0:
			regimes[1]++
		default:
			regimes[0]++
		}

		perm := slices.Clone(ss)
		r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		assert.Equal(t, v.Message, catalog.Render(perm, b, frame).Message, "%s: a permutation changed the message", name)

		full := map[string]string{}
		for _, l := range budLines(unlimited) {
			n, _, _ := strings.Cut(strings.TrimPrefix(l, "- "), ":")
			full[n] = l
		}
		for _, l := range budLines(v) {
			n, desc, cut := strings.Cut(strings.TrimPrefix(l, "- "), ": ")
			if !cut || l == full[n] {
				continue
			}
			short, ok := strings.CutSuffix(desc, "…")
			if assert.True(t, ok, "%s: shortened line %q has no ellipsis", name, l) {
				rest := strings.TrimPrefix(full[n], "- "+n+": ")
				if assert.True(t, strings.HasPrefix(rest, short), "%s: %q is not a prefix of %q", name, short, rest) {
					next, _ := utf8.DecodeRuneInString(rest[len(short):])
					last, _ := utf8.DecodeLastRuneInString(short)
					assert.True(t, next == ' ' || last > 0x2E80 || next > 0x2E80, "%s: %q cut inside a word (next %q)", name, short, next)
				}
			}
		}

		// Pinned lines alone fit (with the note for the rest): all present, full.
		pinFull, pinVisible := 0, 0
		for _, p := range pinned { // names are unique
			if l, ok := full[p]; ok {
				pinFull += runes(l) + 1
				pinVisible++
			}
		}
		if pinVisible > 0 && budFrame(visible-pinVisible)+pinFull <= b.Chars {
			pinnedChecked++
			for _, p := range pinned {
				if l, ok := full[p]; ok {
					assert.Contains(t, v.Text, l+"\n", "%s: pinned %q not shown in full", name, p)
				}
			}
		}
	}
	for i, n := range regimes {
		assert.Positive(t, n, "regime %d never occurred: the generator does not cover it", i)
	}
	assert.Positive(t, pinnedChecked, "no case where the pinned lines fit")
	t.Logf("regimes (full, shortened, omitted): %v; pinned checked %d times", regimes, pinnedChecked)
}

// C13: the three regimes and the order (pinned, project, user, capability,
// then code point).
func TestCatalogBudgetRegimes(t *testing.T) {
	ss := []skills.Skill{
		budSkill("zed", skills.SourceUser, "User skill with a long description that goes on and on about many things for a while."),
		budSkill("cap", skills.CapabilitySource("x"), "Capability skill, also with a fairly long description of what it does."),
		budSkill("beta", skills.SourceProject, "Tiny."),
		budSkill("alpha", skills.SourceProject, "Project skill whose description is long enough to be cut when space is short."),
		budSkill("pinme", skills.SourceUser, "Pinned skill, its description kept whole."),
	}
	frame := catalog.MessageFrame()
	unlimited := catalog.Render(ss, skills.Budget{Pinned: []string{"pinme"}}, frame)
	order := []string{"pinme", "alpha", "beta", "zed", "cap"}
	var names []string
	for _, l := range budLines(unlimited) {
		n, _, _ := strings.Cut(strings.TrimPrefix(l, "- "), ":")
		names = append(names, n)
	}
	require.Equal(t, order, names, "order: pinned, project, user, capability, then name")

	t.Run("all fit: full lines", func(t *testing.T) {
		v := catalog.Render(ss, skills.Budget{Chars: runes(unlimited.Message), Pinned: []string{"pinme"}}, frame)
		assert.Equal(t, unlimited.Message, v.Message)
		assert.Equal(t, 0, v.Summary.Shortened)
		assert.Empty(t, v.Summary.Omitted)
		assert.Empty(t, v.Warnings)
	})
	t.Run("names fit: descriptions shortened round-robin", func(t *testing.T) {
		b := skills.Budget{Chars: runes(unlimited.Message) - 60, Pinned: []string{"pinme"}}
		v := catalog.Render(ss, b, frame)
		lines := budLines(v)
		require.Len(t, lines, 5)
		assert.Equal(t, "- pinme: Pinned skill, its description kept whole.", lines[0], "a pinned skill keeps its full line")
		assert.Equal(t, "- beta: Tiny.", lines[2], "a description shorter than its share is kept whole")
		assert.Positive(t, v.Summary.Shortened)
		for _, l := range lines {
			if strings.HasSuffix(l, "…") {
				assert.NotContains(t, l, " …", "cut at a word end, no space before the ellipsis")
			}
		}
		// What beta did not need went to the others: little is left unused.
		assert.LessOrEqual(t, v.Summary.Used, b.Chars)
		assert.Greater(t, v.Summary.Used, b.Chars-5*8, "the shares were not redistributed: %d of %d used", v.Summary.Used, b.Chars)
		assert.Empty(t, v.Summary.Omitted)
		assert.NotContains(t, v.Message, "more skills exist")
	})
	// Omitting pays only when the note costs less than the names it
	// replaces: many more skills.
	many := slices.Clone(ss)
	for i := range 30 {
		many = append(many, budSkill(fmt.Sprintf("y%02d", i), skills.CapabilitySource("y"), "Another capability skill."))
	}
	t.Run("names do not fit: names in order, the rest omitted", func(t *testing.T) {
		pin := runes("- pinme: Pinned skill, its description kept whole.\n")
		b := skills.Budget{Chars: budFrame(len(many)-3) + pin + runes("- alpha\n- beta\n"), Pinned: []string{"pinme"}}
		v := catalog.Render(many, b, frame)
		assert.Equal(t, []string{"- pinme: Pinned skill, its description kept whole.", "- alpha", "- beta"}, budLines(v))
		require.Len(t, v.Summary.Omitted, len(many)-3)
		assert.Equal(t, []string{"zed", "cap", "y00"}, v.Summary.Omitted[:3])
		assert.Equal(t, 3, v.Summary.Included)
		assert.Equal(t, 2, v.Summary.Shortened, "name-only lines count as shortened")
		assert.True(t, strings.HasSuffix(v.Message, "</available_skills>"+frame.Note(len(many)-3)), "the message ends with the note: %q", v.Message)
		assert.LessOrEqual(t, v.Summary.Used, b.Chars)
	})
	t.Run("pinned lines do not fit: pinned named first", func(t *testing.T) {
		b := skills.Budget{Chars: budFrame(len(many)-1) + runes("- pinme\n"), Pinned: []string{"pinme"}}
		v := catalog.Render(many, b, frame)
		assert.Equal(t, []string{"- pinme"}, budLines(v))
		assert.Len(t, v.Summary.Omitted, len(many)-1)
	})
}

// C13, C23: the note says how many more exist, that skill_search finds
// them and that the skill tool loads any skill by its exact name; it is counted in the budget, and there is none
// when nothing is omitted.
func TestCatalogBudgetTrailingNote(t *testing.T) {
	var ss []skills.Skill
	for i := range 30 {
		ss = append(ss, budSkill(fmt.Sprintf("s%02d", i), skills.SourceProject, "Does one thing."))
	}
	b := skills.Budget{Chars: budFrame(30) + 3*runes("- s00\n")}
	v := catalog.Render(ss, b, catalog.MessageFrame())
	require.Len(t, v.Summary.Omitted, 27)
	last := v.Message[strings.LastIndex(v.Message, "\n")+1:]
	assert.Contains(t, last, "27 more skills")
	assert.Contains(t, last, "skill tool loads any skill by its exact name")
	assert.Contains(t, last, "find them with skill_search", "the note names the tool that finds them")
	assert.LessOrEqual(t, runes(v.Message), b.Chars)

	all := catalog.Render(ss, skills.Budget{}, catalog.MessageFrame())
	assert.True(t, strings.HasSuffix(all.Message, "</available_skills>"), "no note when nothing is omitted: %q", all.Message)
}

// C13: the skill tool loads a skill the budget omitted, by its exact name.
func TestCatalogBudgetOmittedSkillLoadsByName(t *testing.T) {
	var ss []skills.Skill
	for i := range 50 {
		ss = append(ss, budSkill(fmt.Sprintf("skill-%02d", i), skills.SourceProject, "Does a thing."))
	}
	b := skills.Budget{Chars: 400}
	v := catalog.ViewOf(skills.Catalog{Skills: ss, Complete: true}, b, skills.ModeCatalog)
	require.NotEmpty(t, v.Summary.Omitted)
	omitted := v.Summary.Omitted[len(v.Summary.Omitted)-1]
	require.NotContains(t, v.Message, omitted)

	tools, _ := skills.ToSkillTools(skills.Catalog{Skills: ss}, skills.ModeCatalog, b)
	require.Equal(t, skills.SkillToolName, tools[0].Name)
	res, err := tools[0].Call(context.Background(), json.RawMessage(`{"name":"`+omitted+`"}`))
	require.NoError(t, err)
	assert.False(t, res.IsError, res.Content)
	assert.Contains(t, res.Content, "Body of "+omitted+".")
	assert.Contains(t, res.Content, "/s/project/"+omitted)
}

// C13: the warning says the budget in characters and percent, the counts,
// the average characters cut, the first five omitted names and "+K more",
// and the keys to raise or pin; a pinned name that does not exist is a
// warning naming it.
func TestCatalogBudgetWarningContent(t *testing.T) {
	var ss []skills.Skill
	for i := range 40 {
		ss = append(ss, budSkill(fmt.Sprintf("skill-%02d", i), skills.SourceProject, "Does task number "+fmt.Sprint(i)+" when asked, in a sentence of ordinary length."))
	}
	b := skills.Budget{Chars: 400, ContextWindow: 10000, Pinned: []string{"skill-39", "ghost"}}
	v := catalog.Render(ss, b, catalog.MessageFrame())
	require.NotEmpty(t, v.Summary.Omitted)
	require.GreaterOrEqual(t, len(v.Warnings), 2)
	w := v.Warnings[0]
	assert.Equal(t, "skills.catalog.budget", w.Path)
	n := len(v.Summary.Omitted)
	for _, want := range []string{
		"400 characters", "1% of a 10,000-token context window",
		"40 skills", fmt.Sprintf("%d listed", v.Summary.Included),
		fmt.Sprintf("%d with a shortened description", v.Summary.Shortened),
		fmt.Sprintf("%d characters cut on average", (v.Summary.CharsCut+v.Summary.Shortened/2)/v.Summary.Shortened),
		fmt.Sprintf("%d omitted: %s +%d more", n, strings.Join(v.Summary.Omitted[:5], ", "), n-5),
		"skills.catalog.budget", "model.contextWindow", "skills.catalog.pinned",
	} {
		assert.Contains(t, w.Message, want)
	}
	var ghost bool
	for _, w := range v.Warnings {
		ghost = ghost || w.Path == "skills.catalog.pinned" && strings.Contains(w.Message, `"ghost"`)
	}
	assert.True(t, ghost, "no warning names the pinned skill that does not exist: %v", v.Warnings)
	assert.Equal(t, "- skill-39: Does task number 39 when asked, in a sentence of ordinary length.", budLines(v)[0])
}

// C13: tools mode is bounded by skills.tools.max, in catalog order, with a
// warning naming the key.
func TestCatalogBudgetToolsModeBound(t *testing.T) {
	ss := []skills.Skill{
		budSkill("d-user", skills.SourceUser, "D."),
		budSkill("c-proj", skills.SourceProject, "C."),
		budSkill("b-cap", skills.CapabilitySource("x"), "B."),
		budSkill("a-proj", skills.SourceProject, "A."),
		budSkill("bad name", skills.SourceProject, "Not a tool name."),
		budSkill("z-pin", skills.CapabilitySource("x"), "Z."),
	}
	b := skills.Budget{ToolsMax: 3, Pinned: []string{"z-pin"}}
	tools, warns := skills.ToSkillTools(skills.Catalog{Skills: ss}, skills.ModeTools, b)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"z-pin", "a-proj", "c-proj"}, names)
	require.Len(t, warns, 1, "the invalid name is warned about")

	v := catalog.ViewOf(skills.Catalog{Skills: ss, Complete: true}, b, skills.ModeTools)
	assert.Equal(t, []string{"d-user", "b-cap"}, v.Summary.Omitted)
	assert.Equal(t, 3, v.Summary.Included)
	assert.Empty(t, v.Message, "no catalog message in tools mode")
	require.NotEmpty(t, v.Warnings)
	assert.Equal(t, "skills.tools.max", v.Warnings[0].Path)
	assert.Contains(t, v.Warnings[0].Message, "d-user, b-cap")

	all, _ := skills.ToSkillTools(skills.Catalog{Skills: ss}, skills.ModeTools, skills.Budget{})
	assert.Len(t, all, 5, "no bound without a budget")
}
