package host_test

// The host with a real kernel (DESIGN.md "C9 Plugins"): the example plugin
// (TestMain builds it) mounted beside an in-process capability, its band,
// its crash and its hang seen through the kernel's dispatch and catalog.
// The builtin shares the point under test with the plugin, firstWin tests
// count the losing plugin's calls (in its calls.log, written by the plugin
// process itself) and assert that no warning was emitted.

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/pluginprobe"
	"github.com/helios-agents/helios/internal/proctest"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/plugins/host"
)

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
	cfg.Command = filepath.Join(host.BuiltExample(), "release-notes")
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

// plWorld is a kernel with the builtin and the given plugins, collecting
// warnings and log records (the kernel's and the plugins' own, as the
// assembly wires them: one logger).
type plWorld struct {
	k       *kernel.Kernel
	plugins []*host.Capability
	mu      sync.Mutex
	warn    []contract.Warning
	logs    bytes.Buffer
}

func newPlWorld(t *testing.T, cfgs ...host.Config) *plWorld {
	t.Helper()
	w := &plWorld{}
	logger := slog.New(slog.NewTextHandler(plSyncWriter{w}, nil))
	var plugins []kernel.Capability
	for _, cfg := range cfgs {
		cfg.Logger = logger
		c := plLaunch(t, cfg)
		w.plugins = append(w.plugins, c)
		plugins = append(plugins, c)
	}
	k, err := kernel.New(kernel.Config{
		WorkDir:        t.TempDir(),
		UserSkillRoots: []string{},
		Capabilities:   []kernel.Capability{plBuiltin{}},
		Plugins:        plugins,
		Logger:         logger,
		OnWarning: func(wn contract.Warning) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.warn = append(w.warn, wn)
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	w.k = k
	return w
}

type plSyncWriter struct{ w *plWorld }

func (s plSyncWriter) Write(p []byte) (int, error) {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.logs.Write(p)
}

// warnings returns and forgets the warnings so far.
func (w *plWorld) warnings() []contract.Warning {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.warn
	w.warn = nil
	return out
}

func (w *plWorld) prepare(t *testing.T) []string {
	t.Helper()
	cat := w.k.Catalog(context.Background())
	in := kernel.PrepareIn{SessionID: "s", Step: 1, Complete: cat.Complete}
	for _, s := range cat.Visible() {
		in.Skills = append(in.Skills, hookdata.Skill{Name: s.Name, Description: s.Description, Source: s.Source})
	}
	out, err := hooks.ContextPrepare.Dispatch(context.Background(), w.k.Hooks(), in)
	require.NoError(t, err, "context:prepare dispatch")
	// The kernel's own builtin (the environment) always comes first; the
	// tests below are about the capabilities after it.
	require.NotEmpty(t, out, "context:prepare, want the kernel's environment first")
	require.True(t, strings.HasPrefix(out[0], "Environment:\n"), "context:prepare, want the kernel's environment first")
	return out[1:]
}

func (w *plWorld) toolBefore(t *testing.T, command string) (kernel.ToolDecision, bool) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"command": command})
	d, ok, err := hooks.ToolBefore.Dispatch(context.Background(), w.k.Hooks(), kernel.ToolBeforeIn{SessionID: "s", Call: hookdata.ToolCall{ID: "c1", Name: "Bash", Arguments: args}})
	require.NoError(t, err, "tool:before dispatch")
	return d, ok
}

// plReminder is what the example plugin adds on context:prepare while its
// skill is in the catalog.
const plReminder = "Release notes: when the user asks for release notes"

