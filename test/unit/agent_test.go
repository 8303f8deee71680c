package unit_test

// The step loop through the helios binary (DESIGN.md C8): run, sessions
// list and show, --resume. The loop's own tests are in kernel/agent_test.go;
// the ag* helpers below are shared with the other tests of this package.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: the CLI (issue 5): `helios run` without a model exits 1 at once
// saying what to set; against a scripted model it streams the answer and
// prints a line for each tool call and its outcome; the session is saved,
// listed and shown by `helios sessions`, and `--resume` continues it.
func TestAgentCLI(t *testing.T) {
	t.Run("run without a model", func(t *testing.T) {
		home, dir := t.TempDir(), t.TempDir()
		heliosBin() // built before the clock starts: linking is not the command's time
		start := time.Now()
		r := helios(t, home, dir, "run", "hello")
		assert.Equal(t, 1, r.code, "exit code %d, want 1; stderr: %s", r.code, r.stderr)
		d := time.Since(start)
		assert.LessOrEqual(t, d, 20*time.Second, "took %v; want it to fail fast", d)
		for _, want := range []string{"baseURL", "helios.config.json"} {
			assert.Contains(t, r.stderr, want, "stderr = %q; want it to mention %q", r.stderr, want)
		}
		_, err := os.Stat(filepath.Join(home, ".helios", "sessions"))
		assert.True(t, os.IsNotExist(err), "a sessions dir was created: %v", err)
	})

	t.Run("run without a key", func(t *testing.T) {
		t.Setenv(assembly.DefaultAPIKeyEnv, "")
		home, dir := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(dir, "helios.config.json"), `{"model": {"baseURL": "http://127.0.0.1:9/v1", "name": "m"}}`)
		r := helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "run", "hello")
		assert.Equal(t, 1, r.code, "exit %d, stderr %q; want 1 naming %s", r.code, r.stderr, assembly.DefaultAPIKeyEnv)
		assert.Contains(t, r.stderr, assembly.DefaultAPIKeyEnv, "exit %d, stderr %q; want 1 naming %s", r.code, r.stderr, assembly.DefaultAPIKeyEnv)
	})

	t.Run("run, list, show, resume", func(t *testing.T) {
		home, dir := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(dir, "notes.txt"), "forty-two\n")
		srv := modeltest.NewServer(t,
			modeltest.Call("Read", `{"path":"notes.txt"}`),
			modeltest.Call("Glob", `{"pattern":"*.txt"}`),
			func(modeltest.Recorded) modeltest.Reply {
				return modeltest.Reply{Text: "The notes say forty-two.", Chunked: true}
			},
			modeltest.Say("Still forty-two."),
		)
		sessions := filepath.Join(home, "sessions")
		writeFile(t, filepath.Join(dir, "helios.config.json"), `{
  "workDir": ".",
  "skills": {"userRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "`+sessions+`"}
}`)
		r := helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "run", "What do the notes say?")
		require.Zero(t, r.code, "helios run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		out := r.stdout
		readLine := `→ Read {"path":"notes.txt"}`
		globLine := `→ Glob {"pattern":"*.txt"}`
		i, j, k := strings.Index(out, readLine), strings.Index(out, globLine), strings.Index(out, "The notes say forty-two.")
		assert.True(t, i >= 0 && j >= 0 && k >= 0 && i < j && j < k, "stdout lacks, or misorders, the tool call lines and the answer:\n%s", out)
		n := strings.Count(out, "→ ")
		assert.Equal(t, 2, n, "%d tool call lines, want 2:\n%s", n, out)
		assert.Equal(t, 2, strings.Count(out, "  ok (1 line(s)): "), "tool outcome lines:\n%s", out)
		assert.Contains(t, out, "  ok (1 line(s)): 1 forty-two\n", "tool outcomes not shown")
		assert.Contains(t, out, "  ok (1 line(s)): notes.txt\n", "tool outcomes not shown")
		m := regexp.MustCompile(`session (\S+) \(helios run --resume`).FindStringSubmatch(out)
		require.NotNil(t, m, "stdout names no session:\n%s", out)
		id := m[1]

		r = helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "sessions", "list", "--json")
		require.Zero(t, r.code, "sessions list: exit %d: %s", r.code, r.stderr)
		var list struct {
			Sessions []session.Info `json:"sessions"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &list), "sessions list --json\n%s", r.stdout)
		if assert.Len(t, list.Sessions, 1, "sessions = %+v; want only %s", list.Sessions, id) {
			got := list.Sessions[0]
			assert.Equal(t, id, got.ID, "session ID")
			assert.Equal(t, 8, got.Events, "session events")
			assert.Contains(t, got.Title, "What do the notes say?", "session title: want the prompt")
		}

		type brief struct {
			Type     session.Type
			ToolName string
			Text     string
		}
		show := func() []brief {
			t.Helper()
			r := helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "sessions", "show", id, "--json")
			require.Zero(t, r.code, "sessions show: exit %d: %s", r.code, r.stderr)
			var got struct {
				ID     string          `json:"id"`
				Events []session.Event `json:"events"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), "sessions show --json\n%s", r.stdout)
			assert.Equal(t, id, got.ID, "shown session %q, want %q", got.ID, id)
			var out []brief
			for i, ev := range got.Events {
				assert.Equal(t, int64(i+1), ev.Seq, "event %d has Seq %d", i, ev.Seq)
				b := brief{Type: ev.Type, ToolName: ev.ToolName}
				if ev.Type == session.User || (ev.Type == session.Assistant && ev.Text != "") {
					b.Text = ev.Text
				}
				out = append(out, b)
			}
			return out
		}
		want := []brief{
			{Type: session.User, Text: "What do the notes say?"},
			{Type: session.Assistant}, {Type: session.ToolUse, ToolName: "Read"}, {Type: session.ToolResult, ToolName: "Read"},
			{Type: session.Assistant}, {Type: session.ToolUse, ToolName: "Glob"}, {Type: session.ToolResult, ToolName: "Glob"},
			{Type: session.Assistant, Text: "The notes say forty-two."},
		}
		assert.Empty(t, cmp.Diff(want, show()), "sessions show events (-want +got)")

		r = helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "run", "--resume", id, "And now?")
		require.Zero(t, r.code, "helios run --resume: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		require.Contains(t, r.stdout, "Still forty-two.", "helios run --resume: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		last := srv.Requests()[3]
		msgs := fmt.Sprint(last.Messages)
		assert.Contains(t, msgs, "What do the notes say?", "resumed request lacks the earlier conversation")
		assert.Contains(t, msgs, "The notes say forty-two.", "resumed request lacks the earlier conversation")
		want = append(want, brief{Type: session.User, Text: "And now?"}, brief{Type: session.Assistant, Text: "Still forty-two."})
		assert.Empty(t, cmp.Diff(want, show()), "events after resume (-want +got)")
	})
}

