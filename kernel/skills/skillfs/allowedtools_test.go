package skillfs_test

import (
	"testing"

	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/stretchr/testify/assert"
)

// Protects: M803 (allowed-tools split inside a rule). allowed-tools is read
// into permission rules: a string splits at spaces and commas outside
// parentheses (a space inside "Bash(git add:*)" belongs to the rule), a
// list (Claude Code's form) gives its entries.
func TestAllowedToolsAreRules(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        []string
	}{
		{"spaces", `"Bash(git add:*) Read"`, []string{"Bash(git add:*)", "Read"}},
		{"commas", `"Bash(npm run test:*), Edit(src/**),Read"`, []string{"Bash(npm run test:*)", "Edit(src/**)", "Read"}},
		{"list", "\n  - Bash(git status)\n  - Glob", []string{"Bash(git status)", "Glob"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := "---\nname: s\ndescription: A skill.\nallowed-tools: " + tc.value + "\n---\nbody\n"
			meta, _, _ := skillfs.ParseSkill("/x/s/SKILL.md", "s", []byte(data))
			assert.Equal(t, tc.want, meta.AllowedTools)
		})
	}
}