// Protects: M37 (plugin installed ahead of the builtins). The plugin's
// handlers share context:prepare and tool:before with a builtin; structurally
// (Describe) and behaviourally (concat order, and on firstWin a plugin that
// is provably never called when the builtin decides) they run after it.
func TestPluginBandAfterBuiltins(t *testing.T) {
	dbg := newPlDebug(t)
	w := newPlWorld(t, host.Config{Name: "release-notes", Env: []string{dbg.env()}})

	points, err := w.k.DescribeHooks()
	require.NoError(t, err)
	got := map[string][]hooks.HandlerInfo{}
	for _, p := range points {
		got[p.Name] = p.Handlers
	}
	want := map[string][]hooks.HandlerInfo{
		"context:prepare": {{Name: "environment", Origin: "builtin"}, {Name: "house-prepare", Origin: "builtin"}, {Name: "release-notes", Origin: "plugin"}},
		"tool:before":     {{Name: "house-guard", Origin: "builtin"}, {Name: "release-notes/guard-tags", Origin: "plugin"}},
	}
	for point, handlers := range want {
		assert.Empty(t, cmp.Diff(handlers, got[point]), "Describe %s (-want +got)", point)
	}

	t.Run("concat: builtin output first", func(t *testing.T) {
		out := w.prepare(t)
		if assert.Len(t, out, 2, "context:prepare, want BUILTIN then the plugin's reminder") {
			assert.Equal(t, "BUILTIN", out[0], "context:prepare, want BUILTIN then the plugin's reminder")
			assert.True(t, strings.HasPrefix(out[1], plReminder), "context:prepare, want BUILTIN then the plugin's reminder")
		}
		assert.Len(t, dbg.pids(t, "context:prepare"), 1, "the plugin was called")
	})
	t.Run("firstWin: the builtin decides, the plugin is never called", func(t *testing.T) {
		d, ok := w.toolBefore(t, "rm -rf build && git tag -d v1.0.0")
		assert.True(t, ok, "decision = %+v; want the builtin's", d)
		assert.True(t, d.Deny, "decision = %+v; want the builtin's", d)
		assert.Equal(t, "house rules: no rm -rf", d.Reason, "decision = %+v; want the builtin's", d)
		assert.Empty(t, dbg.pids(t, "tool:before"), "the plugin was called on tool:before after the builtin decided")
	})
	t.Run("firstWin: the builtin passes, the plugin decides", func(t *testing.T) {
		d, ok := w.toolBefore(t, "git tag -d v1.0.0")
		assert.True(t, ok, "decision = %+v; want the plugin's", d)
		assert.True(t, d.Deny, "decision = %+v; want the plugin's", d)
		assert.Contains(t, d.Reason, "release-notes refuses", "decision = %+v; want the plugin's", d)
		assert.Len(t, dbg.pids(t, "tool:before"), 1, "the plugin was called (the call count must be observable)")
	})
	assert.Empty(t, w.warnings(), "warnings (a builtin that failed would look like one that decided)")
}

