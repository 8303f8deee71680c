package unit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"github.com/helios-agents/helios/provider/modeltest"
)

// C4 / issue 10: a lower-case skill.md written by the agent's own Write tool,
// then changed by its Edit tool, reaches the very next request: the tools
// invalidate synchronously. The watcher polls once an hour, so no OS event
// can be what made the change visible.
func TestSkillsIOLowercaseSkillMdWriteAndEditInvalidate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	work, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	writeFile(t, filepath.Join(work, ".helios/skills/alpha/SKILL.md"), skillMD("name: alpha\ndescription: The first skill.", "alpha body"))
	const file = ".helios/skills/lower/skill.md"
	writeArgs, _ := json.Marshal(map[string]string{"path": file, "content": skillMD("name: lower\ndescription: Lower-case file.", "body\n")})
	editArgs, _ := json.Marshal(map[string]string{"path": file, "old_string": "Lower-case file.", "new_string": "Edited lower-case file."})

	lastCatalog := func(req modeltest.Recorded) string {
		cats := spineInjected(req)
		require.NotEmpty(t, cats)
		return cats[len(cats)-1]
	}
	srv := modeltest.NewServer(t,
		func(req modeltest.Recorded) modeltest.Reply {
			assert.NotContains(t, lastCatalog(req), "lower")
			return modeltest.Reply{ToolCalls: []model.ToolCall{{ID: "w1", Name: "Write", Arguments: writeArgs}}}
		},
		func(req modeltest.Recorded) modeltest.Reply {
			assert.NotContains(t, spineToolResult(t, req, "w1"), "error")
			assert.Contains(t, lastCatalog(req), "lower: Lower-case file.", "Write of skill.md did not invalidate the catalog")
			return modeltest.Reply{ToolCalls: []model.ToolCall{{ID: "e1", Name: "Edit", Arguments: editArgs}}}
		},
		func(req modeltest.Recorded) modeltest.Reply {
			assert.NotContains(t, strings.ToLower(spineToolResult(t, req, "e1")), "error")
			assert.Contains(t, lastCatalog(req), "lower: Edited lower-case file.", "Edit of skill.md did not invalidate the catalog")
			return modeltest.Say("Done.")(req)
		},
	)
	cfg := `{
  "workDir": ".",
  "skills": {"userRoots": [], "watch": {"mode": "poll", "pollInterval": "1h"}},
  "model": {"baseURL": "` + srv.URL() + `", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "` + filepath.Join(home, "sessions") + `"}
}`
	cfgPath := filepath.Join(work, "helios.config.json")
	writeFile(t, cfgPath, cfg)
	k, err := assembly.Load(ctx, cfgPath, assembly.Options{Watch: true})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	answer, err := s.Run(ctx, "Add a skill in a lower-case skill.md, then reword it.")
	require.NoError(t, err)
	assert.Equal(t, "Done.", answer)
	assert.Len(t, srv.Requests(), 3)
}

// The registry's first-party entry point accepts skill.md as it accepts
// SKILL.md.
func TestSkillsIOInvalidatePathLowercase(t *testing.T) {
	root := t.TempDir()
	w := &skillfstest.Watcher{}
	w.SetHealthy(true)
	reg := skillsRegistryWith(root, w)
	assert.True(t, reg.InvalidatePath(filepath.Join(root, "new", "skill.md")), "skill.md")
	assert.True(t, reg.InvalidatePath(filepath.Join(root, "new", "SKILL.md")), "SKILL.md")
	assert.False(t, reg.InvalidatePath(filepath.Join(root, "new", "notes.md")), "a note in a bundle")
}

func skillsRegistryWith(root string, w *skillfstest.Watcher) *skills.Registry {
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register("project", &skillfs.DirSource{FS: skillfs.OSFS{}, Source: "project", Roots: []string{root}, Watcher: w})
	return reg
}
