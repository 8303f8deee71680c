package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/plugins"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type testPlugin struct {
	hooks []Hook
	tools []contract.Tool
}

func (p testPlugin) Hooks() []Hook          { return p.hooks }
func (p testPlugin) Tools() []contract.Tool { return p.tools }

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func newServer(t *testing.T, dir string, p Plugin) *Server {
	t.Helper()
	s, err := New(p, Config{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ExtensionDoc), "---\nname: notes\ndescription: |\n  Takes notes,\n  carefully.\n---\nBody.\n")
	write(t, filepath.Join(dir, "skills", "jot", "SKILL.md"), "---\nname: jot\ndescription: Jot things down.\n---\nJot.\n")
	write(t, filepath.Join(dir, "skills", "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nNo description.\n")
	p := testPlugin{
		hooks: []Hook{
			ContextPrepare("", func(context.Context, PrepareIn) (string, bool, error) { return "", false, nil }),
			ToolBefore("guard", func(context.Context, ToolBeforeIn) (ToolDecision, bool, error) {
				return ToolDecision{}, false, nil
			}),
		},
		tools: []contract.Tool{{Name: "jot_down", Description: "Jot.", Call: func(context.Context, json.RawMessage) (contract.ToolResult, error) {
			return contract.ToolResult{Content: "ok"}, nil
		}}},
	}
	d, err := newServer(t, dir, p).Describe(context.Background())
	require.NoError(t, err)
	want := plugins.Description{
		Name:        "notes",
		Description: "Takes notes, carefully.",
		Mounts:      []plugins.Mount{{Point: "context:prepare"}, {Point: "tool:before", Name: "guard"}},
		Tools:       []plugins.Tool{{Name: "jot_down", Description: "Jot."}},
		Skills: []plugins.Skill{{
			Name: "jot", Description: "Jot things down.",
			BaseDir: filepath.Join(dir, "skills", "jot"), File: filepath.Join(dir, "skills", "jot", "SKILL.md"),
		}},
	}
	assert.Empty(t, cmp.Diff(want, d, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Warnings" }, cmp.Ignore())))
	// The skill without a description is skipped with a warning, by the
	// kernel's own reader.
	if assert.NotEmpty(t, d.Warnings, "warnings, want one about nodesc") {
		assert.Contains(t, d.Warnings[0].Path, "nodesc", "warnings, want one about nodesc")
	}
}

func TestNewErrors(t *testing.T) {
	noop := func(context.Context, any) (any, bool, error) { return nil, false, nil }
	t.Run("no EXTENSION.md: named after the folder", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bare-plugin")
		os.Mkdir(dir, 0o755)
		d, err := newServer(t, dir, testPlugin{}).Describe(context.Background())
		assert.NoError(t, err, "Describe = %+v", d)
		assert.Equal(t, "bare-plugin", d.Name, "Describe = %+v", d)
		assert.Empty(t, d.Description, "Describe = %+v", d)
	})
	for _, tt := range []struct {
		name, doc string
		p         Plugin
		want      string
	}{
		{"unclosed frontmatter", "---\nname: x\n", testPlugin{}, "EXTENSION.md"},
		{"two hooks, one name", "", testPlugin{hooks: []Hook{{Point: "turn:end", Handle: noop}, {Point: "turn:end", Handle: noop}}}, "two hooks"},
		{"hook without handler", "", testPlugin{hooks: []Hook{{Point: "turn:end"}}}, "needs a point and a handler"},
		{"tool without Call", "", testPlugin{tools: []contract.Tool{{Name: "t"}}}, "needs a name and a Call"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.doc != "" {
				write(t, filepath.Join(dir, ExtensionDoc), tt.doc)
			}
			s, err := New(tt.p, Config{Dir: dir})
			if err == nil {
				s.Close()
			}
			require.Error(t, err, "New succeeded")
			assert.Contains(t, err.Error(), tt.want, "err = %v, want it to say %q", err, tt.want)
		})
	}
}

// Pass is the explicit handled=false; a decision comes back as the point's
// result; an error is the handler's; a panicking handler costs its call,
// not the plugin; a payload the handler cannot take is an error naming the
// point.
func TestHandle(t *testing.T) {
	p := testPlugin{hooks: []Hook{
		ToolBefore("guard", func(_ context.Context, in ToolBeforeIn) (ToolDecision, bool, error) {
			switch in.Call.Name {
			case "Bash":
				return ToolDecision{Deny: true, Reason: "no"}, true, nil
			case "Boom":
				panic("boom")
			case "Err":
				return ToolDecision{}, false, errors.New("cannot decide")
			}
			return ToolDecision{Deny: true}, false, nil // not handled: ignored
		}),
	}}
	s := newServer(t, t.TempDir(), p)
	call := func(name string) (plugins.HookResult, error) {
		return s.Handle(context.Background(), "tool:before", "guard", ToolBeforeIn{Call: ToolCall{Name: name}})
	}
	r, err := call("Read")
	assert.NoError(t, err, "pass = %+v", r)
	assert.Equal(t, plugins.HookResult{}, r, "pass")
	r, err = call("Bash")
	assert.NoError(t, err, "decision = %+v", r)
	assert.Equal(t, plugins.HookResult{Handled: true, Value: ToolDecision{Deny: true, Reason: "no"}}, r, "decision")
	_, err = call("Boom")
	assert.ErrorContains(t, err, "hook tool:before panicked: boom", "panic")
	_, err = call("Err")
	if assert.Error(t, err) {
		assert.Equal(t, "cannot decide", err.Error())
	}
	_, err = s.Handle(context.Background(), "tool:before", "other", ToolBeforeIn{})
	assert.ErrorIs(t, err, ErrUnknown, "unknown mount")
	_, err = s.Handle(context.Background(), "tool:before", "guard", PrepareIn{})
	assert.ErrorContains(t, err, "decode tool:before payload: got hookdata.PrepareIn, want hookdata.ToolBeforeIn", "another point's payload")
}

// On a custom point the payload is the JSON the kernel sent: On decodes it
// into the handler's type (an error names the point), and a handler of
// json.RawMessage gets it as it is.
func TestOnCustomPointDecodesJSON(t *testing.T) {
	type ping struct {
		N int `json:"n"`
	}
	p := testPlugin{hooks: []Hook{
		On("custom:ping", "", func(_ context.Context, in ping) (ping, bool, error) { return ping{N: in.N + 1}, true, nil }),
		On("custom:raw", "", func(_ context.Context, in json.RawMessage) (string, bool, error) { return string(in), true, nil }),
	}}
	s := newServer(t, t.TempDir(), p)
	ctx := context.Background()
	r, err := s.Handle(ctx, "custom:ping", "", json.RawMessage(`{"n":41}`))
	require.NoError(t, err)
	assert.Equal(t, plugins.HookResult{Handled: true, Value: ping{N: 42}}, r)
	_, err = s.Handle(ctx, "custom:ping", "", json.RawMessage(`[1]`))
	assert.ErrorContains(t, err, "decode custom:ping payload: json: cannot unmarshal array")
	r, err = s.Handle(ctx, "custom:raw", "", json.RawMessage(`[1]`))
	require.NoError(t, err)
	assert.Equal(t, plugins.HookResult{Handled: true, Value: "[1]"}, r)
}

// WatchSkills acknowledges first, then reports a change of the folder; a
// load always reads the file as it is now.
func TestWatchAndLoad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "skills", "jot", "SKILL.md")
	write(t, file, "---\nname: jot\ndescription: Jot things down.\n---\nFirst.\n")
	s := newServer(t, dir, testPlugin{})
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	changed := make(chan struct{}, 8)
	done := make(chan error, 1)
	go func() { done <- s.WatchSkills(ctx, func() { n.Add(1); changed <- struct{}{} }) }()
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no acknowledgement")
	}
	c, err := s.LoadSkill(ctx, "jot")
	require.NoError(t, err, "load = %+v", c)
	require.Equal(t, "jot", c.Name, "load = %+v", c)
	require.Contains(t, c.Body, "First.", "load = %+v", c)
	write(t, file, "---\nname: jot\ndescription: Jot things down.\n---\nSecond.\n")
	c, err = s.LoadSkill(ctx, "jot")
	assert.NoError(t, err, "load after edit = %+v", c)
	assert.Contains(t, c.Body, "Second.", "load after edit = %+v", c)
	write(t, filepath.Join(dir, "skills", "memo", "SKILL.md"), "---\nname: memo\ndescription: Memos.\n---\nM.\n")
	// The edit above may be reported first: wait for the report after which
	// Describe lists the new skill.
	for {
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			d, _ := s.Describe(ctx)
			t.Fatalf("no change reported that shows the new skill; skills: %+v", d.Skills)
		}
		if d, _ := s.Describe(ctx); len(d.Skills) == 2 {
			break
		}
	}
	_, err = s.LoadSkill(ctx, "nope")
	assert.ErrorIs(t, err, ErrUnknown, "unknown skill")
	cancel()
	assert.NoError(t, (<-done), "WatchSkills after cancel")
}

