package assembly_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/workfs"
)

// Probe: the model runs `mkdir .helios && ln -s <outside> .helios/skills`
// to redirect a later `helios skills add --project`. The state folders and
// their skills folders exist once the kernel is assembled, before any step,
// so .helios is there already, protected (a Write into it is refused) and
// its skills folder is a real folder, not a link the model chose.
func TestStateDirsExistBeforeTheModelRuns(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	cfgPath := filepath.Join(t.TempDir(), "helios.config.json")
	require.NoError(t, os.WriteFile(cfgPath, []byte(`{"workDir": "`+work+`", "skills": {"userRoots": []}}`), 0o644))
	k, err := assembly.Load(t.Context(), cfgPath, assembly.Options{})
	require.NoError(t, err)
	defer k.Close()

	for _, d := range workfs.StateDirs {
		for _, p := range []string{d, filepath.Join(d, workfs.SkillsName)} {
			fi, err := os.Lstat(filepath.Join(work, p))
			require.NoError(t, err, "%s after assembly", p)
			assert.True(t, fi.IsDir(), "%s is %v; want a real folder", p, fi.Mode())
		}
	}
	port, err := workfs.New(work)
	require.NoError(t, err)
	defer port.Close()
	assert.ErrorIs(t, port.MkdirAll(".helios", 0o755), workfs.ErrProtected)
	assert.ErrorIs(t, port.WriteFile(".helios/skills-link", []byte("x"), 0o644), workfs.ErrProtected)
}
