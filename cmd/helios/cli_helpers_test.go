package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The helpers of the tests that run helios as a process: this test binary,
// made helios by TestMain.

// heliosCommand is this test binary run as helios (see TestMain) with
// HOME set to home.
func heliosCommand(t *testing.T, home string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), asHeliosEnv+"=1", "HOME="+home)
	return cmd
}

// writeFile creates path (and its parents) with content.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// skillMD renders a SKILL.md with the given frontmatter lines and body.
func skillMD(frontmatter, body string) string {
	return "---\n" + frontmatter + "\n---\n" + body
}

// cliResult is one run of helios.
type cliResult struct {
	stdout, stderr string
	code           int
}

// helios runs helios with HOME set to home (so user-level roots are under
// the test's control) in dir.
func helios(t *testing.T, home, dir string, args ...string) cliResult {
	t.Helper()
	cmd := heliosCommand(t, home, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err, "run helios %v", args)
	}
	return cliResult{out.String(), errb.String(), code}
}
