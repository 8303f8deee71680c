package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

const notePrefix = "[sandbox: commands run confined (workspace-write, network off"

// confinedSet is a tool set whose Bash runs confined in a fresh work dir.
func confinedSet(t *testing.T, cfg sandbox.Config) (*tools.Set, contract.Tool) {
	t.Helper()
	fsys, err := workfs.New(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { fsys.Close() })
	set, err := tools.New(tools.Config{FS: fsys, Sandbox: cfg})
	require.NoError(t, err)
	t.Cleanup(func() { set.Close() })
	return set, set.Tools()[0]
}

func bashIn(t *testing.T, bash contract.Tool, session, command string) contract.ToolResult {
	t.Helper()
	args, err := json.Marshal(map[string]string{"command": command})
	require.NoError(t, err)
	res, err := bash.Call(contract.WithSessionID(context.Background(), session), args)
	require.NoError(t, err)
	return res
}

// Protects: each session has its own TMPDIR, removed when the session ends
// (and by Close); the sandbox's line comes with each session's first
// command only, after the output and before the exit status, which stays
// the final line.
func TestBashConfinedSessions(t *testing.T) {
	set, bash := confinedSet(t, sandbox.Config{Mode: sandbox.WorkspaceWrite})

	first := bashIn(t, bash, "one", "true")
	assert.False(t, first.IsError, first.Content)
	assert.True(t, strings.HasPrefix(first.Content, "(no output)\n"+notePrefix), first.Content)

	again := bashIn(t, bash, "one", `echo "$TMPDIR"`)
	assert.NotContains(t, again.Content, "[sandbox:")
	tmpOne := strings.TrimSpace(again.Content)
	assert.DirExists(t, tmpOne)

	other := bashIn(t, bash, "two", `echo "$TMPDIR"; exit 3`)
	assert.True(t, other.IsError)
	lines := strings.Split(other.Content, "\n")
	require.Len(t, lines, 3, other.Content)
	tmpTwo := lines[0]
	assert.NotEqual(t, tmpOne, tmpTwo)
	assert.True(t, strings.HasPrefix(lines[1], notePrefix), other.Content)
	assert.Equal(t, "[exit code 3]", lines[2])

	set.EndSession("one")
	assert.NoDirExists(t, tmpOne)
	assert.DirExists(t, tmpTwo)
	require.NoError(t, set.Close())
	assert.NoDirExists(t, tmpTwo)
}

// Protects: a confined command that times out is killed with every process
// it started, as an unconfined one is: the re-executed child becomes the
// shell, so the process group is the same.
func TestBashConfinedTimeoutKillsProcessGroup(t *testing.T) {
	e := newEnv(t, tools.Config{Sandbox: sandbox.Config{Mode: sandbox.WorkspaceWrite}})
	// The command's pids are its PID namespace's: find its processes by a
	// sleep duration of their own.
	nap := fmt.Sprintf("30.%06d", time.Now().UnixNano()%1e6)
	res := e.call(t, "Bash", m{"command": "sleep " + nap + " & setsid sleep " + nap + " & wait", "timeout_seconds": 1})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, notePrefix)
	assert.True(t, strings.HasSuffix(res.Content, "[timed out after 1s; the command and the processes it started were killed]"), res.Content)
	deadline := time.Now().Add(2 * time.Second)
	for {
		var alive []string
		dirs, _ := os.ReadDir("/proc")
		for _, d := range dirs {
			if b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline"); err == nil && strings.Contains(string(b), nap) {
				alive = append(alive, d.Name())
			}
		}
		if len(alive) == 0 {
			return
		}
		require.False(t, time.Now().After(deadline), "processes of the command still run: %v", alive)
		time.Sleep(20 * time.Millisecond)
	}
}

// Protects: fail closed at the tool: without Landlock the command is not
// run, and the model reads why and what to set.
func TestBashConfinedFailsClosed(t *testing.T) {
	_, bash := confinedSet(t, sandbox.Config{Probe: func() sandbox.Support { return sandbox.Support{Seccomp: true} }})
	marker := t.TempDir() + "/ran"
	res := bashIn(t, bash, "s", "touch "+marker)
	assert.True(t, res.IsError)
	assert.True(t, strings.HasPrefix(res.Content, "the command was not run: commands cannot run confined"), res.Content)
	assert.Contains(t, res.Content, `set tools.sandbox.mode to "off"`)
	_, err := os.Stat(marker)
	assert.True(t, os.IsNotExist(err), "the command ran")
}

// Protects: the Bash tool's description tells the model how commands are
// confined before it runs one, and says nothing in mode off.
func TestBashDescriptionNamesTheSandbox(t *testing.T) {
	extra := t.TempDir()
	for _, tt := range []struct {
		cfg  sandbox.Config
		want string
	}{
		{sandbox.Config{Mode: sandbox.WorkspaceWrite, Writable: []string{extra}}, "Commands run in a sandbox (workspace-write): they can read everywhere but write only in the work dir, $TMPDIR (this session's temp dir), " + extra +
			", where helios.config.json, helios-lock.json, .git, .helios and .agents (but their skills folders) stay read-only; network connections are refused, Unix sockets too."},
		{sandbox.Config{Mode: sandbox.ReadOnly, Network: true}, "Commands run in a sandbox (read-only): they can read everywhere but write only in $TMPDIR (this session's temp dir); network connections are allowed."},
		{sandbox.Config{Mode: sandbox.Off}, ""},
	} {
		_, bash := confinedSet(t, tt.cfg)
		if tt.want == "" {
			assert.NotContains(t, bash.Description, "sandbox")
			continue
		}
		assert.Contains(t, bash.Description, "\n"+tt.want)
	}
}
