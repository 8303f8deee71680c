package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
	"github.com/stretchr/testify/require"
)

// env is a work dir with tools over it. Beside the work dir lies "outside",
// holding secret.txt; inside, "outlink" is a symlink to that file and
// "outdir" one to that directory.
type env struct {
	work    string // the work dir, symlink-resolved
	outside string // a directory beside it
	tools   map[string]contract.Tool
	writes  *recorder
}

// recorder records OnWrite calls.
type recorder struct {
	mu    sync.Mutex
	paths []string
}

func (r *recorder) record(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paths = append(r.paths, p)
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.paths...)
}

// newEnv makes an env; cfg's FS and OnWrite are filled in.
func newEnv(t *testing.T, cfg tools.Config) *env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	e := &env{
		work:    filepath.Join(base, "work"),
		outside: filepath.Join(base, "outside"),
		writes:  &recorder{},
	}
	mkfile(t, filepath.Join(e.outside, "secret.txt"), "secret\n")
	require.NoError(t, os.MkdirAll(e.work, 0o755))
	symlink(t, filepath.Join(e.outside, "secret.txt"), filepath.Join(e.work, "outlink"))
	symlink(t, e.outside, filepath.Join(e.work, "outdir"))
	fsys, err := workfs.New(e.work)
	require.NoError(t, err)
	t.Cleanup(func() { fsys.Close() })
	cfg.FS = fsys
	cfg.OnWrite = e.writes.record
	// These tests are about the tools; confinement has its own tests
	// (sandbox_test.go), which ask for it.
	if cfg.Sandbox.Mode == sandbox.Default {
		cfg.Sandbox.Mode = sandbox.Off
	}
	set, err := tools.New(cfg)
	require.NoError(t, err)
	e.tools = map[string]contract.Tool{}
	for _, tool := range set.Tools() {
		e.tools[tool.Name] = tool
	}
	return e
}

// call calls tool with args (any value, marshalled; a string is sent as is)
// and fails the test on a Go error.
func (e *env) call(t *testing.T, tool string, args any) contract.ToolResult {
	t.Helper()
	res, err := e.callCtx(context.Background(), t, tool, args)
	require.NoError(t, err, "%s: Go error; want a result", tool)
	return res
}

func (e *env) callCtx(ctx context.Context, t *testing.T, tool string, args any) (contract.ToolResult, error) {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		require.NoError(t, err)
		raw = string(b)
	}
	tl, ok := e.tools[tool]
	require.True(t, ok, "no tool %q", tool)
	return tl.Call(ctx, json.RawMessage(raw))
}

// path is name inside the work dir.
func (e *env) path(name string) string { return filepath.Join(e.work, name) }

func mkfile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	require.NoError(t, os.Symlink(target, link))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

type m = map[string]any
