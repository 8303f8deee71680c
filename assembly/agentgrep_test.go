package assembly_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects: an agent file written for Claude Code that allows only
// `Read, Grep, Glob` gets the builtin Grep (no unknown-tool warning), and
// its Grep searches the work dir.
func TestSubagentAllowedGrepGetsIt(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	work := t.TempDir()
	agent := filepath.Join(work, ".claude/agents/searcher.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(agent), 0o755))
	require.NoError(t, os.WriteFile(agent, []byte("---\nname: searcher\ndescription: Searches.\ntools: Read, Grep, Glob\n---\nYou search."), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(work, "notes.txt"), []byte("the needle is here\n"), 0o644))
	call, _ := json.Marshal(map[string]string{"subagent_type": "searcher", "description": "d", "prompt": "find the needle"})
	srv := modeltest.NewServer(t, modeltest.Call(kernel.AgentToolName, string(call)),
		modeltest.Call("Grep", `{"pattern": "needle", "output_mode": "content"}`), modeltest.Say("found"), modeltest.Say("done"))
	cfg := `{"workDir": ".", "skills": {"userRoots": []}, "tools": {"sandbox": {"mode": "off"}},
  "model": {"baseURL": "` + srv.URL() + `", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "` + filepath.Join(t.TempDir(), "sessions") + `"}}`
	path := filepath.Join(work, "helios.config.json")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	k, err := assembly.Load(ctx, path, assembly.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	var mu sync.Mutex
	var warns []string
	s, err := k.OpenSession(ctx, kernel.SessionConfig{Observe: func(u kernel.Update) {
		if u.Kind == kernel.UpdateWarning {
			mu.Lock()
			warns = append(warns, u.Text)
			mu.Unlock()
		}
	}})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	answer, err := s.Run(ctx, "go")
	require.NoError(t, err)
	assert.Equal(t, "done", answer)

	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	var names []string
	for _, tl := range reqs[1].Tools {
		names = append(names, tl.Name)
	}
	assert.Subset(t, names, []string{"Read", "Grep", "Glob"}, "the child's tools")
	assert.NotContains(t, names, "Bash", "the child's tools")
	var result string
	for _, msg := range reqs[2].Messages {
		if msg.ToolCallID != "" {
			result = msg.Content
		}
	}
	assert.Equal(t, "notes.txt:1:the needle is here\n", result, "the child's Grep result")
	mu.Lock()
	defer mu.Unlock()
	for _, w := range warns {
		assert.NotContains(t, w, "unknown tool", "warning %q", strings.TrimSpace(w))
	}
}
