package skills_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// Protects: a skill folder reached from two sources (a user root's folder
// symlinked into the project's root) is one skill in the merged catalog:
// no "already provided" warning, and the warnings about its file given once
// — while two different folders of one name in two sources still warn.
func TestMergeKeepsOneSkillReachedFromTwoSources(t *testing.T) {
	base := t.TempDir()
	user, project := filepath.Join(base, "home", ".agents", "skills"), filepath.Join(base, "work", ".claude", "skills")
	write := func(root, name string) {
		dir := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		body := "---\nname: " + name + "\ndescription: Does " + name + ".\nx-house-key: 1\n---\nBody.\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644))
	}
	write(user, "pdf")
	write(user, "docx")
	write(project, "docx")
	require.NoError(t, os.Symlink(filepath.Join(user, "pdf"), filepath.Join(project, "pdf")))

	r := skills.NewRegistry(skills.RegistryConfig{})
	r.Register(skills.SourceUser, &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceUser, Roots: []string{user}})
	r.Register(skills.SourceProject, &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceProject, Roots: []string{project}})
	cat := r.Snapshot(context.Background())
	require.True(t, cat.Complete)

	var got []string
	for _, s := range cat.Skills {
		got = append(got, s.Source+":"+s.Name)
	}
	assert.Equal(t, []string{"user:docx", "user:pdf"}, got)
	var conflicts, pdfWarnings int
	for _, w := range cat.Warnings {
		if strings.Contains(w.Message, "already provided") {
			conflicts++
			assert.Contains(t, w.Message, filepath.Join(project, "docx"), "the conflict is docx's")
		}
		if strings.Contains(w.Path, "pdf") {
			pdfWarnings++
		}
	}
	assert.Equal(t, 1, conflicts, "%v", cat.Warnings)
	assert.Equal(t, 1, pdfWarnings, "pdf's unknown key is told once: %v", cat.Warnings)
}
