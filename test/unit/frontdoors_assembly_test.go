package unit_test

// Front doors (DESIGN.md C16, issue 16): an application adds its own
// in-process capabilities through assembly.Options, with typed mounts, and
// Build holds a Config made in Go to the rules a config file obeys.

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
)

// fdHandlers lists "name origin" for each handler of point, in dispatch order.
func fdHandlers(t *testing.T, k *kernel.Kernel, point string) []string {
	t.Helper()
	infos, err := k.DescribeHooks()
	require.NoError(t, err)
	for _, p := range infos {
		if p.Name == point {
			var out []string
			for _, h := range p.Handlers {
				out = append(out, h.Name+" "+h.Origin)
			}
			return out
		}
	}
	t.Fatalf("no point %q in DescribeHooks", point)
	return nil
}

func fdSay(text string) func(context.Context, kernel.PrepareIn) (string, bool, error) {
	return func(context.Context, kernel.PrepareIn) (string, bool, error) { return text, true, nil }
}

// Protects: Options.Capabilities are installed as builtins, after the
// kernel's own builtins and the config's extensions, in the given order.
func TestFrontDoorOptionsCapabilitiesAreBuiltins(t *testing.T) {
	dir := asmTempDir(t)
	asmExtension(t, filepath.Join(dir, "ext"), "docs-style", "Docs style.")
	path := asmWriteConfig(t, dir, `{"workDir": ".", "skills": {"userRoots": []}, "extensions": [{"dir": "ext"}]}`)
	guard := hooks.ToolBefore.Bind("no-force", func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
		deny := strings.Contains(string(in.Call.Arguments), "--force")
		return kernel.ToolDecision{Deny: deny, Reason: "no force"}, deny, nil
	})
	first := kernel.NewCapability("first", hooks.ContextPrepare.Bind("one", fdSay("ONE")), guard)
	second := kernel.NewCapability("second", hooks.ContextPrepare.Bind("two", fdSay("TWO")))
	k := asmLoad(t, path, assembly.Options{Capabilities: []kernel.Capability{first, second}})

	assert.Equal(t, []string{"environment builtin", "one builtin", "two builtin"}, fdHandlers(t, k, hooks.ContextPrepare.Name))
	assert.Equal(t, []string{"no-force builtin"}, fdHandlers(t, k, hooks.ToolBefore.Name))

	outs, err := hooks.ContextPrepare.Dispatch(context.Background(), k.Hooks(), kernel.PrepareIn{})
	require.NoError(t, err)
	require.Len(t, outs, 3)
	assert.Equal(t, []string{"ONE", "TWO"}, outs[1:])
	d, decided, err := hooks.ToolBefore.Dispatch(context.Background(), k.Hooks(),
		kernel.ToolBeforeIn{Call: hookdata.ToolCall{Name: "Bash", Arguments: []byte(`{"command":"git push --force"}`)}})
	require.NoError(t, err)
	assert.True(t, decided)
	assert.True(t, d.Deny)
	assert.Contains(t, k.Extensions(), "docs-style", "the extension is still installed")
}

// Protects: an Options capability whose name is taken is refused, naming
// both; plugins are checked by their configured name before any starts.
func TestFrontDoorOptionsCapabilityNameCollision(t *testing.T) {
	dir := asmTempDir(t)
	asmExtension(t, filepath.Join(dir, "ext"), "docs-style", "Docs style.")
	cfg := `{"workDir": ".", "skills": {"userRoots": []}, "extensions": [{"dir": "ext"}],
		"plugins": [{"name": "notes", "command": "./no-such-plugin"}]}`
	path := asmWriteConfig(t, dir, cfg)
	tests := []struct {
		name string
		caps []kernel.Capability
		want []string
	}{
		{"an extension", []kernel.Capability{kernel.NewCapability("docs-style")},
			[]string{`add Options.Capabilities[0]: named "docs-style"`, "extensions[0] (ext)"}},
		{"a plugin", []kernel.Capability{kernel.NewCapability("ok"), kernel.NewCapability("notes")},
			[]string{`add Options.Capabilities[1]: named "notes"`, "plugins[0]"}},
		{"the builtin tools", []kernel.Capability{kernel.NewCapability("builtin-tools")},
			[]string{"Options.Capabilities[0]", "the builtin tools"}},
		{"the project skills", []kernel.Capability{kernel.NewCapability("skills")},
			[]string{"Options.Capabilities[0]", "the project skills capability"}},
		{"another option", []kernel.Capability{kernel.NewCapability("x"), kernel.NewCapability("x")},
			[]string{`add Options.Capabilities[1]: named "x", like Options.Capabilities[0]`}},
		{"nil and unnamed, both reported", []kernel.Capability{nil, kernel.NewCapability("")},
			[]string{"add Options.Capabilities[0]: nil capability", "add Options.Capabilities[1]: empty name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := assembly.Load(context.Background(), path, assembly.Options{Capabilities: tt.caps})
			if err == nil {
				k.Close()
			}
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), "no-such-plugin", "no plugin is started before the names are checked")
		})
	}
}

