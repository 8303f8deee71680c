package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
)

// The skills section of the base prompt follows the skills mode: in catalog
// mode it points at the <available_skills> message and the skill tool; in
// tools mode there is neither, and it says some tools load a skill.
func TestSkillsPromptFollowsMode(t *testing.T) {
	for _, tt := range []struct {
		mode      skills.Mode
		want, not []string
	}{
		{skills.ModeCatalog, []string{"<available_skills>", "the skill tool"}, []string{"Some of your tools load a skill"}},
		{skills.ModeTools, []string{"Some of your tools load a skill"}, []string{"<available_skills>", "the skill tool"}},
	} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			work, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			k, err := kernel.New(kernel.Config{WorkDir: work, UserSkillRoots: []string{}, SkillsMode: tt.mode})
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, k.Close()) })
			p := k.SkillsPrompt()
			for _, w := range tt.want {
				assert.Contains(t, p, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, p, n)
			}
		})
	}
}
