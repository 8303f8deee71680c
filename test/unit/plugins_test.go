package unit_test

// Black-box tests of out-of-process capabilities (DESIGN.md "C9 Plugins")
// through the helios binary, with the real release-notes example plugin
// built once per run; the plugin with a kernel in process is tested beside
// the host (plugins/host/kernel_test.go). The helpers here serve the CLI,
// MCP and telemetry tests too.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/helios-agents/helios/internal/pluginprobe"
	"github.com/helios-agents/helios/internal/proctest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/plugins/host"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	plBuildOnce sync.Once
	plDir       string // the example plugin's folder: executable, EXTENSION.md, skills/
	plBuildErr  error
)

// plExample builds plugins/examples/release-notes once per test binary, laid
// out as `make plugins` lays it out, in the folder TestMain removes. It is the
// example's test binary, which serves the plugin wrapped in
// internal/pluginprobe when a kernel starts it.
func plExample(t *testing.T) string {
	t.Helper()
	plBuildOnce.Do(func() {
		src := filepath.Join("..", "..", "plugins", "examples", "release-notes")
		plDir = filepath.Join(binDir, "plugins", "release-notes")
		build := exec.Command("go", "test", "-c", "-o", filepath.Join(plDir, "release-notes"), "./"+src)
		if out, err := build.CombinedOutput(); err != nil {
			plBuildErr = fmt.Errorf("building the example plugin: %v\n%s", err, out)
			return
		}
		plBuildErr = exec.Command("cp", "-R", filepath.Join(src, "EXTENSION.md"), filepath.Join(src, "skills"), plDir).Run()
	})
	require.NoError(t, plBuildErr)
	return plDir
}

var plDemoOnce sync.Once

// plDemoPlugin does what `make plugins` does, for the demo config, which
// starts the example from bin/plugins/release-notes: the build replaces the
// executable atomically and files are written only when they differ, so
// concurrent test runs do not trip over each other.
func plDemoPlugin(t *testing.T) {
	t.Helper()
	var err error
	plDemoOnce.Do(func() {
		src := filepath.Join("..", "..", "plugins", "examples", "release-notes")
		dst := filepath.Join("..", "..", "bin", "plugins", "release-notes")
		build := exec.Command("go", "build", "-o", filepath.Join(dst, "release-notes"), "./"+src)
		if out, berr := build.CombinedOutput(); berr != nil {
			err = fmt.Errorf("building the example plugin: %v\n%s", berr, out)
			return
		}
		err = filepath.WalkDir(src, func(p string, d os.DirEntry, werr error) error {
			rel, _ := filepath.Rel(src, p)
			switch {
			case werr != nil:
				return werr
			case d.IsDir():
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			case rel != "EXTENSION.md" && !strings.HasPrefix(rel, "skills"+string(filepath.Separator)):
				return nil
			}
			data, rerr := os.ReadFile(p)
			if rerr != nil {
				return rerr
			}
			if old, _ := os.ReadFile(filepath.Join(dst, rel)); bytes.Equal(old, data) {
				return nil
			}
			info, _ := d.Info()
			return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
		})
	})
	require.NoError(t, err)
}

// plDebug is the plugin's probe folder (internal/pluginprobe): its
// calls.log and stall file.
type plDebug struct{ dir pluginprobe.Dir }

func newPlDebug(t *testing.T) plDebug { return plDebug{pluginprobe.Dir(t.TempDir())} }

func (d plDebug) env() string { return d.dir.Env() }

// pids returns the pid of each calls.log line "<what> <pid>".
func (d plDebug) pids(t *testing.T, what string) []int {
	t.Helper()
	pids, err := d.dir.Calls(what)
	require.NoError(t, err)
	return pids
}

func (d plDebug) stall(t *testing.T, on bool) {
	t.Helper()
	require.NoError(t, d.dir.SetStall(on))
}

