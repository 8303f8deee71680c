//go:build unix

package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBash(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tools.Config{})
	tests := []struct {
		name    string
		command string
		want    contract.ToolResult
	}{
		{"output", "echo hi", contract.ToolResult{Content: "hi\n"}},
		{"stdout and stderr in order", "echo a; echo b >&2; echo c; echo d >&2",
			contract.ToolResult{Content: "a\nb\nc\nd\n"}},
		{"no output", "true", contract.ToolResult{Content: "(no output)"}},
		{"stdin is empty", "cat; echo after", contract.ToolResult{Content: "after\n"}},
		{"exit code", "exit 3", contract.ToolResult{Content: "[exit code 3]", IsError: true}},
		{"output then exit code", "echo oops >&2; exit 1",
			contract.ToolResult{Content: "oops\n[exit code 1]", IsError: true}},
		{"exit code on its own line", "printf partial; exit 2",
			contract.ToolResult{Content: "partial\n[exit code 2]", IsError: true}},
		{"killed by a signal", "echo before; kill -TERM $$",
			contract.ToolResult{Content: "before\n[signal: terminated]", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := e.call(t, "Bash", m{"command": tt.command})
			assert.Empty(t, cmp.Diff(tt.want, res), "Bash(%q) (-want +got)", tt.command)
		})
	}
}

func TestBashRunsInWorkDir(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tools.Config{})
	res := e.call(t, "Bash", m{"command": "pwd -P; echo made > made.txt"})
	assert.Empty(t, cmp.Diff(contract.ToolResult{Content: e.work + "\n"}, res))
	assert.Equal(t, "made\n", readFile(t, e.path("made.txt")), "made.txt; want the command's relative write in the work dir")
}

func TestBashEnv(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tools.Config{Sandbox: sandbox.Config{Mode: sandbox.Off, Env: []string{"TOOLS_TEST=42"}}})
	res := e.call(t, "Bash", m{"command": `echo "$TOOLS_TEST"; test -n "$PATH" && echo path`})
	assert.Empty(t, cmp.Diff(contract.ToolResult{Content: "42\npath\n"}, res))
}

// The command prints its process group (the shell's pid) and a background
// child's pid, then waits forever.
const hang = `echo $$; sleep 30 & echo $!; wait`

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tools.Config{})
	began := time.Now()
	res := e.call(t, "Bash", m{"command": hang, "timeout_seconds": 1})
	took := time.Since(began)
	assert.LessOrEqual(t, took, 3*time.Second, "took %v; want about 1s", took)
	want := "[timed out after 1s; the command and the processes it started were killed]"
	assert.True(t, res.IsError, "got %+v; want IsError ending %q", res, want)
	assert.True(t, strings.HasSuffix(res.Content, want), "got %+v; want IsError ending %q", res, want)
	assertGroupGone(t, res.Content)
}

func TestBashCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tools.Config{})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(500*time.Millisecond, cancel)
	began := time.Now()
	res, err := e.callCtx(ctx, t, "Bash", m{"command": hang})
	took := time.Since(began)
	require.NoError(t, err, "Go error; want a result (the call had started)")
	assert.LessOrEqual(t, took, 3*time.Second, "took %v; want about 0.5s", took)
	assert.True(t, res.IsError, "got %+v; want IsError saying it was cancelled", res)
	assert.Contains(t, res.Content, "[cancelled after", "got %+v; want IsError saying it was cancelled", res)
	assert.Contains(t, res.Content, "were killed]", "got %+v; want IsError saying it was cancelled", res)
	assertGroupGone(t, res.Content)
}

// A background process the command leaves behind is killed when it returns,
// and does not hold the call open by keeping the output pipe.
func TestBashLeavesNoBackgroundProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tools.Config{})
	began := time.Now()
	res := e.call(t, "Bash", m{"command": "echo $$; sleep 30 & echo $!"})
	took := time.Since(began)
	assert.LessOrEqual(t, took, 3*time.Second, "took %v; want the call to end with the shell", took)
	assert.False(t, res.IsError, "got %+v", res)
	assertGroupGone(t, res.Content)
}

func TestBashTimeouts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  tools.Config
		args m
		want contract.ToolResult
	}{
		{"config default", tools.Config{BashTimeout: time.Second},
			m{"command": "sleep 30"},
			contract.ToolResult{Content: "[timed out after 1s; the command and the processes it started were killed]", IsError: true}},
		{"model asks for more than the default", tools.Config{BashTimeout: time.Second},
			m{"command": "sleep 2; echo done", "timeout_seconds": 5},
			contract.ToolResult{Content: "done\n"}},
		{"model asks for more than the max", tools.Config{MaxBashTimeout: time.Second},
			m{"command": "echo started; sleep 30", "timeout_seconds": 1 << 62},
			contract.ToolResult{Content: "started\n[timed out after 1s; the command and the processes it started were killed]", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tt.cfg)
			began := time.Now()
			res := e.call(t, "Bash", tt.args)
			took := time.Since(began)
			assert.LessOrEqual(t, took, 4*time.Second, "took")
			assert.Empty(t, cmp.Diff(tt.want, res))
		})
	}
}

func TestBashOutputCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		max     int
		command string
		want    string
	}{
		{"fits", 100, "printf 0123456789", "0123456789"},
		{"exactly fits", 10, "printf 0123456789", "0123456789"},
		{"head and tail", 100, `printf HEAD; head -c 1000 /dev/zero | tr '\0' x; printf TAIL`,
			"HEAD" + strings.Repeat("x", 46) + "\n[... 908 bytes cut ...]\n" + strings.Repeat("x", 46) + "TAIL"},
		{"stdout and stderr share the cap", 10, "printf 01234 >&2; printf abc; printf 56789 >&2",
			"01234\n[... 3 bytes cut ...]\n56789"},
		// "aa" then twenty two-byte runes: 42 bytes.
		{"no rune split at the tail", 13, `printf aa; for i in $(seq 20); do printf 'é'; done`,
			"aaéé\n[... 30 bytes cut ...]\nééé"},
		{"no rune split at the head", 11, `printf aa; for i in $(seq 20); do printf 'é'; done`,
			"aaé\n[... 32 bytes cut ...]\nééé"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tools.Config{MaxOutput: tt.max})
			res := e.call(t, "Bash", m{"command": tt.command})
			assert.Empty(t, cmp.Diff(contract.ToolResult{Content: tt.want}, res))
		})
	}
}

// Output far beyond the cap streams through in bounded memory; the count
// of cut bytes stays exact.
func TestBashHugeOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tools.Config{MaxOutput: 64})
	res := e.call(t, "Bash", m{"command": "head -c 50000000 /dev/zero | tr '\\0' y; exit 4"})
	want := strings.Repeat("y", 32) + "\n[... 49999936 bytes cut ...]\n" + strings.Repeat("y", 32) + "\n[exit code 4]"
	assert.Empty(t, cmp.Diff(contract.ToolResult{Content: want, IsError: true}, res))
	assert.True(t, utf8.ValidString(res.Content), "output is not valid UTF-8")
}

func TestBashCouldNotStart(t *testing.T) {
	t.Parallel()
	// An executable that is no program: found on PATH, refused by exec.
	shell := filepath.Join(t.TempDir(), "badshell")
	require.NoError(t, os.WriteFile(shell, []byte("\x00\x01\x02\x03"), 0o755))
	e := newEnv(t, tools.Config{Shell: shell})
	res := e.call(t, "Bash", m{"command": "echo hi"})
	assert.True(t, res.IsError, "got %+v; want IsError saying it could not start", res)
	assert.Contains(t, res.Content, "could not start the command with "+shell, "got %+v; want IsError saying it could not start", res)
}

func TestReadRefusesFIFO(t *testing.T) {
	e := newEnv(t, tools.Config{})
	if err := syscall.Mkfifo(e.path("pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tool := range []string{"Read", "Edit"} {
		res := e.call(t, tool, m{"path": "pipe", "old_string": "a", "new_string": "b"})
		assert.True(t, res.IsError, "%s: got %+v; want IsError: not a regular file", tool, res)
		assert.Contains(t, res.Content, "not a regular file", "%s: got %+v; want IsError: not a regular file", tool, res)
	}
}

// assertGroupGone reads the process group id and the background pid from
// the first two lines of out and checks that no process of the group is
// left running, allowing a moment for the kernel to finish the kill.
func assertGroupGone(t *testing.T, out string) {
	t.Helper()
	lines := strings.SplitN(out, "\n", 3)
	require.GreaterOrEqual(t, len(lines), 3, "output %q lacks the two pids", out)
	pgid, err1 := strconv.Atoi(lines[0])
	pid, err2 := strconv.Atoi(lines[1])
	require.NoError(t, err1, "output %q lacks the two pids", out)
	require.NoError(t, err2, "output %q lacks the two pids", out)
	require.Greater(t, pgid, 1, "output %q lacks the two pids", out)
	require.Greater(t, pid, 1, "output %q lacks the two pids", out)
	deadline := time.Now().Add(2 * time.Second)
	for {
		alive := liveMembers(pgid)
		if len(alive) == 0 && !running(pid) {
			return
		}
		require.False(t, time.Now().After(deadline), "process group %d still has live processes %v (background pid %d running: %v)", pgid, alive, pid, running(pid))
		time.Sleep(20 * time.Millisecond)
	}
}

// running reports whether pid is a process that has not exited: a zombie
// waiting for a parent that does not reap it counts as gone.
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	state, _, ok := procStat(pid)
	return !ok || (state != 'Z' && state != 'X')
}

// liveMembers lists the running processes of group pgid, from /proc where
// there is one, else by signalling the group.
func liveMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return []int{pgid}
	}
	var live []int
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if state, pg, ok := procStat(pid); ok && pg == pgid && state != 'Z' && state != 'X' {
			live = append(live, pid)
		}
	}
	return live
}

// procStat reads a process's state and process group from /proc/pid/stat.
func procStat(pid int) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parens.
	rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgid, err = strconv.Atoi(f[2])
	return f[0][0], pgid, err == nil
}