// Protects: M38 (a crash takes down dispatch) and M39 (a crashed plugin's
// skills dropped). A plugin killed in the middle of a call costs that call
// an error and a warning: the handlers after it still run, the next dispatch
// works at once, the catalog keeps its skills but says it is incomplete, and
// after the restart backoff the plugin is back.
func TestPluginCrashMidCall(t *testing.T) {
	dbgA, dbgB := newPlDebug(t), newPlDebug(t)
	const backoff = 500 * time.Millisecond
	w := newPlWorld(t,
		host.Config{Name: "release-notes", Env: []string{dbgA.env()}, RestartBackoff: backoff},
		host.Config{Name: "release-notes-b", Env: []string{dbgB.env()}})
	a := w.plugins[0]

	require.Len(t, w.prepare(t), 3, "before the crash, want the builtin and both plugins")
	w.warnings()
	pid := a.Status().PID

	dbgA.stall(t, true)
	done := make(chan []string, 1)
	go func() { done <- w.prepare(t) }()
	proctest.Eventually(t, 5*time.Second, "the call to reach plugin A", func() bool { return len(dbgA.pids(t, "context:prepare")) == 2 })
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	var out []string
	select {
	case out = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("dispatch did not return after the plugin died")
	}
	if assert.Len(t, out, 2, "dispatch during the crash, want BUILTIN then plugin B's reminder") {
		assert.Equal(t, "BUILTIN", out[0], "dispatch during the crash, want BUILTIN then plugin B's reminder")
		assert.True(t, strings.HasPrefix(out[1], plReminder), "dispatch during the crash, want BUILTIN then plugin B's reminder")
	}
	ws := w.warnings()
	if assert.Len(t, ws, 1, "warnings, want one about release-notes crashing") {
		assert.Equal(t, "context:prepare", ws[0].Path, "warnings, want one about release-notes crashing")
		assert.Contains(t, ws[0].Message, `plugin handler "release-notes" failed`, "warnings, want one about release-notes crashing")
		assert.Contains(t, ws[0].Message, "crashed", "warnings, want one about release-notes crashing")
	}
	dbgA.stall(t, false)

	// At once: dispatch still works, the down plugin fails fast.
	t0 := time.Now()
	out = w.prepare(t)
	if assert.Len(t, out, 2, "next dispatch") {
		assert.Equal(t, "BUILTIN", out[0], "next dispatch")
	}
	took := time.Since(t0)
	assert.LessOrEqual(t, took, time.Second, "next dispatch took")
	ws = w.warnings()
	if assert.Len(t, ws, 1, "warnings, want one saying the plugin is down") {
		assert.Contains(t, ws[0].Message, "plugin is down", "warnings, want one saying the plugin is down")
	}
	// Its skills stay, from it (not from B, whose same-named skill would
	// take the place of a dropped one), and the catalog says incomplete.
	cat := w.k.Catalog(context.Background())
	s, ok := cat.Lookup("release-notes")
	assert.False(t, cat.Complete, "catalog while down: complete=%v, release-notes from %q (found %v); want incomplete, kept from capability:release-notes", cat.Complete, s.Source, ok)
	assert.True(t, ok, "catalog while down: complete=%v, release-notes from %q (found %v); want incomplete, kept from capability:release-notes", cat.Complete, s.Source, ok)
	assert.Equal(t, "capability:release-notes", s.Source, "catalog while down: complete=%v, release-notes from %q (found %v); want incomplete, kept from capability:release-notes", cat.Complete, s.Source, ok)
	assert.True(t, plHasWarning(cat.Warnings, "capability:release-notes", "incomplete"), "catalog warnings %v lack the plugin's", cat.Warnings)
	logs := w.logText()
	for _, want := range []string{
		`level=WARN msg="hook handler failed; continuing with the next handler" point=context:prepare handler=release-notes origin=plugin`,
		`level=WARN msg="plugin died; it is restarted on its next use" plugin=release-notes`,
	} {
		assert.Contains(t, logs, want, "the kernel's log lacks %s:\n%s", want, logs)
	}

	// After the backoff, the next use restarts it.
	time.Sleep(time.Until(t0.Add(backoff)))
	proctest.Eventually(t, 10*time.Second, "the plugin to be back", func() bool { return len(w.prepare(t)) == 3 })
	st := a.Status()
	assert.NotEqual(t, pid, st.PID, "status after restart: %+v (old pid %d)", st, pid)
	assert.NotZero(t, st.PID, "status after restart: %+v (old pid %d)", st, pid)
	assert.Equal(t, 1, st.Restarts, "status after restart: %+v (old pid %d)", st, pid)
	cat = w.k.Catalog(context.Background())
	assert.True(t, cat.Complete, "catalog still incomplete after the restart: %v", cat.Warnings)
	proctest.Eventually(t, 2*time.Second, "the killed process to be gone", func() bool { return !proctest.Alive(pid) })
}

