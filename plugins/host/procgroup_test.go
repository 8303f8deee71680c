//go:build unix

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/proctest"
)

var spawnerBuild struct {
	once sync.Once
	path string
	err  error
}

// spawner builds internal/proctest/spawner once: a plugin that starts a long sleep
// at start and at each call of its spawn tool.
func spawner(t *testing.T) string {
	t.Helper()
	spawnerBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "helios-spawner-")
		if err != nil {
			spawnerBuild.err = err
			return
		}
		spawnerBuild.path = filepath.Join(dir, "spawner")
		out, err := exec.Command("go", "build", "-o", spawnerBuild.path, "github.com/helios-agents/helios/internal/proctest/spawner").CombinedOutput()
		if err != nil {
			spawnerBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, spawnerBuild.err)
	return spawnerBuild.path
}

// launchSpawner starts the spawner with a sleep argument no other process
// has, and returns it with that sleep's command line and the pids file.
func launchSpawner(t *testing.T, cfg Config) (*Capability, []string, string) {
	t.Helper()
	dir := t.TempDir()
	arg := fmt.Sprintf("86400.%d%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
	argv := []string{"sleep", arg}
	t.Cleanup(func() {
		for _, pid := range proctest.Running(argv...) {
			syscall.Kill(pid, syscall.SIGKILL) // never leave one behind, even when the test fails
		}
	})
	cfg.Name, cfg.Command = "spawner", spawner(t)
	cfg.Env = append(cfg.Env, "SPAWNER_SLEEP="+arg, "SPAWNER_DIR="+dir)
	return launch(t, cfg), argv, filepath.Join(dir, "pids")
}

func childPids(t *testing.T, file string) []int {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	return pids
}

// Close ends the plugin's own children, the ones it started at once and
// the ones it started later: no sleep survives.
func TestCloseEndsThePluginsChildren(t *testing.T) {
	c, argv, pidsFile := launchSpawner(t, Config{})
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, tools, 1)
	_, err = tools[0].Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	children := childPids(t, pidsFile)
	require.Len(t, children, 2)
	require.ElementsMatch(t, children, proctest.Running(argv...), "both sleeps run before Close")

	require.NoError(t, c.Close())
	proctest.Eventually(t, 3*time.Second, "the plugin's sleeps to end", func() bool { return len(proctest.Running(argv...)) == 0 })
}

// A plugin that crashes takes its children with it; the restarted one's
// children end at Close.
func TestCrashEndsThePluginsChildren(t *testing.T) {
	c, argv, pidsFile := launchSpawner(t, Config{RestartBackoff: 50 * time.Millisecond})
	first := childPids(t, pidsFile)
	require.Len(t, first, 1)
	pid := c.Status().PID
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	proctest.Eventually(t, 3*time.Second, "the crashed plugin's sleep to end", func() bool { return !proctest.Alive(first[0]) })

	proctest.Eventually(t, 5*time.Second, "the plugin to restart", func() bool {
		_, err := c.Tools(context.Background())
		return err == nil && c.Status().PID != pid
	})
	second := childPids(t, pidsFile)
	require.Len(t, second, 2)
	assert.Equal(t, []int{second[1]}, proctest.Running(argv...), "only the restarted plugin's sleep runs")

	require.NoError(t, c.Close())
	proctest.Eventually(t, 3*time.Second, "the restarted plugin's sleep to end", func() bool { return len(proctest.Running(argv...)) == 0 })
}