// Protects: Build validates the Config it is given, as ParseConfig does,
// and reports every problem at once.
func TestFrontDoorBuildValidates(t *testing.T) {
	dir := asmTempDir(t)
	tests := []struct {
		name string
		cfg  assembly.Config
		want []string
	}{
		{"watch mode typo", assembly.Config{Skills: assembly.SkillsConfig{Watch: assembly.WatchConfig{Mode: "pol"}}},
			[]string{`skills.watch.mode: unknown value "pol"`}},
		{"several problems", assembly.Config{
			Skills:     assembly.SkillsConfig{Mode: "fast"},
			Sessions:   assembly.SessionsConfig{MaxSteps: -1},
			Extensions: []assembly.ExtensionConfig{{}},
			Plugins:    []assembly.PluginConfig{{Name: "p"}, {Name: "p", Command: "x", Env: map[string]string{"A=B": "c"}}},
		}, []string{"skills.mode", "sessions.maxSteps: negative", "extensions[0].dir: missing",
			"plugins[0].command: missing", `plugins[1].name: "p" is configured twice`, `plugins[1].env: "A=B"`}},
		{"negative duration", assembly.Config{Tools: assembly.ToolsConfig{BashTimeout: -1}},
			[]string{"tools.bashTimeout: negative duration"}},
		{"every key with a fixed set of values", assembly.Config{
			Model:     assembly.ModelConfig{Provider: "gpt"},
			Skills:    assembly.SkillsConfig{Mode: "fast", Watch: assembly.WatchConfig{Mode: "inotify"}},
			Telemetry: assembly.TelemetryConfig{Traces: assembly.TelemetrySignal{Exporter: "zipkin"}, Metrics: assembly.TelemetrySignal{Exporter: "prometheus"}},
			Sessions:  assembly.SessionsConfig{Store: "sqlite"},
			Tools:     assembly.ToolsConfig{Sandbox: assembly.SandboxConfig{Mode: "readonly"}},
		}, []string{
			`model.provider: unknown value "gpt" (want one of openai, anthropic)`,
			`skills.mode: unknown value "fast" (want one of catalog, tools)`,
			`skills.watch.mode: unknown value "inotify" (want one of native, poll, off)`,
			`telemetry.traces.exporter: unknown value "zipkin" (want one of none, otlp-http, otlp-grpc, stdout, file)`,
			`telemetry.metrics.exporter: unknown value "prometheus"`,
			`sessions.store: unknown value "sqlite" (want one of jsonl, postgres)`,
			`tools.sandbox.mode: unknown value "readonly" (want one of workspace-write, read-only, off)`,
		}},
		{"negative pool size", assembly.Config{Sessions: assembly.SessionsConfig{Store: assembly.StorePostgres, Postgres: assembly.PostgresConfig{MaxConns: -1}}},
			[]string{"sessions.postgres.maxConns: must not be negative (got -1)"}},
		{"negative pool size of the store not chosen", assembly.Config{Sessions: assembly.SessionsConfig{Postgres: assembly.PostgresConfig{MaxConns: -3}}},
			[]string{"sessions.postgres.maxConns: must not be negative (got -3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.ErrorIs(t, tt.cfg.Validate(), assembly.ErrConfig)
			k, err := assembly.Build(context.Background(), tt.cfg, assembly.Options{BaseDir: dir, WorkDir: dir, Watch: true})
			if err == nil {
				k.Close()
			}
			require.ErrorIs(t, err, assembly.ErrConfig)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			_, _, err = assembly.OpenSandbox(context.Background(), tt.cfg, assembly.Options{BaseDir: dir, WorkDir: dir})
			require.ErrorIs(t, err, assembly.ErrConfig, "helios sandbox check holds the config to the same rules")
		})
	}
	assert.NoError(t, assembly.Config{}.Validate(), "the zero Config is the defaults")
}

