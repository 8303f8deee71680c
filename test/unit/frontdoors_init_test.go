package unit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fdCheckout is the absolute path of this Helios checkout.
func fdCheckout(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return abs
}

// fdGo runs the go command in dir and fails the test with its output.
func fdGo(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %v in %s:\n%s", args, dir, out)
}

// Protects: `helios plugins init` writes a plugin module that builds, passes
// its own test and `helios plugins check` exactly as generated — from a
// helios built from source, with no flag: it requires the checkout it was
// built from (issue 22).
func TestPluginsInitBuildsTestsAndChecks(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(t.TempDir(), "house-guard")
	r := helios(t, home, t.TempDir(), "plugins", "init", "house-guard", dir)
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	for _, f := range []string{"go.mod", "go.sum", "main.go", "main_test.go", "EXTENSION.md", filepath.Join("skills", "house-guard", "SKILL.md")} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(gomod), "require github.com/helios-agents/helios ")
	assert.Contains(t, string(gomod), "replace github.com/helios-agents/helios => "+fdCheckout(t))

	fdGo(t, dir, "build", "-o", "house-guard", ".")
	fdGo(t, dir, "test", "./...")

	work := t.TempDir()
	writeFile(t, filepath.Join(work, "helios.config.json"),
		`{"plugins": [{"name": "house-guard", "command": `+asmQuote(filepath.Join(dir, "house-guard"))+`}]}`)
	r = helios(t, home, work, "--config", filepath.Join(work, "helios.config.json"), "plugins", "check", "--json")
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	var out struct {
		Plugins []struct {
			OK          bool
			OwnName     string
			Description string
			Mounts      []struct{ Point, Name string }
			Skills      []string
			Warnings    []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	require.Len(t, out.Plugins, 1)
	p := out.Plugins[0]
	assert.True(t, p.OK)
	assert.Equal(t, "house-guard", p.OwnName)
	assert.NotEmpty(t, p.Description)
	assert.Equal(t, []struct{ Point, Name string }{{"tool:before", "no-force-push"}}, p.Mounts)
	assert.Equal(t, []string{"house-guard"}, p.Skills)
	assert.Empty(t, p.Warnings)

	// The generated skill passes the strict validator too.
	r = helios(t, home, work, "skills", "validate", filepath.Join(dir, "skills", "house-guard"))
	assert.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
}

// Protects: init never overwrites, and refuses a name it cannot use, saying
// the rule.
func TestPluginsInitRefusals(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n")
	writeFile(t, filepath.Join(dir, "EXTENSION.md"), "mine\n")
	r := helios(t, home, dir, "plugins", "init", "guard", dir, "--replace", fdCheckout(t), "--no-tidy")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "would overwrite "+filepath.Join(dir, "main.go"))
	data, err := os.ReadFile(filepath.Join(dir, "main.go"))
	require.NoError(t, err)
	assert.Equal(t, "package main\n", string(data), "nothing was overwritten")

	other := t.TempDir()
	writeFile(t, filepath.Join(other, "notes.txt"), "x")
	r = helios(t, home, other, "plugins", "init", "guard", other, "--replace", fdCheckout(t), "--no-tidy")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "is not empty (it holds notes.txt)")

	for _, name := range []string{"My_Plugin", "x-", "a--b", "9lives", "ünï"} {
		r = helios(t, home, t.TempDir(), "plugins", "init", name, "--no-tidy", "--replace", fdCheckout(t))
		assert.Equal(t, 2, r.code, name)
		assert.Contains(t, r.stderr, "lowercase ASCII letters and digits, starting with a letter", name)
	}

	// --helios-version wins over the checkout, with no replace.
	pinned := filepath.Join(t.TempDir(), "guard")
	r = helios(t, home, t.TempDir(), "plugins", "init", "guard", pinned, "--no-tidy", "--helios-version", "v1.2.3")
	require.Equal(t, 0, r.code, r.stderr)
	gomod, err := os.ReadFile(filepath.Join(pinned, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(gomod), "require github.com/helios-agents/helios v1.2.3\n")
	assert.NotContains(t, string(gomod), "replace")
}
