package skillsfloor_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/skillsfloor"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// Protects: the benchmarks' real-shaped root loads whole — every drawn skill
// is a skill (unique name, a description) — with the warnings published
// files cause and no skip.
func TestGenerateRealLoads(t *testing.T) {
	const n = 300
	root := filepath.Join(t.TempDir(), "skills")
	require.NoError(t, skillsfloor.GenerateReal(root, n, 1))
	src := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceUser, Roots: []string{root}}
	set, err := src.Skills(context.Background())
	require.NoError(t, err)
	assert.Len(t, set.Skills, n)
	assert.NotEmpty(t, set.Warnings, "published files cause warnings; the drawn ones should too")
	for _, w := range set.Warnings {
		assert.NotContains(t, w.Message, "skipped", "%s: %s", w.Path, w.Message)
		assert.False(t, strings.Contains(w.Message, "already provided"), "%s: %s", w.Path, w.Message)
	}
}
