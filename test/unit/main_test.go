package unit_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/helios-agents/helios/kernel/sandbox"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/stretchr/testify/require"
)

// binDir holds the binaries the tests build; peakRSSBin is the small
// starter that reports a command's peak RSS (internal/proctest/peakrss).
var binDir, peakRSSBin string

// heliosBuild builds the helios binary once, for the first test that runs
// it: a run of tests that never start it (a mutant's focused tests, say)
// does not pay for linking it.
var heliosBuild = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "helios")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/helios").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building cmd/helios: %v\n%s", err, out)
	}
	return bin, nil
})

// heliosBin is the path of the helios binary built for the tests. A build
// that fails ends the test binary: no test of the CLI could mean anything.
func heliosBin() string {
	bin, err := heliosBuild()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return bin
}

func TestMain(m *testing.M) {
	sandbox.Main() // the test binary is the confined commands' entry point
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "helios-unit-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	peakRSSBin = filepath.Join(dir, "peakrss")
	build := exec.Command("go", "build", "-o", peakRSSBin, "../../internal/proctest/peakrss")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building internal/proctest/peakrss: %v\n", err)
		return 1
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
	cmd := exec.Command(heliosBin(), args...)
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

// catWriteSkill writes root/name/SKILL.md with name, description desc and
// body, and returns its path.
func catWriteSkill(t *testing.T, root, name, desc, body string) string {
	t.Helper()
	p := filepath.Join(root, name, "SKILL.md")
	writeFile(t, p, skillMD("name: "+name+"\ndescription: "+desc, body))
	return p
}

// catNames lists the catalog's skill names in order.
func catNames(c skills.Catalog) []string {
	out := []string{}
	for _, s := range c.Skills {
		out = append(out, s.Name)
	}
	return out
}

// skillMD renders a SKILL.md with the given frontmatter lines and body.
func skillMD(frontmatter, body string) string {
	return "---\n" + frontmatter + "\n---\n" + body
}
