package instructions_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/instructions"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/workfs"
)

// recorder answers every request at once and keeps the requests.
type recorder struct {
	mu   sync.Mutex
	reqs []model.Request
}

func (r *recorder) Generate(_ context.Context, req model.Request) (model.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return model.Response{Text: "done", FinishReason: "stop"}, nil
}

func newKernel(tb testing.TB, work, home string, m model.Model, skillRoot string, withInstructions bool) *kernel.Kernel {
	tb.Helper()
	port, err := workfs.New(work)
	require.NoError(tb, err)
	var caps []kernel.Capability
	if withInstructions {
		c, err := instructions.New(instructions.Config{Port: port, Home: home})
		require.NoError(tb, err)
		caps = append(caps, c)
	}
	k, err := kernel.New(kernel.Config{WorkDir: work, UserSkillRoots: []string{skillRoot}, Model: m,
		Store: session.NewMemoryStore(), Capabilities: caps})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = k.Close(); _ = port.Close() })
	return k
}

func TestKernelSendsInstructionsBeforeCatalogAndKeepsThePrefix(t *testing.T) {
	tr := newTree(t, ".")
	skills := filepath.Join(t.TempDir(), "skills")
	write(t, filepath.Join(skills, "pdf/SKILL.md"), "---\nname: pdf\ndescription: Read PDF files.\n---\nbody\n")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "Use tabs.\n")
	m := &recorder{}
	k := newKernel(t, tr.work, tr.home, m, skills, true)
	s, err := k.OpenSession(context.Background(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()

	_, err = s.Run(context.Background(), "hi")
	require.NoError(t, err)
	write(t, filepath.Join(tr.root, "AGENTS.md"), "Use spaces.\n")
	_, err = s.Run(context.Background(), "again")
	require.NoError(t, err)

	require.Len(t, m.reqs, 2)
	one, two := m.reqs[0].Messages, m.reqs[1].Messages
	require.GreaterOrEqual(t, len(one), 3)
	assert.Contains(t, one[0].Content, "<project_instructions>")
	assert.Contains(t, one[0].Content, "Use tabs.")
	assert.Equal(t, "hi", one[1].Content, "the instructions open the session, before the first prompt")
	assert.Contains(t, one[2].Content, "<available_skills>", "the catalog follows the instructions")
	require.Greater(t, len(two), len(one))
	for i := range one {
		assert.Equal(t, one[i].Content, two[i].Content, "message %d of the cached prefix", i)
	}
	var tail []string
	for _, msg := range two[len(one):] {
		tail = append(tail, msg.Content)
	}
	assert.Contains(t, strings.Join(tail, "\n"), "<project_instructions_update>")
	assert.Contains(t, strings.Join(tail, "\n"), "Use spaces.")
}

// BenchmarkFirstRequest measures the time from opening a session to its
// first model request answered, with no instruction files and with a chain
// of five files (user, root, three folders down) of 32 KiB in all, the two
// interleaved so that a loaded machine slows both alike; it reports each
// one's median and the difference.
func BenchmarkFirstRequest(b *testing.B) {
	kernels := make([]*kernel.Kernel, 2)
	for i, files := range []int{0, 5} {
		base := b.TempDir()
		home, root := filepath.Join(base, "home"), filepath.Join(base, "proj")
		work := filepath.Join(root, "a/b/c")
		for _, d := range []string{filepath.Join(root, ".git"), work, filepath.Join(home, ".helios")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		paths := []string{filepath.Join(home, ".helios/AGENTS.md"), filepath.Join(root, "AGENTS.md"),
			filepath.Join(root, "a/AGENTS.md"), filepath.Join(root, "a/b/AGENTS.md"), filepath.Join(root, "a/b/c/AGENTS.md")}
		line := "- Run the linters before committing; keep functions short.\n"
		per := instructions.DefaultMaxBytes / 5
		for _, p := range paths[:files] {
			if err := os.WriteFile(p, []byte(strings.Repeat(line, per/len(line))), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		kernels[i] = newKernel(b, work, home, &recorder{}, filepath.Join(base, "skills"), true)
	}
	turn := func(k *kernel.Kernel) time.Duration {
		t0 := time.Now()
		// A store per session: the kernel's would grow with every
		// iteration, and the recency read at open with it.
		s, err := k.OpenSession(context.Background(), kernel.SessionConfig{Store: session.NewMemoryStore()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Run(context.Background(), "hi"); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		s.Close()
		return d
	}
	var none, five []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		none = append(none, turn(kernels[0]))
		five = append(five, turn(kernels[1]))
	}
	p50 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	n, f := p50(none), p50(five)
	b.ReportMetric(float64(n.Microseconds()), "none-p50-µs")
	b.ReportMetric(float64(f.Microseconds()), "five-p50-µs")
	b.ReportMetric(float64((f - n).Microseconds()), "extra-p50-µs")
}

// The instructions:loaded point gets the files the model was given: at
// the session's start, then a nested folder's, once.
func TestKernelInstructionsLoaded(t *testing.T) {
	tr := newTree(t, ".")
	write(t, filepath.Join(tr.home, ".claude/CLAUDE.md"), "user\n")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "root\n")
	write(t, filepath.Join(tr.root, "CLAUDE.local.md"), "local\n")
	write(t, filepath.Join(tr.root, "sub/AGENTS.md"), "sub\n")
	var mu sync.Mutex
	var got []kernel.InstructionFile
	probe := kernel.NewCapability("probe", hooks.InstructionsLoaded.Bind("probe", func(_ context.Context, in kernel.InstructionsLoadedIn) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, in.Files...)
		return nil
	}))
	port, err := workfs.New(tr.work)
	require.NoError(t, err)
	var k *kernel.Kernel
	c, err := instructions.New(instructions.Config{Port: port, Home: tr.home, OnLoaded: func(ctx context.Context, in kernel.InstructionsLoadedIn) {
		require.NoError(t, hooks.InstructionsLoaded.Dispatch(ctx, k.Hooks(), in))
	}})
	require.NoError(t, err)
	k, err = kernel.New(kernel.Config{WorkDir: tr.work, UserSkillRoots: []string{}, Model: &recorder{},
		Store: session.NewMemoryStore(), Capabilities: []kernel.Capability{c, probe}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = k.Close(); _ = c.Close(); _ = port.Close() })

	s, err := k.OpenSession(context.Background(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Log().Append(context.Background(), session.Event{Type: session.ToolUse, ToolUseID: "1", ToolName: "Read", Input: []byte(`{"path":"sub/x.go"}`)},
		session.Event{Type: session.ToolResult, ToolUseID: "1", Text: "ok"})
	require.NoError(t, err)
	for range 2 {
		_, err = s.Run(context.Background(), "go")
		require.NoError(t, err)
	}

	root := c.Root()
	assert.Equal(t, []kernel.InstructionFile{
		{Path: filepath.Join(tr.home, ".claude/CLAUDE.md"), MemoryType: "User", LoadReason: "session_start"},
		{Path: filepath.Join(root, "AGENTS.md"), MemoryType: "Project", LoadReason: "session_start"},
		{Path: filepath.Join(root, "CLAUDE.local.md"), MemoryType: "Local", LoadReason: "session_start"},
		{Path: filepath.Join(root, "sub/AGENTS.md"), MemoryType: "Project", LoadReason: "nested_traversal"},
	}, got)
}
