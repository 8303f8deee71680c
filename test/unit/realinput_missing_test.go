package unit_test

// Tests the suite lacked (issue 22): each protects a rule whose mutation
// no test noticed before.

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/helios-agents/helios/assembly"
	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/internal/proctest"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/watch"
	"github.com/helios-agents/helios/workfs"
)

// C2/C4: hidden entries are never skills, also when a change event (the
// OS watcher's, or a first-party write) names one: `.draft/SKILL.md`
// created while watching never reaches the next snapshot, while a visible
// skill created at the same time does.
func TestHiddenEntryNamedByAChangeNeverListed(t *testing.T) {
	ctx := context.Background()
	t.Run("a change event names it", func(t *testing.T) {
		root := t.TempDir()
		catWriteSkill(t, root, "kept", "Kept.", "")
		w := &skillfstest.Watcher{}
		src := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: "project", Roots: []string{root}, Watcher: w}
		reg := skills.NewRegistry(skills.RegistryConfig{})
		reg.Register("project", src)
		require.Equal(t, []string{"kept"}, catNames(reg.Snapshot(ctx)))

		writeFile(t, filepath.Join(root, ".draft", "SKILL.md"), skillMD("name: draft\ndescription: A draft.", ""))
		catWriteSkill(t, root, "fresh", "Fresh.", "")
		w.Fire([]string{".draft", "fresh"}, false)
		cat := reg.Snapshot(ctx)
		assert.Equal(t, []string{"fresh", "kept"}, catNames(cat))
		assert.True(t, cat.Complete)

		assert.False(t, src.PathChanged(filepath.Join(root, ".draft", "SKILL.md")), "a write inside a hidden entry cannot change the catalog")
		assert.Equal(t, []string{"fresh", "kept"}, catNames(reg.Snapshot(ctx)))
	})
	t.Run("the OS watcher sees it created", func(t *testing.T) {
		root := t.TempDir()
		catWriteSkill(t, root, "kept", "Kept.", "")
		wt, err := watch.New(watch.Config{})
		require.NoError(t, err)
		defer wt.Close()
		src := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: "user", Roots: []string{root}, Watcher: skillfs.WatcherOf(wt)}
		reg := skills.NewRegistry(skills.RegistryConfig{})
		reg.Register("user", src)
		require.Equal(t, []string{"kept"}, catNames(reg.Snapshot(ctx)))

		writeFile(t, filepath.Join(root, ".draft", "SKILL.md"), skillMD("name: draft\ndescription: A draft.", ""))
		catWriteSkill(t, root, "fresh", "Fresh.", "")
		deadline := time.Now().Add(20 * time.Second)
		var cat skills.Catalog
		for {
			cat = reg.Snapshot(ctx)
			if _, ok := cat.Lookup("fresh"); ok || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		assert.Equal(t, []string{"fresh", "kept"}, catNames(cat), "the visible skill arrived, the hidden one never does")
	})
}

// C11: a skill folder whose SKILL.md is a FIFO is a permanent problem, not
// a transient one: the first snapshot is complete, with a warning saying
// it is not a regular file, and the other skills listed (three incomplete
// reads first would hide the catalog from the model for three steps). In a
// user root (read with the OS) and a project root (through the guarded
// port) alike.
func TestFIFOSkillFileFirstSnapshotComplete(t *testing.T) {
	user, work := t.TempDir(), t.TempDir()
	project := filepath.Join(work, ".helios", "skills")
	for name, root := range map[string]string{"ok-user": user, "ok-project": project} {
		catWriteSkill(t, root, name, "Fine.", "")
		require.NoError(t, os.MkdirAll(filepath.Join(root, "piped"), 0o755))
		require.NoError(t, syscall.Mkfifo(filepath.Join(root, "piped", "SKILL.md"), 0o644))
	}
	port, err := workfs.New(work)
	require.NoError(t, err)
	k, err := kernel.New(kernel.Config{WorkDir: work, UserSkillRoots: []string{user}, Project: capskills.New(port, nil)})
	require.NoError(t, err)
	defer k.Close()

	done := make(chan skills.Catalog, 1)
	go func() { done <- k.Catalog(context.Background()) }()
	var cat skills.Catalog
	select {
	case cat = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("reading a FIFO blocked the snapshot")
	}
	assert.True(t, cat.Complete, "the first snapshot is complete: %v", cat.Warnings)
	assert.Len(t, cat.Skills, 2, "the other skills are listed: %v", catNames(cat))
	for _, root := range []string{user, project} {
		n := 0
		for _, w := range cat.Warnings {
			if strings.Contains(w.Path+w.Message, filepath.Join(root, "piped")) && strings.Contains(w.Message, "not a regular file") {
				n++
			}
		}
		assert.Equal(t, 1, n, "one warning naming %s/piped/SKILL.md as not a regular file: %v", root, cat.Warnings)
	}
}