// Protects: Build resolves the config's relative paths against
// Options.BaseDir, whatever the current directory; Load against the config
// file's folder, whatever BaseDir says.
func TestFrontDoorBuildBaseDir(t *testing.T) {
	base := asmTempDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(base, "repo"), 0o755))
	asmExtension(t, filepath.Join(base, "ext"), "docs-style", "Docs style.")
	cfg := assembly.Config{WorkDir: "repo", Extensions: []assembly.ExtensionConfig{{Dir: "ext"}},
		Skills: assembly.SkillsConfig{UserRoots: &[]string{"user-skills"}}, Sessions: assembly.SessionsConfig{Dir: "sessions"}}
	asmSkill(t, filepath.Join(base, "user-skills"), "from-base")
	t.Chdir(t.TempDir()) // relative paths must not follow the current directory

	k, err := assembly.Build(t.Context(), cfg, assembly.Options{BaseDir: base})
	require.NoError(t, err)
	defer k.Close()
	assert.Equal(t, filepath.Join(base, "repo"), k.WorkDir())
	assert.Equal(t, []string{filepath.Join(base, "user-skills")}, k.UserSkillRoots())
	assert.Contains(t, k.Extensions(), "docs-style")
	_, err = k.LoadSkill(t.Context(), "from-base")
	assert.NoError(t, err)

	path := asmWriteConfig(t, base, `{"workDir": "repo"}`)
	k2, err := assembly.Load(t.Context(), path, assembly.Options{BaseDir: t.TempDir()})
	require.NoError(t, err)
	defer k2.Close()
	assert.Equal(t, filepath.Join(base, "repo"), k2.WorkDir(), "Load resolves against the file's folder")
}

// Protects: ParseConfig runs the same checks, naming the file and every
// problem.
func TestFrontDoorParseConfigValidates(t *testing.T) {
	_, err := assembly.ParseConfig("my.json", []byte(`{"sessions": {"maxSteps": -1}, "tools": {"maxOutput": -5}}`))
	require.ErrorIs(t, err, assembly.ErrConfig)
	for _, w := range []string{"my.json", "sessions.maxSteps", "tools.maxOutput"} {
		assert.Contains(t, err.Error(), w)
	}
}

// Protects: a config file is read bounded (assembly.MaxConfigSize): a file
// over it is refused with an error naming the file and the limit, and a
// config as large as the limit, or given through a pipe, still reads.
func TestFrontDoorConfigReadIsBounded(t *testing.T) {
	dir := asmTempDir(t)
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	_, err = f.Write([]byte(`{"skills": {}}`))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(assembly.MaxConfigSize+1)) // the rest is NULs; never parsed
	require.NoError(t, f.Close())
	_, _, err = assembly.ReadConfig(big)
	require.ErrorIs(t, err, assembly.ErrConfig)
	assert.Contains(t, err.Error(), big)
	assert.Contains(t, err.Error(), "over the limit of 4 MiB")

	fits := filepath.Join(dir, "fits.json")
	writeFile(t, fits, `{"skills": {}}`+strings.Repeat(" ", assembly.MaxConfigSize-len(`{"skills": {}}`)))
	_, _, err = assembly.ReadConfig(fits)
	assert.NoError(t, err, "a config of exactly the limit is read")

	fifo := filepath.Join(dir, "pipe.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.WriteString(`{"sessions": {"maxSteps": 7}}`)
			w.Close()
		}
	}()
	cfg, _, err := assembly.ReadConfig(fifo)
	require.NoError(t, err)
	assert.Equal(t, 7, cfg.Sessions.MaxSteps)

	// A pipe that would give twice the limit: the reader stops just past
	// the limit, and the writer's next writes fail (no reader).
	endless := filepath.Join(dir, "endless.json")
	require.NoError(t, syscall.Mkfifo(endless, 0o600))
	written := make(chan int, 1)
	go func() {
		w, err := os.OpenFile(endless, os.O_WRONLY, 0)
		if err != nil {
			written <- -1
			return
		}
		defer w.Close()
		chunk, n := make([]byte, 64<<10), 0
		for n < 2*assembly.MaxConfigSize {
			m, err := w.Write(chunk)
			n += m
			if err != nil {
				break
			}
		}
		written <- n
	}()
	_, _, err = assembly.ReadConfig(endless)
	require.ErrorIs(t, err, assembly.ErrConfig)
	n := <-written
	assert.Less(t, n, assembly.MaxConfigSize+1<<20, "the reader took %d bytes of a pipe; the limit is %d", n, assembly.MaxConfigSize)
}

