package catalog_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// C7: rendering — one line per skill by code point, whitespace collapsed,
// long descriptions cut with an ellipsis, markup escaped.
func TestRenderCatalog(t *testing.T) {
	long := strings.Repeat("word ", 300) // over the spec's 1,024
	skill := func(name, desc string) skills.Skill {
		return skills.Skill{Name: name, Description: desc, Source: skills.SourceProject, BaseDir: "/w/" + name}
	}
	got := catalog.Render([]skills.Skill{
		skill("zeta", "Last\n  of   all."),
		skill("Alpha", "Capital."),
		skill("beta", "Uses <tags> & </available_skills>."),
		skill("gamma", long),
	}, skills.Budget{}, catalog.MessageFrame()).Text
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	require.Len(t, lines, 4, "%d lines: %q", len(lines), got)
	assert.True(t, strings.HasPrefix(lines[0], "- Alpha:"), "order or whitespace wrong: %q", lines)
	assert.True(t, strings.HasPrefix(lines[1], "- beta:"), "order or whitespace wrong: %q", lines)
	assert.True(t, strings.HasPrefix(lines[2], "- gamma:"), "order or whitespace wrong: %q", lines)
	assert.Equal(t, "- zeta: Last of all.", lines[3], "order or whitespace wrong: %q", lines)
	assert.NotContains(t, got, "<tags>", "markup not escaped: %q", lines[1])
	assert.NotContains(t, got, "</available_skills>", "markup not escaped: %q", lines[1])
	assert.Contains(t, got, "&lt;tags&gt; &amp; &lt;/available_skills&gt;", "markup not escaped: %q", lines[1])
	n := len([]rune(strings.TrimPrefix(lines[2], "- gamma: ")))
	assert.LessOrEqual(t, n, 1024, // the spec's limit on a description
		"long description not cut: %d runes, %q", n, lines[2][len(lines[2])-10:])
	assert.True(t, strings.HasSuffix(lines[2], "…"), "long description not cut: %d runes, %q", n, lines[2][len(lines[2])-10:])
}