// agCap is an in-process capability: a name, a manifest line (empty: not
// listed), tools and hook mounts. Installed in Config.Plugins, its mounts
// land in the plugin band.
type agCap struct {
	name   string
	desc   string
	tools  []contract.Tool
	mounts []hooks.Mount
}

var (
	_ kernel.Describer    = (*agCap)(nil)
	_ kernel.ToolProvider = (*agCap)(nil)
	_ kernel.HookProvider = (*agCap)(nil)
)

func (c *agCap) Name() string                                   { return c.name }
func (c *agCap) Description() string                            { return c.desc }
func (c *agCap) Tools(context.Context) ([]contract.Tool, error) { return c.tools, nil }
func (c *agCap) Mounts() []hooks.Mount                          { return c.mounts }

// agRun runs one turn and returns the answer; an error fails the test.
func agRun(t *testing.T, s *kernel.Session, prompt string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	answer, err := s.Run(ctx, prompt)
	require.NoError(t, err, "Run(%q)", prompt)
	return answer
}

// agProbe records the arguments of each call of a tool.
type agProbe struct {
	mu   sync.Mutex
	args []string
}

func (p *agProbe) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.args...)
}

// agEcho is a tool answering "<name> got <args>", and its probe.
func agEcho(name, desc string) (contract.Tool, *agProbe) {
	p := &agProbe{}
	return contract.Tool{Name: name, Description: desc, Call: func(_ context.Context, args json.RawMessage) (contract.ToolResult, error) {
		p.mu.Lock()
		p.args = append(p.args, string(args))
		p.mu.Unlock()
		return contract.ToolResult{Content: name + " got " + string(args)}, nil
	}}, p
}

func agEvents(l session.Log) []session.Event {
	evs := make([]session.Event, l.Len())
	for i := range evs {
		evs[i] = l.At(i)
	}
	return evs
}

// agCheckLogPairs checks that tool use IDs are unique in the log and that
// each result follows its own call, once.
func agCheckLogPairs(t *testing.T, l session.Log) {
	t.Helper()
	uses := map[string]session.Event{}
	answered := map[string]bool{}
	for _, ev := range agEvents(l) {
		switch ev.Type {
		case session.ToolUse:
			_, dup := uses[ev.ToolUseID]
			assert.False(t, dup, "tool use ID %q used twice", ev.ToolUseID)
			uses[ev.ToolUseID] = ev
		case session.ToolResult:
			use, ok := uses[ev.ToolUseID]
			// The first failed check is reported; the later ones depend on it.
			if assert.True(t, ok, "result %q has no call before it", ev.ToolUseID) &&
				assert.False(t, answered[ev.ToolUseID], "call %q answered twice", ev.ToolUseID) &&
				assert.Equal(t, use.ToolName, ev.ToolName, "result %q: tool of its call", ev.ToolUseID) &&
				strings.HasPrefix(ev.Text, ev.ToolName+" got ") {
				assert.Equal(t, ev.ToolName+" got "+string(use.Input), ev.Text, "result %q does not answer its call's input", ev.ToolUseID)
			}
			answered[ev.ToolUseID] = true
		}
	}
	for id := range uses {
		assert.True(t, answered[id], "call %q has no result", id)
	}
}

// agCheckPairs is agCheckLogPairs over the messages a request carried.
func agCheckPairs(t *testing.T, what string, msgs []model.Message) {
	t.Helper()
	calls := map[string]bool{}
	answered := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			assert.False(t, calls[c.ID], "%s: tool call ID %q used twice", what, c.ID)
			calls[c.ID] = true
		}
		if m.Role == model.RoleTool {
			assert.True(t, calls[m.ToolCallID] && !answered[m.ToolCallID], "%s: tool message for %q has no call before it, or repeats", what, m.ToolCallID)
			answered[m.ToolCallID] = true
		}
	}
	for id := range calls {
		assert.True(t, answered[id], "%s: call %q has no result", what, id)
	}
}
