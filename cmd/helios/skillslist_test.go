package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeCounter counts the writes that reach it, as each would be a system
// call on a terminal or a pipe.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// Protects: `helios skills list` prints its table (every skill, the
// warnings after it) in a few large writes. Unbuffered, the table wrote each
// cell and each run of padding apart: 10,000 skills took a second, most of
// it in write system calls.
func TestSkillsListTableIsWrittenInFewWrites(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	const n = 300
	for i := range n {
		dir := filepath.Join(home, ".helios", "skills", fmt.Sprintf("skill-%03d", i))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		body := fmt.Sprintf("---\nname: skill-%03d\ndescription: Does thing number %d.\n---\nBody.\n", i, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644))
	}
	var out writeCounter
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "skills", "list"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), n+1, "a header and a line a skill")
	assert.True(t, strings.HasPrefix(lines[1], "skill-000 "), lines[1])
	assert.True(t, strings.HasPrefix(lines[n], "skill-299 "), lines[n])
	assert.LessOrEqual(t, out.writes, 4, "%d writes for %d bytes", out.writes, out.Len())
}