// Protects: failures of the system keep their cause (errors.Is reaches the
// errno) and are never labelled as config errors.
func TestFrontDoorOSErrorsAreNotConfigErrors(t *testing.T) {
	dir := asmTempDir(t)
	_, _, err := assembly.ReadConfig(filepath.Join(dir, "missing.json"))
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.False(t, errors.Is(err, assembly.ErrConfig), "a missing file is not an invalid config: %v", err)

	_, err = assembly.Build(context.Background(), assembly.Config{}, assembly.Options{BaseDir: dir, WorkDir: filepath.Join(dir, "gone")})
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.False(t, errors.Is(err, assembly.ErrConfig), "a missing work dir is not an invalid config: %v", err)

	t.Setenv("HOME", "")
	_, err = assembly.Build(context.Background(), assembly.Config{Sessions: assembly.SessionsConfig{Dir: "~/sessions"}},
		assembly.Options{BaseDir: dir, WorkDir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sessions.dir")
	assert.False(t, errors.Is(err, assembly.ErrConfig), "no home directory is not an invalid config: %v", err)
}

// Protects: each typed point binds its handlers to its own point.
func TestFrontDoorTypedBindPoints(t *testing.T) {
	ctx := context.Background()
	tests := []struct{ got, want string }{
		{hooks.SessionStart.Bind("h", func(context.Context, kernel.SessionStartIn) (string, bool, error) { return "", false, nil }).Point, "session:start"},
		{hooks.ContextPrepare.Bind("h", fdSay("x")).Point, "context:prepare"},
		{hooks.ContextCompact.Bind("h", func(context.Context, kernel.CompactIn) (kernel.Compaction, bool, error) {
			return kernel.Compaction{}, false, nil
		}).Point, "context:compact"},
		{hooks.ToolBefore.Bind("h", func(context.Context, kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
			return kernel.ToolDecision{}, false, nil
		}).Point, "tool:before"},
		{hooks.TurnEnd.Bind("h", func(context.Context, kernel.TurnEndIn) (kernel.TurnDecision, bool, error) {
			return kernel.TurnDecision{}, false, nil
		}).Point, "turn:end"},
		{hooks.PromptSubmit.Bind("h", func(context.Context, kernel.PromptSubmitIn) (kernel.PromptDecision, bool, error) {
			return kernel.PromptDecision{}, false, nil
		}).Point, "prompt:submit"},
		{hooks.ToolAfter.Bind("h", func(context.Context, kernel.ToolAfterIn) (kernel.ToolFeedback, bool, error) {
			return kernel.ToolFeedback{}, false, nil
		}).Point, "tool:after"},
		{hooks.CompactBefore.Bind("h", func(context.Context, kernel.CompactBeforeIn) error { return nil }).Point, "compact:before"},
		{hooks.SessionEnd.Bind("h", func(context.Context, kernel.SessionEndIn) error { return nil }).Point, "session:end"},
	}
	require.Len(t, tests, len(hooks.StandardPoints()), "every standard point has a typed Bind")
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.got)
	}

	// Behaviour: a bound turn:end handler decides the turn, in a kernel.
	r := hooks.New(hooks.Config{})
	require.NoError(t, r.Mount(hooks.TurnEnd.Bind("stop", func(_ context.Context, in kernel.TurnEndIn) (kernel.TurnDecision, bool, error) {
		return kernel.TurnDecision{End: in.Step >= 2}, true, nil
	})))
	d, handled, err := hooks.TurnEnd.Dispatch(ctx, r, kernel.TurnEndIn{Step: 2})
	require.NoError(t, err)
	assert.True(t, handled)
	assert.True(t, d.End)
}