// C14: without captureContent, a tool that fails records nothing of its
// output in any span (a Bash command printing a secret, then exit 1): the
// span says only that it failed, and how.
func TestTelemetryFailedToolRecordsNoOutput(t *testing.T) {
	const secret = "TOPSECRET-6b1f0c-OUTPUT"
	home, dir := t.TempDir(), t.TempDir()
	srv := modeltest.NewServer(t,
		modeltest.Call("Bash", `{"command":"echo `+secret+`; echo `+secret+` >&2; exit 1"}`),
		modeltest.Say("it failed"),
	)
	traces := filepath.Join(t.TempDir(), "traces.jsonl")
	cfg := filepath.Join(t.TempDir(), "helios.config.json")
	writeFile(t, cfg, `{
  "workDir": "`+dir+`",
  "skills": {"userRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "tools": {"sandbox": {"mode": "off"}},
  "sessions": {"dir": "`+filepath.Join(home, "sessions")+`"},
  "telemetry": {"captureContent": false, "traces": {"exporter": "file", "path": "`+traces+`"}}
}`)
	r := helios(t, home, dir, "--config", cfg, "run", "go")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, secret, "the tool did print it")
	data, err := os.ReadFile(traces)
	require.NoError(t, err)
	assert.NotContains(t, string(data), secret)

	var tool *tracepb.Span
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var td tracepb.TracesData
		require.NoError(t, protojson.Unmarshal(sc.Bytes(), &td))
		for _, rs := range td.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					if s.Name == "execute_tool Bash" {
						tool = s
					}
				}
			}
		}
	}
	require.NotNil(t, tool, "no execute_tool Bash span")
	assert.Equal(t, tracepb.Status_STATUS_CODE_ERROR, tool.GetStatus().GetCode())
	assert.Equal(t, "tool_error", tool.GetStatus().GetMessage())
}

