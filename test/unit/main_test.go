package unit_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
	"github.com/stretchr/testify/assert"
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

// The helpers of the skills tests (prefix sk); their tests of the one exit
// moved to kernel/skills/tools_test.go and kernel/skills_test.go.

// skNewKernel builds a kernel and closes it when the test ends.
func skNewKernel(t *testing.T, cfg kernel.Config) *kernel.Kernel {
	t.Helper()
	k, err := kernel.New(cfg)
	require.NoError(t, err, "kernel.New")
	t.Cleanup(func() {
		assert.NoError(t, k.Close(), "close kernel")
	})
	return k
}

// skProject is the project skills capability on workDir; the kernel closes it.
func skProject(t *testing.T, workDir string) *capskills.Capability {
	t.Helper()
	port, err := workfs.New(workDir)
	require.NoError(t, err)
	return capskills.New(port, nil)
}

func skNames(ss []skills.Skill) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func skWarningsText(ws []contract.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("  " + w.String() + "\n")
	}
	return b.String()
}

// skRequireWarning fails unless some warning is about path and its message
// holds every one of want.
func skRequireWarning(t *testing.T, ws []contract.Warning, path string, want ...string) {
	t.Helper()
	for _, w := range ws {
		if w.Path != path {
			continue
		}
		ok := true
		for _, s := range want {
			ok = ok && strings.Contains(w.Message, s)
		}
		if ok {
			return
		}
	}
	t.Errorf("no warning about %s saying %q; got:\n%s", path, want, skWarningsText(ws))
}

// skWriteRaw is os.WriteFile for raw bytes (binary files, CRLF).
func skWriteRaw(t *testing.T, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// loadText is the text the skill tool gives the model for a skill with
// that base directory and body (skills.Load of a skill whose file holds it).
func loadText(baseDir, body string) string {
	s := skills.Skill{Name: "any", BaseDir: baseDir, Load: func(context.Context) (skills.Content, error) {
		return skills.Content{Name: "any", Body: body}, nil
	}}
	text, err := skills.Load(context.Background(), s)
	if err != nil {
		panic(err) // the loader above cannot fail
	}
	return text
}

// spineInjected and spineToolResult read a scripted model's requests (the
// spine test moved to assembly/spine_test.go).

// spineInjected returns the catalog messages a request carried, in order.
func spineInjected(req modeltest.Recorded) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == model.RoleUser && strings.Contains(m.Content, "<available_skills>") {
			out = append(out, m.Content)
		}
	}
	return out
}

// spineToolResult returns the content of the tool message answering id.
func spineToolResult(t *testing.T, req modeltest.Recorded, id string) string {
	t.Helper()
	for _, m := range req.Messages {
		if m.Role == model.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("request has no tool result for %s; messages: %+v", id, req.Messages)
	return ""
}
