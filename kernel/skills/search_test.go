package skills_test

// Contract C23: skill_search, which finds any skill by words of its
// description.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
)

// reachSearch calls the skill_search tool of catalog mode over ss.
func reachSearch(t *testing.T, ss []skills.Skill, args string) contract.ToolResult {
	t.Helper()
	tools, _ := skills.ToSkillTools(skills.Catalog{Skills: ss}, skills.ModeCatalog, skills.Budget{})
	i := slices.IndexFunc(tools, func(tl contract.Tool) bool { return tl.Name == skills.SearchToolName })
	require.GreaterOrEqual(t, i, 0, "catalog mode offers no %s tool", skills.SearchToolName)
	res, err := tools[i].Call(context.Background(), json.RawMessage(args))
	require.NoError(t, err, "a tool's failure is a result, never a Go error")
	return res
}

// reachHits returns the names a skill_search result lists, in order.
func reachHits(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, "- "); ok {
			name, _, _ := strings.Cut(rest, " (")
			out = append(out, name)
		}
	}
	return out
}

func reachSkill(name, source, desc string) skills.Skill {
	return skills.Skill{Name: name, Source: source, Description: desc, BaseDir: "/s/" + source + "/" + name,
		Load: func(context.Context) (skills.Content, error) {
			return skills.Content{Name: name, Body: "Body of " + name + "."}, nil
		}}
}

// C23: the ranking. Name words weigh more than description words, a rarer
// word more than a common one, plurals find singulars, ties come by name,
// skills hidden from the model never appear, a skill matching no word never
// appears, and at most 10 come back.
func TestSkillSearchRanking(t *testing.T) {
	ss := []skills.Skill{
		reachSkill("deploy", skills.SourceProject, "Ships the service to production."),
		reachSkill("release-notes", skills.SourceUser, "Writes the notes for a deploy of the service."),
		reachSkill("k8s", skills.CapabilitySource("c"), "Deploys containers to Kubernetes clusters."),
		reachSkill("secret-deploy", skills.SourceUser, "Deploys things nobody may see."),
		reachSkill("pdf", skills.SourceUser, "Reads PDF documents."),
		reachSkill("docx", skills.SourceUser, "Reads Word documents."),
		reachSkill("技能", skills.SourceUser, "日本語の文書を翻訳する。"),
		reachSkill("review", skills.SourceUser, "Looks over a change and comments on it before it merges, line by line and in detail."),
		reachSkill("checklist", skills.SourceUser, "A review checklist."),
	}
	ss[3].DisableModelInvocation = true
	for i := range 15 {
		ss = append(ss, reachSkill(fmt.Sprintf("note-%02d", i), skills.SourceUser, "Takes a note."))
	}
	cat := skills.Catalog{Skills: ss, Complete: true}
	names := func(q string) []string {
		hits, err := cat.Search(q, 0)
		require.NoError(t, err, q)
		var out []string
		for _, h := range hits {
			out = append(out, h.Skill.Name)
		}
		return out
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"deploy", []string{"deploy", "k8s", "release-notes"}}, // name first; "deploys" is "deploy"
		{"kubernetes clusters", []string{"k8s"}},               // description words
		{"review", []string{"review", "checklist"}},            // a word of the name outweighs a shorter description
		{"documents", []string{"docx", "pdf"}},                 // a tie comes by name
		{"PDF documents", []string{"pdf", "docx"}},             // case folded; the rarer word decides
		{"翻訳", []string{"技能"}},                                 // unspaced scripts match by character
		{"nothing-matches-this", nil},                          // no word in common: nothing
		{"note", []string{"release-notes", "note-00", "note-01", "note-02", "note-03", "note-04", "note-05", "note-06", "note-07", "note-08"}}, // at most 10
	}
	for _, tt := range tests {
		got := names(tt.query)
		if tt.query == "note" {
			assert.Len(t, got, skills.DefaultSearchLimit)
			assert.Subset(t, got, []string{"note-00", "note-01"}, "note")
			continue
		}
		assert.Equal(t, tt.want, got, "query %q", tt.query)
	}
	for _, q := range []string{"deploy", "nobody may see", "secret-deploy"} {
		assert.NotContains(t, names(q), "secret-deploy", "query %q: a skill hidden from the model is found", q)
	}

	// Deterministic: any order of the same skills gives the same answer.
	r := rand.New(rand.NewPCG(26, 1))
	want := names("deploy the service notes")
	for range 20 {
		perm := slices.Clone(ss)
		r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		hits, err := skills.Catalog{Skills: perm}.Search("deploy the service notes", 0)
		require.NoError(t, err)
		var got []string
		for _, h := range hits {
			got = append(got, h.Skill.Name)
		}
		assert.Equal(t, want, got)
	}

	// The tool's text: one line per hit with source and whole description.
	res := reachSearch(t, ss, `{"query":"kubernetes"}`)
	assert.False(t, res.IsError)
	assert.Contains(t, res.Content, "- k8s (capability:c): Deploys containers to Kubernetes clusters.")
	none := reachSearch(t, ss, `{"query":"zebra"}`)
	assert.False(t, none.IsError, "no match is an answer, not a failure")
	assert.Contains(t, none.Content, `No skill matches "zebra"`)
}

// C23 bad input: an empty query, one without a word, one of 10 KB, a
// missing or mistyped argument: a short error result naming the limit or
// the shape, never a Go error.
func TestSkillSearchBadInput(t *testing.T) {
	ss := []skills.Skill{reachSkill("deploy", skills.SourceProject, "Ships the service.")}
	tests := []struct {
		name, args, want string
	}{
		{"empty", `{"query":""}`, "the query is empty"},
		{"blank", `{"query":"  \t\n"}`, "the query is empty"},
		{"no word", `{"query":"?!- …"}`, "holds no word"},
		{"10 KB", `{"query":"` + strings.Repeat("deploy ", 1463) + `"}`, "10,241 characters is over the limit of 500"},
		{"missing", `{}`, `takes {"query"`},
		{"not a string", `{"query":3}`, `takes {"query"`},
		{"not JSON", `deploy`, `takes {"query"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := reachSearch(t, ss, tt.args)
			assert.True(t, res.IsError, "%s: %s", tt.name, res.Content)
			assert.Contains(t, res.Content, tt.want)
			assert.Less(t, len(res.Content), 200, "the error is short")
		})
	}
	_, err := skills.Catalog{Skills: ss}.Search(strings.Repeat("x", skills.MaxSearchQuery+1), 0)
	assert.ErrorIs(t, err, skills.ErrBadQuery)
	_, err = skills.Catalog{Skills: ss}.Search(strings.Repeat("x", skills.MaxSearchQuery), 0)
	assert.NoError(t, err, "a query at the limit is accepted")
}
