package skillfs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/frontmatter"
)

// TestParseSkillFindingText holds the findings' messages, built without fmt
// for speed, to the text fmt.Sprintf gives (%q and %d), with the escapes %q
// writes and lengths counted in characters, not bytes.
func TestParseSkillFindingText(t *testing.T) {
	e := strings.Repeat
	tests := []struct {
		name, folder, fm string
		want             []Finding
	}{
		{
			name: "quoted name and folder", folder: "a\"b", fm: "name: 'Q\"\\\\é x'\ndescription: d",
			want: []Finding{
				{SpecViolation, fmt.Sprintf("invalid skill name %q: has an uppercase letter; use lowercase", "Q\"\\\\é x")},
				{SpecViolation, fmt.Sprintf("name %q differs from its folder %q", "Q\"\\\\é x", "a\"b")},
			},
		},
		{
			name: "missing name", folder: "t\tab", fm: "description: d",
			want: []Finding{{SpecViolation, fmt.Sprintf("missing name; using the folder's name %q", "t\tab")}},
		},
		{
			name: "name not a string", folder: "f", fm: "name: [a]\ndescription: d",
			want: []Finding{{SpecViolation, fmt.Sprintf("name is not a string; using the folder's name %q", "f")}},
		},
		{
			name: "unknown keys", folder: "k", fm: "name: k\ndescription: d\n\"we\\\"ird\": 1\nx-version: 2",
			want: []Finding{
				{Advice, fmt.Sprintf("unknown frontmatter key %q", "we\"ird")},
				{Advice, fmt.Sprintf("unknown frontmatter key %q", "x-version")},
			},
		},
		{
			// 1,024 characters of two bytes each: not over the limit.
			name: "long description in characters", folder: "d", fm: "name: d\ndescription: " + e("é", 1024) + "\ncompatibility: " + e("é", 500),
		},
		{
			name: "description and compatibility over the limits", folder: "d", fm: "name: d\ndescription: " + e("é", 1025) + "\ncompatibility: " + e("é", 501),
			want: []Finding{
				{SpecViolation, fmt.Sprintf("description is %d characters, over the spec's %d", 1025, 1024)},
				{SpecViolation, fmt.Sprintf("compatibility is %d characters, over the spec's %d", 501, 500)},
			},
		},
		{
			// 64 characters of two bytes each: a valid name.
			name: "long name in characters", folder: e("é", 64), fm: "name: " + e("é", 64) + "\ndescription: d",
		},
		{
			name: "name over the limit", folder: e("é", 65), fm: "name: " + e("é", 65) + "\ndescription: d",
			want: []Finding{{SpecViolation, fmt.Sprintf("invalid skill name %q: %d characters, over the spec's %d", e("é", 65), 65, 64)}},
		},
		{
			name: "optional fields of other types", folder: "o",
			fm: "name: o\ndescription: d\nlicense: [a]\ncompatibility: {a: b}\nmetadata: 2025-01-15\nallowed-tools: [Read]\ndisable-model-invocation: yes",
			want: []Finding{
				{SpecViolation, "license is a list, not a string (kept as is)"},
				{SpecViolation, "compatibility is a mapping, not a string (kept as is)"},
				{SpecViolation, "metadata is a timestamp, not a mapping (kept as is)"},
				{SpecViolation, "allowed-tools is a list, not a space-separated string (kept as is)"},
				{SpecViolation, "disable-model-invocation is a str, not a boolean; treated as false"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte("---\n" + tt.fm + "\n---\nbody\n")
			_, _, got := ParseSkill("f/SKILL.md", tt.folder, data)
			assert.Equal(t, tt.want, got, "ParseSkill")
			// Discovery's reading of the head gives the same.
			end, done := frontmatter.HeadLen(data, true)
			require.True(t, done)
			_, _, got = parseSkill("f/SKILL.md", tt.folder, data, end)
			assert.Equal(t, tt.want, got, "parseSkill of the head")
		})
	}
}
