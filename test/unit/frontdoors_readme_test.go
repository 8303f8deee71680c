package unit_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/provider/modeltest"
)

// fdDocs are the documents whose Go programs the tests build, by heading.
var fdDocs = map[string]string{
	"# Embedding":         "docs/embedding.md",
	"## Writing a plugin": "docs/plugins.md",
}

// fdReadmeGo returns the ```go blocks of the document fdDocs names for the
// heading, under that heading, up to the next heading of the same or a
// higher level.
func fdReadmeGo(t *testing.T, heading string) []string {
	t.Helper()
	doc := fdDocs[heading]
	require.NotEmpty(t, doc, "no document holds %q", heading)
	data, err := os.ReadFile(filepath.Join("..", "..", doc))
	require.NoError(t, err)
	level := strings.Index(heading, " ")
	var blocks []string
	var in, inBlock bool
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inBlock && line == "```":
			blocks = append(blocks, b.String())
			b.Reset()
			inBlock = false
		case inBlock:
			b.WriteString(line + "\n")
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "#"):
			if l := strings.Index(line, " "); l > 0 && l <= level {
				in = false
			}
		case in && line == "```go":
			inBlock = true
		}
	}
	require.NotEmpty(t, blocks, "no Go block under %q in %s", heading, doc)
	return blocks
}

var (
	fdReadmeOnce sync.Once
	fdReadmeBins map[string]string
	fdReadmeErr  error
)

// fdBuildReadme builds the README's programs (heading -> its one Go block)
// once, as package main each, in one fresh module that requires this
// checkout, and returns the executables by heading.
func fdBuildReadme(t *testing.T) map[string]string {
	t.Helper()
	srcs := map[string]string{}
	for _, h := range []string{"# Embedding", "## Writing a plugin"} {
		blocks := fdReadmeGo(t, h)
		require.Len(t, blocks, 1, "Go blocks under %q", h)
		srcs[h] = blocks[0]
	}
	srcs[fdNoMain] = fdWithoutMain(t, srcs["# Embedding"])
	checkout := fdCheckout(t)
	fdReadmeOnce.Do(func() {
		dir, err := os.MkdirTemp(binDir, "readme-")
		if err != nil {
			fdReadmeErr = err
			return
		}
		goVersion := strings.TrimPrefix(runtime.Version(), "go")
		files := map[string]string{"go.mod": "module readme\n\ngo " + goVersion + "\n\n" +
			"require github.com/helios-agents/helios v0.0.0-00010101000000-000000000000\n\n" +
			"replace github.com/helios-agents/helios => " + checkout + "\n"}
		fdReadmeBins = map[string]string{}
		for i, h := range []string{"# Embedding", "## Writing a plugin", fdNoMain} {
			name := fmt.Sprintf("program%d", i)
			files[filepath.Join(name, "main.go")] = srcs[h]
			fdReadmeBins[h] = filepath.Join(dir, "bin", name)
		}
		for f, content := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
				fdReadmeErr = err
				return
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
				fdReadmeErr = err
				return
			}
		}
		for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", filepath.Join(dir, "bin") + string(filepath.Separator), "./..."}} {
			cmd := exec.Command("go", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				fdReadmeErr = fmt.Errorf("go %v: %w\n%s", args, err, out)
				return
			}
		}
	})
	require.NoError(t, fdReadmeErr)
	return fdReadmeBins
}

// fdNoMain names the embedding program with its sandbox.Main() line (and
// the import it needs) taken out: the program of an embedder who forgot it.
const fdNoMain = "# Embedding without sandbox.Main"

// fdWithoutMain is src without its sandbox.Main() line and the sandbox
// import.
func fdWithoutMain(t *testing.T, src string) string {
	t.Helper()
	var b strings.Builder
	removed := 0
	for l := range strings.Lines(src) {
		if strings.Contains(l, "sandbox.Main()") || strings.TrimSpace(l) == `"github.com/helios-agents/helios/sandbox"` {
			removed++
			continue
		}
		b.WriteString(l)
	}
	require.Equal(t, 2, removed, "the program calls sandbox.Main() and imports its package")
	return b.String()
}

