//go:build unix

package tools_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: the "export NAME=VALUE" lines a hook writes to a session's
// CLAUDE_ENV_FILE reach that session's later Bash calls (quotes and $NAME
// read as the shell reads them), and no other session's; any other line is
// ignored with one warning naming the file and the line.
func TestBashSeesEnvFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(id string) string { return filepath.Join(dir, id+".sh") }
	e := newEnv(t, tools.Config{EnvFile: file, Sandbox: sandbox.Config{Deny: []string{"MODEL_KEY"}}})
	mkfile(t, file("s1"), strings.Join([]string{
		"# written by a SessionStart hook",
		"export NODE_ENV=production",
		`export GREETING="hello \"you\" \$5"`,
		`export LITERAL='$HOME stays'`,
		`export BIN_PATH="$NODE_ENV:${NODE_ENV}/bin"`,
		"",
		"NOT_EXPORTED=1",
		"export SPACED=a b",
		"export SUBST=$(id)",
		"export HELIOS_MODE=evil",
		"export MODEL_KEY=stolen",
	}, "\n"))

	var mu sync.Mutex
	var warnings []contract.Warning
	ctx := contract.WithWarnings(contract.WithSessionID(context.Background(), "s1"), func(w contract.Warning) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, w)
	})
	const show = `printf '%s|' "$NODE_ENV" "$GREETING" "$LITERAL" "$BIN_PATH" "${NOT_EXPORTED-unset}" "${SPACED-unset}" "${SUBST-unset}" "${HELIOS_MODE-unset}" "${MODEL_KEY-unset}"`
	for range 2 {
		res, err := e.callCtx(ctx, t, "Bash", m{"command": show})
		require.NoError(t, err)
		require.False(t, res.IsError, res.Content)
		assert.Equal(t, `production|hello "you" $5|$HOME stays|production:production/bin|unset|unset|unset|unset|unset|`, res.Content)
	}

	mu.Lock()
	defer mu.Unlock()
	at := map[string]string{}
	for _, w := range warnings {
		at[w.Path] = w.Message
	}
	assert.Len(t, warnings, 5, "one warning per bad line, not one per call: %v", warnings)
	assert.Contains(t, at[file("s1")+":7"], `"NOT_EXPORTED=1" is not an "export NAME=VALUE" line`)
	assert.Contains(t, at[file("s1")+":8"], "SPACED")
	assert.Contains(t, at[file("s1")+":9"], "command substitution")
	assert.Contains(t, at[file("s1")+":10"], "HELIOS_")
	assert.Contains(t, at[file("s1")+":11"], "MODEL_KEY")

	other, err := e.callCtx(contract.WithSessionID(context.Background(), "s2"), t, "Bash", m{"command": `echo "${NODE_ENV-unset}"`})
	require.NoError(t, err)
	assert.Equal(t, "unset\n", other.Content, "another session's env file")
}
