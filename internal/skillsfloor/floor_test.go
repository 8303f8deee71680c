package skillsfloor_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

// Protects: the floor the benchmarks divide by reads every SKILL.md of the
// root (a floor that skipped files would flatter every ratio), and says
// which one it could not open.
func TestFloorReadsEveryFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	require.NoError(t, skillsfloor.Generate(root, 50))
	n, err := skillsfloor.Read(root)
	require.NoError(t, err)
	assert.Equal(t, 50, n)

	require.NoError(t, os.Mkdir(filepath.Join(root, "no-skill-file"), 0o755))
	_, err = skillsfloor.Read(root)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(root, "no-skill-file", "SKILL.md"))
}
