package sandbox

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: the seccomp program is compiled once per policy, in the
// parent, not once per command in each child: every command carries the
// program compileFilter makes for its plan, the same bytes each time; and
// the child refuses (fails closed on) a plan that carries none.
func TestFilterCompiledOncePerPolicy(t *testing.T) {
	s, err := New(Config{})
	require.NoError(t, err)
	defer s.Close()
	dir := t.TempDir()
	var firsts [][]byte
	for range 3 {
		cmd, _, err := s.Command("s", dir, "true")
		require.NoError(t, err)
		cmd.status.Close()
		cmd.statusW.Close()
		require.Len(t, cmd.Cmd.Args, 3)
		var p plan
		require.NoError(t, json.Unmarshal([]byte(cmd.Cmd.Args[2]), &p))
		want, err := compileFilter(p)
		require.NoError(t, err)
		require.NotEmpty(t, want)
		assert.Equal(t, want, p.Filter, "the plan carries the policy's compiled program")
		f, err := s.filter(p)
		require.NoError(t, err)
		firsts = append(firsts, f)
	}
	assert.Same(t, &firsts[0][0], &firsts[1][0], "compiled once, then reused")
	assert.Same(t, &firsts[0][0], &firsts[2][0], "compiled once, then reused")

	err = loadFilter(plan{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "seccomp filter: a compiled program of 0 bytes")
}
