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
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			work := t.TempDir()
			agent := filepath.Join(work, ".claude/agents/editor.md")
			require.NoError(t, os.MkdirAll(filepath.Dir(agent), 0o755))
			require.NoError(t, os.WriteFile(agent, []byte("---\nname: editor\ndescription: Edits.\npermissionMode: acceptEdits\n---\nYou edit."), 0o644))
			call, _ := json.Marshal(map[string]string{"subagent_type": "editor", "description": "d", "prompt": "edit"})
			srv := modeltest.NewServer(t, modeltest.Call(kernel.AgentToolName, string(call)), modeltest.Say("edited"), modeltest.Say("done"))
			cfg := `{"workDir": ".", "skills": {"userRoots": []}, "tools": {"sandbox": {"mode": "off"}},
  "model": {"baseURL": "` + srv.URL() + `", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "` + filepath.Join(t.TempDir(), "sessions") + `"},
  "permissions": {"defaultMode": "` + tc.mode + `"}}`
			path := filepath.Join(work, "helios.config.json")
			require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
			k, err := assembly.Load(ctx, path, assembly.Options{})
			require.NoError(t, err)
			t.Cleanup(func() { k.Close() })
			var mu sync.Mutex
			var warns []string
			s, err := k.OpenSession(ctx, kernel.SessionConfig{Observe: func(u kernel.Update) {
				if u.Kind == kernel.UpdateWarning && strings.Contains(u.Text, "permissionMode") {
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
			mu.Lock()
			defer mu.Unlock()
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
