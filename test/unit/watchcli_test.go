package unit_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `helios skills watch --json` prints the catalog, then one line per new
// complete catalog (added / removed / changed names and the digest), and
// exits cleanly on Ctrl-C.
func TestCLISkillsWatch(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	root := filepath.Join(work, ".helios", "skills")
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First.", "body"))
	writeFile(t, filepath.Join(root, "beta", "SKILL.md"), skillMD("name: beta\ndescription: Second.", "body"))

	cmd, next := startSkillsWatch(t, work, home, 10*time.Second)
	defer cmd.Process.Kill()

	first := next("the first catalog")
	require.Equal(t, "catalog", first.Event, "first line = %+v", first)
	require.True(t, first.Complete, "first line = %+v", first)
	require.Len(t, first.Skills, 2, "first line = %+v", first)
	require.NotEmpty(t, first.Digest, "first line = %+v", first)
	writeFile(t, filepath.Join(root, "gamma", "SKILL.md"), skillMD("name: gamma\ndescription: Third.", "body"))
	ev := next("gamma's arrival")
	assert.Equal(t, "change", ev.Event, "after adding gamma: %+v", ev)
	if assert.Len(t, ev.Added, 1, "after adding gamma: %+v", ev) {
		assert.Equal(t, "gamma", ev.Added[0], "after adding gamma: %+v", ev)
		assert.NotEqual(t, first.Digest, ev.Digest, "after adding gamma: %+v", ev)
	}
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First, reworded.", "body"))
	ev = next("alpha's change")
	if assert.Len(t, ev.Changed, 1, "after rewording alpha: %+v", ev) {
		assert.Equal(t, "alpha", ev.Changed[0], "after rewording alpha: %+v", ev)
	}
	require.NoError(t, os.RemoveAll(filepath.Join(root, "beta")))
	ev = next("beta's removal")
	if assert.Len(t, ev.Removed, 1, "after removing beta: %+v", ev) {
		assert.Equal(t, "beta", ev.Removed[0], "after removing beta: %+v", ev)
	}

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "watch after Ctrl-C, want exit 0")
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not exit after SIGINT")
	}
}

// watchEvent is one line of `helios skills watch --json`.
type watchEvent struct {
	Event    string   `json:"event"`
	Complete bool     `json:"complete"`
	Digest   string   `json:"digest"`
	Added    []string `json:"added"`
	Removed  []string `json:"removed"`
	Changed  []string `json:"changed"`
	Skills   []struct {
		Name string `json:"name"`
	} `json:"skills"`
}

// startSkillsWatch starts `helios skills watch --json` in work with HOME set
// to home, and returns the process and a function that reads its next line,
// failing the test when none comes within wait (what says what was awaited).
// The caller stops the process.
func startSkillsWatch(t *testing.T, work, home string, wait time.Duration) (*exec.Cmd, func(what string) watchEvent) {
	t.Helper()
	cmd := exec.Command(heliosBin(), "--work-dir", work, "skills", "watch", "--json")
	cmd.Env = append(os.Environ(), "HOME="+home)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) watchEvent {
		t.Helper()
		select {
		case l, ok := <-lines:
			require.True(t, ok, "watch exited before %s", what)
			var ev watchEvent
			require.NoError(t, json.Unmarshal([]byte(l), &ev), "line %q", l)
			return ev
		case <-time.After(wait):
			require.FailNow(t, "no line within "+wait.String(), what)
		}
		return watchEvent{}
	}
	return cmd, next
}