// C9: a plugin that started a child of its own and then fails its start
// (a broken handshake, or no answer within the start timeout) leaves no
// process behind: not itself, not its child.
func TestPluginFailedStartLeavesNoProcess(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "spawner")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/helios-agents/helios/internal/proctest/spawner").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, mode := range []string{"handshake", "hang"} {
		t.Run(mode, func(t *testing.T) {
			arg := fmt.Sprintf("86400.%d%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
			argv := []string{"sleep", arg}
			t.Cleanup(func() {
				for _, pid := range proctest.Running(argv...) {
					syscall.Kill(pid, syscall.SIGKILL) // never leave one behind
				}
				for _, pid := range proctest.Running(bin) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			cfg := filepath.Join(t.TempDir(), "helios.config.json")
			writeFile(t, cfg, `{
  "skills": {"userRoots": []},
  "plugins": [{"name": "spawner", "command": "`+bin+`", "startTimeout": "2s",
    "env": {"SPAWNER_SLEEP": "`+arg+`", "SPAWNER_DIR": "`+t.TempDir()+`", "SPAWNER_FAIL": "`+mode+`"}}]
}`)
			k, err := assembly.Load(context.Background(), cfg, assembly.Options{WorkDir: dir})
			if err == nil {
				k.Close()
			}
			require.Error(t, err, "the plugin's start fails")
			assert.Contains(t, err.Error(), `plugin "spawner"`)
			proctest.Eventually(t, 10*time.Second, "the plugin's child to end", func() bool { return len(proctest.Running(argv...)) == 0 })
			proctest.Eventually(t, 10*time.Second, "the plugin to end", func() bool { return len(proctest.Running(bin)) == 0 })
		})
	}
}

// C11/C18: tools.passEnv may not name a HELIOS_* variable (nor the key's),
// and ParseConfig and Validate alone refuse it, naming the JSON path, so a
// program that only checks a config hears it too.
func TestPassEnvRefusedByParseAndValidate(t *testing.T) {
	_, err := assembly.ParseConfig("helios.config.json", []byte(`{"tools": {"passEnv": ["HELIOS_X"]}}`))
	require.ErrorIs(t, err, assembly.ErrConfig)
	assert.Contains(t, err.Error(), "tools.passEnv[0]")
	assert.Contains(t, err.Error(), "HELIOS_X")

	err = assembly.Config{Tools: assembly.ToolsConfig{PassEnv: []string{"PATH", "HELIOS_X"}}}.Validate()
	require.ErrorIs(t, err, assembly.ErrConfig)
	assert.Contains(t, err.Error(), "tools.passEnv[1]")

	key := "MY_KEY"
	err = assembly.Config{Model: assembly.ModelConfig{APIKeyEnv: &key}, Tools: assembly.ToolsConfig{PassEnv: []string{"MY_KEY"}}}.Validate()
	require.ErrorIs(t, err, assembly.ErrConfig)
	assert.Contains(t, err.Error(), "tools.passEnv[0]")
	assert.NoError(t, assembly.Config{Tools: assembly.ToolsConfig{PassEnv: []string{"GOPATH"}}}.Validate())
}

// growingFS serves skill files that grow after their size was taken: the
// file's Stat answers the size at Open, then the file on disk grows by
// grow bytes before anything is read.
type growingFS struct {
	skillfs.OSFS
	grow atomic.Int64
}

type staleFile struct {
	fs.File
	fi fs.FileInfo
}

func (f staleFile) Stat() (fs.FileInfo, error) { return f.fi, nil }

func (g *growingFS) Open(name string) (fs.File, error) {
	f, err := g.OSFS.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if n := g.grow.Load(); n > 0 && fi.Mode().IsRegular() {
		a, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = a.WriteString(strings.Repeat("x", int(n)))
			a.Close()
		}
		if err != nil {
			f.Close()
			return nil, err
		}
	}
	return staleFile{f, fi}, nil
}

// C11: a skill file that grows past skills.maxFileSize between its stat and
// its read is refused with the size error; it is never loaded cut at the
// limit.
func TestSkillGrowingPastLimitRefused(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	catWriteSkill(t, root, "grows", "Grows.", "small body\n")
	fsys := &growingFS{}
	const limit = 4096
	src := &skillfs.DirSource{FS: fsys, Source: "project", Roots: []string{root}, Limits: skillfs.Limits{MaxFileSize: limit}}
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", src)
	s, ok := reg.Snapshot(ctx).Lookup("grows")
	require.True(t, ok)
	c, err := s.Load(ctx)
	require.NoError(t, err, "within the limit it loads")
	require.Equal(t, "small body\n", c.Body)

	fsys.grow.Store(2 * limit)
	c, err = s.Load(ctx)
	require.ErrorIs(t, err, skillfs.ErrTooLarge, "loaded %d bytes of body", len(c.Body))
	assert.Contains(t, err.Error(), "skills.maxFileSize")
	assert.Contains(t, err.Error(), fmt.Sprint(limit))
	assert.Empty(t, c.Body)
}