// The plugin's description is its line in the <extensions> manifest, and
// its tool reaches the model and runs in the plugin.
func TestPluginManifestAndTools(t *testing.T) {
	w := newPlWorld(t, host.Config{Name: "release-notes"})
	assert.Contains(t, w.k.Extensions(), "\n- release-notes: Drafts release notes from the git history", "manifest lacks the plugin")
	ctx := context.Background()
	tools, warns := w.k.Tools(ctx, w.k.Catalog(ctx), w.k.CatalogBudget())
	assert.Empty(t, warns, "tool warnings")
	for _, tool := range tools {
		if tool.Name != "release_notes_format" {
			continue
		}
		res, err := tool.Call(ctx, json.RawMessage(`{"version":"v2.0.0","log":"since: v1.0.0\nabc1234 fix: a bug\n"}`))
		assert.NoError(t, err, "release_notes_format = %+v", res)
		assert.False(t, res.IsError, "release_notes_format = %+v", res)
		assert.Contains(t, res.Content, "## Fixes\n\n- a bug (abc1234)", "release_notes_format = %+v", res)
		return
	}
	t.Errorf("no release_notes_format among %d tools", len(tools))
}

// "Skills changed" travels from the plugin to the kernel's catalog: the
// registry serves the plugin's last answer from cache, so only the plugin's
// signal can make a new skill appear.
func TestPluginSkillsChangedReachTheCatalog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "release-notes")
	out, err := exec.Command("cp", "-R", host.BuiltExample(), dir).CombinedOutput()
	require.NoError(t, err, "cp: %s", out)
	c, err := host.Launch(context.Background(), host.Config{Name: "release-notes", Command: filepath.Join(dir, "release-notes")})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Plugins: []kernel.Capability{c}})
	require.NoError(t, err)
	defer k.Close()
	ctx := context.Background()
	_, ok := k.Catalog(ctx).Lookup("release-notes")
	require.True(t, ok, "the plugin's skill is not in the catalog")
	writeFile(t, filepath.Join(dir, "skills", "hotfix-notes", "SKILL.md"), "---\nname: hotfix-notes\ndescription: Notes for a hotfix release.\n---\nHotfix.\n")
	proctest.Eventually(t, 5*time.Second, "the new skill in the catalog", func() bool {
		s, ok := k.Catalog(ctx).Lookup("hotfix-notes")
		return ok && s.Source == "capability:release-notes"
	})
	text, err := k.LoadSkill(ctx, "hotfix-notes")
	assert.NoError(t, err, "load = %q", text)
	assert.True(t, strings.HasPrefix(text, "Base directory for this skill: "+filepath.Join(dir, "skills", "hotfix-notes")), "load = %q", text)
	assert.True(t, strings.HasSuffix(text, "Hotfix.\n"), "load = %q", text)
}

// A hung handler costs its call deadline, with a warning; dispatch goes on.
func TestPluginHangHitsDeadline(t *testing.T) {
	dbg := newPlDebug(t)
	const timeout = 300 * time.Millisecond
	w := newPlWorld(t, host.Config{Name: "release-notes", Env: []string{dbg.env()}, CallTimeout: timeout})
	dbg.stall(t, true)
	t0 := time.Now()
	out := w.prepare(t)
	took := time.Since(t0)
	assert.Empty(t, cmp.Diff([]string{"BUILTIN"}, out), "dispatch (-want +got)")
	assert.GreaterOrEqual(t, took, timeout, "dispatch took %v with a %v call timeout", took, timeout)
	assert.LessOrEqual(t, took, timeout+3*time.Second, "dispatch took %v with a %v call timeout", took, timeout)
	ws := w.warnings()
	if assert.Len(t, ws, 1, "warnings, want one naming the call timeout") {
		assert.Contains(t, ws[0].Message, "callTimeout", "warnings, want one naming the call timeout")
	}
}

func (w *plWorld) logText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.logs.String()
}

func plHasWarning(ws []contract.Warning, source, text string) bool {
	for _, w := range ws {
		if w.Source == source && strings.Contains(w.Message, text) {
			return true
		}
	}
	return false
}

// writeFile creates path (and its parents) with content.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}
