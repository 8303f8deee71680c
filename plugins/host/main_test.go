package host

import (
	"bufio"
	"context"
	"fmt"
	"github.com/helios-agents/helios/internal/pluginprobe"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/stretchr/testify/require"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// exampleDir is the release-notes example plugin, built once by TestMain
// with its EXTENSION.md and skills/ beside the executable, as `make plugins`
// lays it out.
var exampleDir string

// helperEnv makes the test binary a plugin host for TestHostKilled: it
// launches the plugin named by the variable's value, prints its pid and
// waits to be killed.
const helperEnv = "HELIOS_TEST_PLUGIN_HOST"

func TestMain(m *testing.M) {
	if cmd := os.Getenv(helperEnv); cmd != "" {
		helperHost(cmd, os.Getenv(helperEnv+"_MODE"))
		return
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "helios-host-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	exampleDir = filepath.Join(dir, "release-notes")
	if err := buildExample(exampleDir); err != nil {
		fmt.Fprintln(os.Stderr, "building the example plugin:", err)
		return 1
	}
	return m.Run()
}

// buildExample builds plugins/examples/release-notes into dir: its test
// binary, which serves the plugin wrapped in internal/pluginprobe when a
// kernel starts it.
func buildExample(dir string) error {
	src := filepath.Join("..", "examples", "release-notes")
	build := exec.Command("go", "test", "-c", "-o", filepath.Join(dir, "release-notes"), "./"+src)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return err
	}
	return copyTree(filepath.Join(src, "EXTENSION.md"), filepath.Join(dir, "EXTENSION.md"), src, dir)
}

// copyTree copies EXTENSION.md and skills/ of src into dst.
func copyTree(docFrom, docTo, src, dst string) error {
	if err := copyFile(docFrom, docTo, 0o644); err != nil {
		return err
	}
	return filepath.Walk(filepath.Join(src, "skills"), func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return copyFile(p, filepath.Join(dst, rel), fi.Mode().Perm())
	})
}

func copyFile(from, to string, mode os.FileMode) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, mode)
}

// ownCopy gives a test its own copy of the example plugin's folder, whose
// skills it may change.
func ownCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "release-notes")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, copyTree(filepath.Join(exampleDir, "EXTENSION.md"), filepath.Join(dir, "EXTENSION.md"), exampleDir, dir))
	require.NoError(t, copyFile(filepath.Join(exampleDir, "release-notes"), filepath.Join(dir, "release-notes"), 0o755))
	return dir
}

// debugDir returns a folder for the plugin's calls.log and stall file, and
// the env entry that turns them on.
func debugDir(t *testing.T) (string, string) {
	d := t.TempDir()
	return d, "RELEASE_NOTES_DEBUG_DIR=" + d
}

// launch starts the example plugin (or the command in cfg) and closes it at
// the end of the test.
func launch(t *testing.T, cfg Config) *Capability {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "release-notes"
	}
	if cfg.Command == "" {
		cfg.Command = filepath.Join(exampleDir, "release-notes")
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	c, err := Launch(context.Background(), cfg)
	require.NoError(t, err, "Launch")
	t.Cleanup(func() { c.Close() })
	return c
}

// testLogger logs to the test's output.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// recordingLogger logs, at debug level, into rec for assertions.
func recordingLogger(rec *testkit.SyncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(rec, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// calls reads the plugin's calls.log (see internal/pluginprobe).
func calls(t *testing.T, dir, what string) []int {
	t.Helper()
	pids, err := pluginprobe.Dir(dir).Calls(what)
	require.NoError(t, err)
	return pids
}

// helperHost is the test binary acting as a kernel: it launches the plugin,
// prints "pid <n>" and waits to be killed. Mode "watch" leaves out the
// parent-death signal, so only the SDK's parent watch can end the plugin.
func helperHost(command, mode string) {
	c, err := newCapability(Config{Name: "release-notes", Command: command})
	if err == nil && mode == "watch" {
		c.procAttr = func() *syscall.SysProcAttr { return nil }
	}
	if err == nil {
		err = c.launch(context.Background())
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Printf("pid %d\n", c.Status().PID)
	select {}
}

// startHelperHost runs the test binary as a plugin host and returns it with
// its plugin's pid.
func startHelperHost(t *testing.T, mode string) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+filepath.Join(exampleDir, "release-notes"), helperEnv+"_MODE="+mode)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = tWriter{t}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != io.EOF {
		require.NoError(t, err)
	}
	var pid int
	_, err = fmt.Sscanf(line, "pid %d", &pid)
	require.NoError(t, err, "helper host said %q", line)
	go io.Copy(io.Discard, out)
	return cmd, pid
}
