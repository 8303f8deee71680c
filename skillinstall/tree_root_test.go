package skillinstall_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/skillinstall"
)

// Probe: the model planted `.helios/skills -> ~/.vim/pack/p/start` (or a
// symlinked .helios, or a symlinked lockfile); `helios skills add --project`
// refuses, naming the link, and writes nothing outside. A real root in the
// work tree installs as before.
func TestProjectRootThroughASymlinkIsRefused(t *testing.T) {
	r := gittest.New(t, "skills")
	r.Commit(twoSkills(""))
	tests := []struct {
		name  string
		plant func(t *testing.T, work, outside string)
		link  string // the link the error names, relative to work
	}{
		{"skills folder", func(t *testing.T, work, outside string) {
			require.NoError(t, os.Mkdir(filepath.Join(work, ".helios"), 0o755))
			require.NoError(t, os.Symlink(outside, filepath.Join(work, ".helios", "skills")))
		}, ".helios/skills"},
		{"state folder", func(t *testing.T, work, outside string) {
			require.NoError(t, os.Mkdir(filepath.Join(outside, "skills"), 0o755))
			require.NoError(t, os.Symlink(outside, filepath.Join(work, ".helios")))
		}, ".helios"},
		{"inward link", func(t *testing.T, work, _ string) {
			require.NoError(t, os.MkdirAll(filepath.Join(work, "elsewhere"), 0o755))
			require.NoError(t, os.Mkdir(filepath.Join(work, ".helios"), 0o755))
			require.NoError(t, os.Symlink("../elsewhere", filepath.Join(work, ".helios", "skills")))
		}, ".helios/skills"},
		{"lockfile", func(t *testing.T, work, outside string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "lock.json"), filepath.Join(work, skillinstall.LockFileName)))
		}, skillinstall.LockFileName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			work, outside := filepath.Join(base, "work"), filepath.Join(base, "outside")
			require.NoError(t, os.Mkdir(work, 0o755))
			require.NoError(t, os.Mkdir(outside, 0o755))
			tt.plant(t, work, outside)
			in, err := skillinstall.New(skillinstall.ProjectConfig(work))
			require.NoError(t, err)

			_, err = in.Add(context.Background(), r.URL(), skillinstall.AddOptions{})
			require.ErrorIs(t, err, skillinstall.ErrOutsideTree)
			assert.Contains(t, err.Error(), filepath.Join(work, tt.link)+" is a symlink")
			entries, err := os.ReadDir(outside)
			require.NoError(t, err)
			for _, e := range entries {
				assert.Equal(t, "skills", e.Name(), "the refused install wrote %s outside", e.Name())
			}
			assert.NoDirExists(t, filepath.Join(outside, "skills", "pdf"))
			assert.NoDirExists(t, filepath.Join(work, "elsewhere", "pdf"))
		})
	}
	t.Run("a real root installs", func(t *testing.T) {
		work, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		in, err := skillinstall.New(skillinstall.ProjectConfig(work))
		require.NoError(t, err)
		_, err = in.Add(context.Background(), r.URL(), skillinstall.AddOptions{})
		require.NoError(t, err)
		assert.FileExists(t, filepath.Join(work, ".helios", "skills", "pdf", "SKILL.md"))
	})
}
