//go:build unix

package unit_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/internal/proctest"
)

// Kernel.Close ends a plugin's own children: the spawner plugin leaves a
// long sleep running, and after Close no such sleep survives.
func TestKernelCloseEndsPluginProcessTree(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "spawner")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/helios-agents/helios/internal/proctest/spawner").CombinedOutput()
	require.NoError(t, err, "%s", out)
	arg := fmt.Sprintf("86400.%d%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
	argv := []string{"sleep", arg}
	t.Cleanup(func() {
		for _, pid := range proctest.Running(argv...) {
			syscall.Kill(pid, syscall.SIGKILL) // never leave one behind
		}
	})
	cfg := filepath.Join(dir, "helios.config.json")
	writeFile(t, cfg, `{
  "skills": {"userRoots": []},
  "plugins": [{"name": "spawner", "command": "spawner", "env": {"SPAWNER_SLEEP": "`+arg+`", "SPAWNER_DIR": "`+dir+`"}}]
}`)
	k, err := assembly.Load(context.Background(), cfg, assembly.Options{WorkDir: dir})
	require.NoError(t, err)
	pids, err := os.ReadFile(filepath.Join(dir, "pids"))
	require.NoError(t, err)
	child, err := strconv.Atoi(strings.TrimSpace(string(pids)))
	require.NoError(t, err)
	require.Equal(t, []int{child}, proctest.Running(argv...), "the plugin's sleep runs")

	require.NoError(t, k.Close())
	proctest.Eventually(t, 3*time.Second, "the plugin's sleep to end", func() bool { return len(proctest.Running(argv...)) == 0 })
}
