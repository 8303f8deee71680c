package unit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
)

// Issue 11: a refresh after one edit re-reads one entry whatever the number
// of skills: the provider's last answer is patched, and the catalog shares
// the registry's copy of it. What grows with the skills is one allocation
// each, the registry's guard of its load. Counted in allocations
// (deterministic), not time.
func TestSkillsIORefreshAllocationsAreFlat(t *testing.T) {
	ctx := context.Background()
	allocs := func(n int) float64 {
		root := t.TempDir()
		for i := range n {
			name := fmt.Sprintf("skill-%05d", i)
			writeFile(t, filepath.Join(root, name, "SKILL.md"), skillMD("name: "+name+"\ndescription: Does a thing.", "body\n"))
		}
		w := &skillfstest.Watcher{}
		reg := skills.NewRegistry(skills.RegistryConfig{})
		reg.Register("project", &skillfs.DirSource{FS: skillfs.OSFS{}, Source: "project", Roots: []string{root}, Watcher: w})
		require.Len(t, reg.Snapshot(ctx).Skills, n)
		edited := filepath.Join(root, "skill-00042", "SKILL.md")
		i := 0
		return testing.AllocsPerRun(20, func() {
			i++
			writeFile(t, edited, skillMD("name: skill-00042\ndescription: Edited "+fmt.Sprint(i)+".", "body\n"))
			w.Fire([]string{"skill-00042"}, false)
			if c := reg.Snapshot(ctx); len(c.Skills) != n {
				t.Fatalf("%d skills after the edit, want %d", len(c.Skills), n)
			}
		})
	}
	small, large := allocs(300), allocs(3000)
	t.Logf("allocations per refresh: %.0f at 300 skills, %.0f at 3000", small, large)
	assert.LessOrEqual(t, large, small+1.05*(3000-300)+5, "a refresh allocates more than the guard of each skill's load")
}
