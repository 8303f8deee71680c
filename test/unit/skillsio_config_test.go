package unit_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/extdir"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// skills.maxFrontmatter and skills.maxFileSize reach every folder source
// (user, project, extension) and EXTENSION.md; a negative value is a config
// error naming the key.
func TestSkillsIOConfigLimits(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	work, home := filepath.Join(base, "work"), filepath.Join(base, "home")
	t.Setenv("HOME", home)
	long := "description: " + strings.Repeat("word ", 200) // ~1 KB
	writeFile(t, filepath.Join(work, ".helios/skills/proj-long/SKILL.md"), skillMD("name: proj-long\n"+long, "body\n"))
	writeFile(t, filepath.Join(work, ".helios/skills/proj-big/SKILL.md"), skillMD("name: proj-big\ndescription: Big body.", strings.Repeat("x", 5000)))
	writeFile(t, filepath.Join(home, "u/user-long/SKILL.md"), skillMD("name: user-long\n"+long, "body\n"))
	writeFile(t, filepath.Join(base, "ext/EXTENSION.md"), skillMD("name: ext\ndescription: An extension.", ""))
	writeFile(t, filepath.Join(base, "ext/skills/ext-long/SKILL.md"), skillMD("name: ext-long\n"+long, "body\n"))
	cfg := filepath.Join(base, "helios.config.json")
	writeFile(t, cfg, `{"workDir": "work", "skills": {"userRoots": ["~/u"], "maxFrontmatter": 512, "maxFileSize": 4096}, "extensions": [{"dir": "ext"}]}`)

	k, err := assembly.Load(ctx, cfg, assembly.Options{})
	require.NoError(t, err)
	defer k.Close()
	cat := k.Skills().Snapshot(ctx)
	assert.True(t, cat.Complete)
	names := []string{}
	for _, s := range cat.Skills {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"proj-big"}, names)
	for _, p := range []string{
		filepath.Join(home, "u/user-long/SKILL.md"),
		filepath.Join(work, ".helios/skills/proj-long/SKILL.md"),
		filepath.Join(base, "ext/skills/ext-long/SKILL.md"),
	} {
		msg := ioWarningAbout(t, []skills.Set{{Warnings: cat.Warnings}}, p)
		assert.Contains(t, msg, "512")
		assert.Contains(t, msg, "skills.maxFrontmatter")
	}
	_, err = cat.Skills[0].Load(ctx)
	require.ErrorIs(t, err, skillfs.ErrTooLarge)
	assert.Contains(t, err.Error(), "4096")

	for key, want := range map[string]string{"maxFrontmatter": "skills.maxFrontmatter", "maxFileSize": "skills.maxFileSize"} {
		writeFile(t, cfg, `{"workDir": "work", "skills": {"`+key+`": -1}}`)
		_, err := assembly.Load(ctx, cfg, assembly.Options{})
		require.Error(t, err, key)
		assert.ErrorIs(t, err, assembly.ErrConfig)
		assert.Contains(t, err.Error(), want)
	}
}

// EXTENSION.md is read only up to the end of its frontmatter, at most the
// limit; past it, the extension is refused with an error naming the limit.
func TestSkillsIOExtensionDocBounded(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "EXTENSION.md"), skillMD("name: ext\ndescription: "+strings.Repeat("word ", 400), "body\n"))
	_, err := extdir.OpenLimited(dir, skillfs.Limits{MaxFrontmatter: 1024})
	require.Error(t, err)
	assert.ErrorIs(t, err, skillfs.ErrFrontmatterTooLarge)
	assert.Contains(t, err.Error(), "1024")
	assert.Contains(t, err.Error(), "skills.maxFrontmatter")
	c, err := extdir.Open(dir)
	require.NoError(t, err)
	assert.Equal(t, "ext", c.Name())
}