// The plugin exits once its parent is gone; a stop ends the watch quietly.
func TestWatchParent(t *testing.T) {
	var ppid atomic.Int32
	ppid.Store(42)
	died := make(chan struct{})
	go watchParent(42, time.Millisecond, func() int { return int(ppid.Load()) }, nil, func() { close(died) })
	select {
	case <-died:
		t.Fatal("died with the parent alive")
	case <-time.After(20 * time.Millisecond):
	}
	ppid.Store(1)
	select {
	case <-died:
	case <-time.After(time.Second):
		t.Fatal("parent gone, plugin kept running")
	}

	stop := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		watchParent(42, time.Millisecond, func() int { return 42 }, stop, func() { t.Error("died after stop") })
		close(ended)
	}()
	close(stop)
	<-ended
	watchParent(1, time.Millisecond, func() int { t.Error("init is watched"); return 0 }, nil, nil)
}

// The logger writes the JSON records go-plugin hosts read.
func TestLoggerFormat(t *testing.T) {
	var buf bytes.Buffer
	newLogger(&buf).Warn("careful", "n", 3)
	var m map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &m))
	assert.Equal(t, "warn", m["@level"], "record = %v", m)
	assert.Equal(t, "careful", m["@message"], "record = %v", m)
	assert.Equal(t, 3.0, m["n"], "record = %v", m)
	_, err := time.Parse("2006-01-02T15:04:05.000000Z07:00", m["@timestamp"].(string))
	assert.NoError(t, err, "timestamp")
}

// EXTENSION.md is read only up to the end of its frontmatter, within the
// default limit: a frontmatter that never closes is an error naming it.
func TestExtensionDocBounded(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "EXTENSION.md"), []byte("---\nname: big\ndescription: "+strings.Repeat("x", 70<<10)+"\n"), 0o644))
	_, err := New(struct{}{}, Config{Dir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "skills.maxFrontmatter")
}