// plLaunch starts the example plugin under name, closed with the test.
func plLaunch(t *testing.T, cfg host.Config) *host.Capability {
	t.Helper()
	cfg.Command = filepath.Join(plExample(t), "release-notes")
	c, err := host.Launch(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// plBuiltin is an in-process capability: "BUILTIN" on context:prepare, and
// on tool:before a guard that denies commands containing "rm -rf" and
// passes on everything else.
type plBuiltin struct{}

func (plBuiltin) Name() string { return "house-rules" }

func (plBuiltin) Mounts() []hooks.Mount {
	return []hooks.Mount{
		{Point: hooks.ContextPrepare.Name, Name: "house-prepare", Handler: func(context.Context, any) (hooks.Result, error) {
			return hooks.Handled("BUILTIN"), nil
		}},
		{Point: hooks.ToolBefore.Name, Name: "house-guard", Handler: func(_ context.Context, in any) (hooks.Result, error) {
			if strings.Contains(string(in.(kernel.ToolBeforeIn).Call.Arguments), "rm -rf") {
				return hooks.Handled(kernel.ToolDecision{Deny: true, Reason: "house rules: no rm -rf"}), nil
			}
			return hooks.Pass, nil
		}},
	}
}

// The plugin's skills are listed with source capability:<name> and load
// with the plugin's base dir, where the skill's script really is.
func TestPluginSkillsListedAndLoadable(t *testing.T) {
	dir := plExample(t)
	home, work := t.TempDir(), t.TempDir()
	cfg := plConfig(t, work, `{"name": "release-notes", "command": %q}`, filepath.Join(dir, "release-notes"))

	r := helios(t, home, work, "--config", cfg, "skills", "list", "--json")
	require.Zero(t, r.code, "skills list: exit %d\n%s", r.code, r.stderr)
	var list struct {
		Complete bool
		Skills   []struct{ Name, Source, BaseDir string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	base := filepath.Join(dir, "skills", "release-notes")
	want := []struct{ Name, Source, BaseDir string }{{"release-notes", "capability:release-notes", base}}
	assert.Empty(t, cmp.Diff(want, list.Skills), "skills list (-want +got)")
	assert.True(t, list.Complete, "skills list complete")

	r = helios(t, home, work, "--config", cfg, "skills", "load", "release-notes")
	require.Zero(t, r.code, "skills load: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, "Base directory for this skill: "+base+"\n"), "skills load: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	require.Contains(t, r.stdout, "cd "+base, "skills load: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	require.Contains(t, r.stdout, "`scripts/collect.sh <repository>`", "skills load: exit %d\n%s%s", r.code, r.stdout, r.stderr)

	// Following the load text: cd to the base dir and run the script on a
	// repository with a tag.
	repo := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "first"}, {"tag", "v0.1.0"},
		{"commit", "-q", "--allow-empty", "-m", "feat: plugins"},
	} {
		git := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-C", repo}, args...)...)
		out, err := git.CombinedOutput()
		require.NoError(t, err, "git %v\n%s", args, out)
	}
	script := exec.Command("sh", "-c", "cd "+base+" && scripts/collect.sh "+repo)
	out, err := script.CombinedOutput()
	assert.NoError(t, err, "collect.sh\n%s", out)
	assert.True(t, strings.HasPrefix(string(out), "since: v0.1.0\n"), "collect.sh\n%s", out)
	assert.Contains(t, string(out), " feat: plugins", "collect.sh\n%s", out)
}

// `helios hooks describe --json` lists the plugin's handlers with origin
// plugin, and on every point no builtin comes after a plugin (the builtin
// compactor of context:compact first).
func TestPluginHooksDescribeJSON(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	cfg := plConfig(t, work, `{"name": "release-notes", "command": %q}`, filepath.Join(plExample(t), "release-notes"))
	r := helios(t, home, work, "--config", cfg, "hooks", "describe", "--json")
	require.Zero(t, r.code, "hooks describe: exit %d\n%s", r.code, r.stderr)
	var d struct{ Points []hooks.PointInfo }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d))
	var plugins []string
	for _, p := range d.Points {
		seenPlugin := false
		for _, h := range p.Handlers {
			if h.Origin == "plugin" {
				seenPlugin = true
				plugins = append(plugins, p.Name+" "+h.Name)
				continue
			}
			assert.False(t, seenPlugin, "%s: builtin %q after a plugin: %+v", p.Name, h.Name, p.Handlers)
		}
		if p.Name == "context:compact" && assert.NotEmpty(t, p.Handlers, "context:compact has no handler") {
			assert.Equal(t, "builtin", p.Handlers[0].Origin, "context:compact does not start with the builtin compactor: %+v", p.Handlers)
		}
	}
	assert.Empty(t, cmp.Diff([]string{"context:prepare release-notes", "tool:before release-notes/guard-tags"}, plugins), "plugin handlers (-want +got)")
}

// Protects: M40 (checksum not verified). A wrong sha256 refuses the plugin
// before it runs, with an error naming it and both sums; `plugins check`
// says so in its line and exits 1; the right sum passes.
func TestPluginChecksum(t *testing.T) {
	bin := filepath.Join(plExample(t), "release-notes")
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	right, wrong := hex.EncodeToString(sum[:]), strings.Repeat("0f", 32)
	home, work := t.TempDir(), t.TempDir()
	dbg := newPlDebug(t)
	entry := `{"name": "notes", "command": %q, "sha256": %q, "env": {"RELEASE_NOTES_DEBUG_DIR": %q}}`

	bad := plConfig(t, work, entry, bin, wrong, dbg.dir)
	r := helios(t, home, work, "--config", bad, "skills", "list")
	assert.Equal(t, 1, r.code, "skills list with a wrong sha256: exit")
	for _, part := range []string{`plugin "notes"`, "checksum mismatch", right, wrong} {
		assert.Contains(t, r.stderr, part, "error does not say %s:\n%s", part, r.stderr)
	}
	r = helios(t, home, work, "--config", bad, "plugins", "check")
	assert.Equal(t, 1, r.code, "plugins check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "FAIL  notes: "), "plugins check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	assert.Contains(t, r.stdout, right, "plugins check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	assert.Contains(t, r.stdout, wrong, "plugins check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	pids := dbg.pids(t, "start")
	assert.Empty(t, pids, "the refused binary ran %d times", len(pids))

	good := plConfig(t, t.TempDir(), entry, bin, right, dbg.dir)
	r = helios(t, home, work, "--config", good, "plugins", "check")
	require.Zero(t, r.code, "plugins check with the right sha256: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	for _, part := range []string{"ok    notes: ", right + " (pinned, matches)", "handshake v1 with AutoMTLS", "mounts context:prepare, tool:before (guard-tags)", "skills release-notes", "tools release_notes_format", `"Drafts release notes`} {
		assert.Contains(t, r.stdout, part, "plugins check line lacks %q:\n%s", part, r.stdout)
	}
	assert.Zero(t, strings.Count(strings.TrimSpace(r.stdout), "\n"), "want one line per plugin:\n%s", r.stdout)
}

// No plugin process outlives the kernel: after Close, and after the
// kernel's process is SIGKILLed (no Close runs at all).
func TestPluginNoOrphans(t *testing.T) {
	t.Run("Close", func(t *testing.T) {
		c := plLaunch(t, host.Config{Name: "release-notes"})
		k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Plugins: []kernel.Capability{c}})
		require.NoError(t, err)
		pid := c.Status().PID
		require.True(t, proctest.Alive(pid), "plugin %d not running", pid)
		require.NoError(t, k.Close())
		assert.False(t, proctest.Alive(pid), "plugin %d still running after Kernel.Close", pid)
	})
	t.Run("host SIGKILLed", func(t *testing.T) {
		home, work := t.TempDir(), t.TempDir()
		dbg := newPlDebug(t)
		cfg := plConfig(t, work, `{"name": "release-notes", "command": %q, "env": {"RELEASE_NOTES_DEBUG_DIR": %q}}`, filepath.Join(plExample(t), "release-notes"), dbg.dir)
		cmd := exec.Command(heliosBin(), "--config", cfg, "skills", "watch", "--json")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+home)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		// The first catalog line means the kernel is up, plugin included.
		_, err = bufio.NewReader(stdout).ReadString('\n')
		require.NoError(t, err, "helios skills watch printed nothing")
		pids := dbg.pids(t, "start")
		require.Len(t, pids, 1, "plugin starts")
		require.True(t, proctest.Alive(pids[0]), "plugin starts %v", pids)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		cmd.Wait()
		proctest.Eventually(t, 3*time.Second, "the plugin of the killed kernel to exit", func() bool { return !proctest.Alive(pids[0]) })
	})
}

// plConfig writes a helios.config.json with one plugins entry (a format
// string and its arguments) and returns its path.
func plConfig(t *testing.T, dir, entry string, a ...any) string {
	t.Helper()
	path := filepath.Join(dir, "helios.config.json")
	writeFile(t, path, `{"skills": {"userRoots": []}, "plugins": [`+fmt.Sprintf(entry, a...)+`]}`)
	return path
}
