package unit_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/helios-agents/helios/kernel/sandbox"
	"github.com/stretchr/testify/require"
)

// heliosBin is the helios binary built for the tests; peakRSSBin the small
// starter that reports a command's peak RSS (internal/proctest/peakrss).
var heliosBin, peakRSSBin string

func TestMain(m *testing.M) {
	sandbox.Main() // the test binary is the confined commands' entry point
	if len(os.Args) > 1 && os.Args[1] == probeArg {
		os.Exit(probe(os.Args[2:])) // see confinement_test.go
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "helios-unit-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if os.Getenv(unprivilegedEnv) != "" {
		return m.Run() // re-run as another user for tests that need no CLI (confinement_test.go)
	}
	heliosBin = filepath.Join(dir, "helios")
	peakRSSBin = filepath.Join(dir, "peakrss")
	for bin, pkg := range map[string]string{heliosBin: "../../cmd/helios", peakRSSBin: "../../internal/proctest/peakrss"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", pkg, err)
			return 1
		}
	}
	return m.Run()
}

// cliResult is one run of the helios binary.
type cliResult struct {
	stdout, stderr string
	code           int
}

// helios runs the binary with HOME set to home (so user-level roots are
// under the test's control) in dir.
func helios(t *testing.T, home, dir string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(heliosBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home)
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
