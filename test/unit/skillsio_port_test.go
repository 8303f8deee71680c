package unit_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	skillscap "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/workfs"
)

// C5 with the faster reads of project skills: a SKILL.md (or a folder)
// linked outside the work dir is still refused, one linked elsewhere inside
// the work dir still loads, and a skills root replaced between two scans is
// read anew.
func TestSkillsIOProjectReadsStayGuarded(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	outside := t.TempDir()
	root := filepath.Join(work, ".helios", "skills")
	writeFile(t, filepath.Join(outside, "secret", "SKILL.md"), skillMD("name: secret\ndescription: Outside.", "secret body\n"))
	writeFile(t, filepath.Join(work, "shared", "inside", "SKILL.md"), skillMD("name: inside\ndescription: Inside.", "inside body\n"))
	writeFile(t, filepath.Join(root, "plain", "SKILL.md"), skillMD("name: plain\ndescription: Plain.", "plain body\n"))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "linkfile"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret", "SKILL.md"), filepath.Join(root, "linkfile", "SKILL.md")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "linkdir")))
	require.NoError(t, os.Symlink("../../shared/inside", filepath.Join(root, "inside")))

	port, err := workfs.New(work)
	require.NoError(t, err)
	c := skillscap.New(port, nil)
	t.Cleanup(func() { c.Close() })
	set, err := c.Skills(ctx)
	require.NoError(t, err)
	assert.False(t, set.Incomplete)
	assert.Equal(t, []string{"inside", "plain"}, ioNames(set))
	for _, bad := range []string{"linkfile", "linkdir"} {
		assert.Contains(t, ioWarningAbout(t, []skills.Set{set}, filepath.Join(root, bad)), "outside the work dir")
	}
	for _, s := range set.Skills {
		got, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, s.Name+" body\n", got.Body)
	}

	// The root is replaced (a checkout): the next scan reads the new one.
	require.NoError(t, os.Rename(root, root+".old"))
	writeFile(t, filepath.Join(root, "fresh", "SKILL.md"), skillMD("name: fresh\ndescription: New.", "fresh body\n"))
	set, err = c.Skills(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"fresh"}, ioNames(set))
	got, err := set.Skills[0].Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, "fresh body\n", got.Body)
}