// Protects: an embedding program that forgot sandbox.Main() fails at
// assembly.Load with an error saying what to add, before any session, not
// at the model's first command.
func TestReadmeEmbeddingProgramWithoutSandboxMain(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the default sandbox mode confines only on Linux")
	}
	bin := fdBuildReadme(t)[fdNoMain]
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "helios.config.json"), `{"skills": {"userRoots": []}, "sessions": {"dir": "sessions"},
		"model": {"baseURL": "http://127.0.0.1:9/v1", "name": "never-asked", "apiKeyEnv": ""}}`)
	cmd := exec.Command(bin)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	assert.Contains(t, string(out), "add sandbox.Main() (package github.com/helios-agents/helios/sandbox) as the first statement of main")
	assert.NotContains(t, string(out), "Not done", "no session ran")

	writeFile(t, filepath.Join(work, "helios.config.json"), `{"tools": {"sandbox": {"mode": "off"}}, "skills": {"userRoots": []},
		"sessions": {"dir": "sessions"}, "model": {"baseURL": "http://127.0.0.1:9/v1", "name": "never-asked", "apiKeyEnv": ""}}`)
	cmd = exec.Command(bin)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, _ = cmd.CombinedOutput()
	assert.NotContains(t, string(out), "sandbox.Main()", "with the sandbox off, no entry point is needed")
}

// Protects: the README's embedding program is complete, at most 20 lines of
// code in main, and builds and runs as printed: against a scripted model, its
// typed guard denies the force push the model asks for.
func TestReadmeEmbeddingProgramRuns(t *testing.T) {
	t.Parallel()
	blocks := fdReadmeGo(t, "# Embedding")
	require.Len(t, blocks, 1)
	src := blocks[0]
	_, body, ok := strings.Cut(src, "func main() {\n")
	require.True(t, ok, "the program has a main")
	lines := 0
	for l := range strings.Lines(body) {
		if strings.TrimSpace(l) != "" {
			lines++
		}
	}
	assert.LessOrEqual(t, lines, 20, "lines of code in main")
	example, err := os.ReadFile(filepath.Join("..", "..", "assembly", "example_test.go"))
	require.NoError(t, err)
	for l := range strings.Lines(strings.TrimSuffix(body, "}\n")) {
		l = strings.ReplaceAll(strings.TrimSpace(l), `"helios.config.json"`, "config")
		assert.Contains(t, string(example), l, "ExampleLoad runs the README's program")
	}

	bin := fdBuildReadme(t)["# Embedding"]
	m := modeltest.NewServer(t,
		modeltest.Call("Bash", `{"command":"git push --force origin main"}`),
		func(req modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Text: "Not done: " + req.Last().Content}
		},
	)
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "helios.config.json"), `{"skills": {"userRoots": []}, "sessions": {"dir": "sessions"},
		"model": {"baseURL": `+asmQuote(m.URL())+`, "name": "scripted", "apiKeyEnv": ""}}`)
	cmd := exec.Command(bin)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "Not done: tool call Bash denied: force pushes are not allowed here <nil>\n", string(out))
}

// Protects: the README's plugin is the copyable example, verbatim, and it
// builds in a module of its own and starts as a plugin.
func TestReadmePluginBuildsAndStarts(t *testing.T) {
	t.Parallel()
	blocks := fdReadmeGo(t, "## Writing a plugin")
	require.Len(t, blocks, 1)
	example, err := os.ReadFile(filepath.Join("..", "..", "plugins", "examples", "no-force-push", "main.go"))
	require.NoError(t, err)
	assert.Equal(t, string(example), blocks[0], "docs/plugins.md prints plugins/examples/no-force-push/main.go")

	bin := fdBuildReadme(t)["## Writing a plugin"]
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "helios.config.json"), `{"plugins": [{"name": "guard", "command": `+asmQuote(bin)+`}]}`)
	r := helios(t, t.TempDir(), work, "--config", filepath.Join(work, "helios.config.json"), "plugins", "check", "--json")
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	var res struct {
		Plugins []struct {
			OK     bool
			Mounts []struct{ Point, Name string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	require.Len(t, res.Plugins, 1)
	assert.True(t, res.Plugins[0].OK)
	assert.Equal(t, []struct{ Point, Name string }{{"tool:before", "no-force-push"}}, res.Plugins[0].Mounts)
}
