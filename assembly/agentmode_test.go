package assembly_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// Protects: the assembled permission port tells the kernel the session's
// mode: a subagent's permissionMode "acceptEdits" is refused with a warning
// naming its file in a session in "default", and accepted silently in one
// already in "acceptEdits".
func TestSubagentAcceptEditsAgainstTheSessionMode(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, tc := range []struct {
		mode string
		warn bool
	}{{"default", true}, {"acceptEdits", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			work := t.TempDir()
			agent := writeAgent(t, work, "editor", "---\nname: editor\ndescription: Edits.\npermissionMode: acceptEdits\n---\nYou edit.")
			call, _ := json.Marshal(map[string]string{"subagent_type": "editor", "description": "d", "prompt": "edit"})
			srv := modeltest.NewServer(t, modeltest.Call(kernel.AgentToolName, string(call)), modeltest.Say("edited"), modeltest.Say("done"))
			answer, all := runAssembled(t, work, srv, `"permissions": {"defaultMode": "`+tc.mode+`"}`)
			var warns []string
			for _, w := range all {
				if strings.Contains(w, "permissionMode") {
					warns = append(warns, w)
				}
			}
			assert.Equal(t, "done", answer)
			if !tc.warn {
				assert.Empty(t, warns)
				return
			}
			require.Len(t, warns, 1)
			assert.Contains(t, warns[0], agent)
			assert.Contains(t, warns[0], `would widen the session's mode "default"`)
		})
	}
}

// writeAgent writes the agent file .claude/agents/<name>.md of work and
// returns its path.
func writeAgent(t *testing.T, work, name, text string) string {
	t.Helper()
	agent := filepath.Join(work, ".claude/agents", name+".md")
	require.NoError(t, os.MkdirAll(filepath.Dir(agent), 0o755))
	require.NoError(t, os.WriteFile(agent, []byte(text), 0o644))
	return agent
}

// runAssembled assembles a kernel over work from a config (no user skills,
// commands unconfined, the scripted model srv, extra keys added), runs one
// turn of a session and returns its answer and every warning the session
// reported.
func runAssembled(t *testing.T, work string, srv *modeltest.Server, extra string) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cfg := `{"workDir": ".", "skills": {"userRoots": []}, "tools": {"sandbox": {"mode": "off"}},
  "model": {"baseURL": "` + srv.URL() + `", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "` + filepath.Join(t.TempDir(), "sessions") + `"}`
	if extra != "" {
		cfg += ",\n  " + extra
	}
	cfg += "}"
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
	mu.Lock()
	defer mu.Unlock()
	return answer, slices.Clone(warns)
}
