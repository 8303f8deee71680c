package runpin_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/helios-agents/helios/runpin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: M741 (an interpreter's script not followed). The files a
// command runs: a path program, an interpreter's script after its
// options, variables expanded, each simple command of a chain; not a
// PATH name, `python3 -m`, `node -e`.
func TestCommandFiles(t *testing.T) {
	t.Parallel()
	env := func(n string) string {
		return map[string]string{"CLAUDE_PROJECT_DIR": "/w", "X": "/opt/x"}[n]
	}
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`, []string{"/w/.claude/hooks/guard.sh"}},
		{`${CLAUDE_PROJECT_DIR}/a.sh arg`, []string{"/w/a.sh"}},
		{`bash x.sh`, []string{"/d/x.sh"}},
		{`python3 -u 'scripts/check it.py' --flag`, []string{"/d/scripts/check it.py"}},
		{`node "$X/lint.js"`, []string{"/opt/x/lint.js"}},
		{`cd "$CLAUDE_PROJECT_DIR" && A=1 ./run.sh | tee log`, []string{"/d/run.sh"}},
		{`/usr/bin/env python3 x.py`, []string{"/usr/bin/env"}},
		{`python3 -m tool`, nil},
		{`node -e 'x'`, nil},
		{`jq .tool_input`, nil},
	} {
		assert.Equal(t, tc.want, runpin.Command(tc.command, env, "/d"), tc.command)
	}
	assert.Equal(t, []string{"/d/bin/server"}, runpin.Argv([]string{"bin/server", "--stdio"}, "/d"))
	assert.Equal(t, []string{"/d/srv.py"}, runpin.Argv([]string{"python3", "srv.py"}, "/d"))
	assert.Empty(t, runpin.Argv([]string{"npx", "-y", "@modelcontextprotocol/server-github"}, "/d"))
}

// Protects: M751, M752. Record hashes only what lies under the roots; Check
// refuses a changed, a gone and an unrecorded file, naming it, and passes
// the recorded content and files outside the roots.
func TestPinsCheck(t *testing.T) {
	t.Parallel()
	work, outside := t.TempDir(), t.TempDir()
	in, out, later := filepath.Join(work, "a.sh"), filepath.Join(outside, "b.sh"), filepath.Join(work, "later.sh")
	require.NoError(t, os.WriteFile(in, []byte("echo a"), 0o755))
	require.NoError(t, os.WriteFile(out, []byte("echo b"), 0o755))
	sums := runpin.Record([]string{work}, []string{in, out, later})
	require.Len(t, sums, 1)
	p := runpin.New([]string{work}, sums)
	assert.NoError(t, p.Check([]string{in, out}))
	require.NoError(t, os.WriteFile(out, []byte("echo changed"), 0o755))
	assert.NoError(t, p.Check([]string{out}), "outside the model's trees: not guarded")

	require.NoError(t, os.WriteFile(in, []byte("echo evil"), 0o755))
	err := p.Check([]string{in})
	require.ErrorIs(t, err, runpin.ErrChanged)
	assert.Contains(t, err.Error(), in)
	assert.Contains(t, err.Error(), "helios trust")

	require.NoError(t, os.WriteFile(later, []byte("echo new"), 0o755))
	err = p.Check([]string{later})
	assert.ErrorIs(t, err, runpin.ErrChanged, "planted after the trust")
	assert.ErrorContains(t, err, later+" lies where the model can write and was not there when the config was trusted")
	require.NoError(t, os.Remove(in))
	assert.ErrorIs(t, p.Check([]string{in}), os.ErrNotExist)

	var none *runpin.Pins
	assert.NoError(t, none.Check([]string{later}))
}
