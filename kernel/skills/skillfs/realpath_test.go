package skillfs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// writeSkill writes root/name/SKILL.md with an unknown frontmatter key, so
// that each reading of it warns once.
func writeSkill(t *testing.T, root, name string) {
	t.Helper()
	dir := filepath.Join(root, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	body := "---\nname: " + name + "\ndescription: Does " + name + ".\nx-house-key: 1\n---\nBody.\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644))
}

func names(ss []skills.Skill) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func messages(ws []contract.Warning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.Path+": "+w.Message)
	}
	return out
}

// bothFS reads a test's roots through OSFS
// and through the generic FS path, which the guarded port takes.
var bothFS = map[string]skillfs.FS{"OSFS": skillfs.OSFS{}, "generic FS": viaFS{}}

// Protects: a skill folder symlinked into another root (vercel's layout,
// .claude/skills/pdf -> .agents/skills/pdf) is one skill, without the
// "already provided" warning and without its own warnings twice; two
// different folders of one name still warn as before.
func TestSkillFolderReachedTwiceIsOneSkill(t *testing.T) {
	for label, fsys := range bothFS {
		t.Run(label, func(t *testing.T) {
			base := t.TempDir()
			agents, claude := filepath.Join(base, ".agents", "skills"), filepath.Join(base, ".claude", "skills")
			writeSkill(t, agents, "pdf")
			writeSkill(t, agents, "docx")
			require.NoError(t, os.MkdirAll(claude, 0o755))
			require.NoError(t, os.Symlink(filepath.Join(agents, "pdf"), filepath.Join(claude, "pdf")))
			writeSkill(t, claude, "docx") // another folder of the same name

			d := &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{agents, claude}}
			set, err := d.Skills(context.Background())
			require.NoError(t, err)
			assert.Equal(t, []string{"docx", "pdf"}, names(set.Skills))
			pdf := set.Skills[1]
			assert.Equal(t, filepath.Join(agents, "pdf"), pdf.BaseDir, "the first path reaching it is kept")
			assert.True(t, pdf.FileID.Known(), "the file's identity is taken where it is opened")

			got := messages(set.Warnings)
			assert.Len(t, got, 4, "pdf's key once, docx's key twice, one conflict: %q", got)
			var conflicts []string
			for _, m := range got {
				if strings.Contains(m, "already provided") {
					conflicts = append(conflicts, m)
				}
			}
			require.Len(t, conflicts, 1, "only the two different docx folders conflict: %q", got)
			assert.Contains(t, conflicts[0], filepath.Join(claude, "docx", "SKILL.md"))
		})
	}
}

// Protects: a root symlinked to another root (~/.claude/skills ->
// ~/.agents/skills) reads each skill once, with no warning at all.
func TestRootSymlinkedToAnotherRootIsReadOnce(t *testing.T) {
	for label, fsys := range bothFS {
		t.Run(label, func(t *testing.T) {
			base := t.TempDir()
			agents, claude := filepath.Join(base, ".agents", "skills"), filepath.Join(base, ".claude", "skills")
			require.NoError(t, os.MkdirAll(agents, 0o755))
			for _, n := range []string{"a", "b", "c"} {
				require.NoError(t, os.MkdirAll(filepath.Join(agents, n), 0o755))
				body := "---\nname: " + n + "\ndescription: Does " + n + ".\n---\nBody.\n"
				require.NoError(t, os.WriteFile(filepath.Join(agents, n, "SKILL.md"), []byte(body), 0o644))
			}
			require.NoError(t, os.MkdirAll(filepath.Dir(claude), 0o755))
			require.NoError(t, os.Symlink(agents, claude))

			d := &skillfs.DirSource{FS: fsys, Source: "user", Roots: []string{agents, claude}}
			set, err := d.Skills(context.Background())
			require.NoError(t, err)
			assert.Equal(t, []string{"a", "b", "c"}, names(set.Skills))
			assert.Empty(t, messages(set.Warnings))
		})
	}
}
