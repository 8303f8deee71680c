package assembly_test

// The keyless end-to-end "spine" (issue 5): a kernel assembled from a real
// helios.config.json, the real OpenAI-compatible adapter talking to a
// scripted model over HTTP, the builtin tools, the live catalog and hooks.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spineInjected returns the catalog messages a request carried, in order.
func spineInjected(req modeltest.Recorded) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == model.RoleUser && strings.Contains(m.Content, "<available_skills>") {
			out = append(out, m.Content)
		}
	}
	return out
}

// spineToolResult returns the content of the tool message answering id.
func spineToolResult(t *testing.T, req modeltest.Recorded, id string) string {
	t.Helper()
	for _, m := range req.Messages {
		if m.Role == model.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("request has no tool result for %s; messages: %+v", id, req.Messages)
	return ""
}

func spineCall(id, name, args string) modeltest.Step {
	return modeltest.Calls(model.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)})
}
func TestSpineEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	work := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	spineWriteFile(t, filepath.Join(work, ".helios/skills/alpha/SKILL.md"), spineSkillMD("name: alpha\ndescription: The first skill.", "alpha body"))

	var k *kernel.Kernel
	greetDir := filepath.Join(work, ".helios", "skills", "greet")
	greetMD := "---\nname: greet\ndescription: Greet people by name.\n---\nRun scripts/hello.sh with the name.\n"
	writeArgs, _ := json.Marshal(map[string]string{"path": ".helios/skills/greet/SKILL.md", "content": greetMD})

	srv := modeltest.NewServer(t,
		// 1. The first catalog lists alpha; the model creates a skill.
		func(req modeltest.Recorded) modeltest.Reply {
			cats := spineInjected(req)
			if assert.Len(t, cats, 1, "request 1 catalogs, want one listing alpha") {
				assert.Contains(t, cats[0], "alpha: The first skill.", "request 1 catalogs, want one listing alpha")
			}
			assert.Contains(t, req.System, "skill", "system prompt does not describe skills by role")
			assert.NotContains(t, req.System, "skill_*", "system prompt does not describe skills by role")
			// The kernel's environment builtin (context:prepare) tells the
			// model where it works.
			real, _ := filepath.EvalSymlinks(work)
			assert.Contains(t, req.System, "- work dir: "+real+" ", "system prompt lacks the work dir %s", real)
			return modeltest.Reply{ToolCalls: []model.ToolCall{{ID: "w1", Name: "Write", Arguments: writeArgs}}}
		},
		// 2. The very next request carries the replacement catalog (the
		// Write invalidates synchronously; the watcher may also have seen
		// it by now, so TestSkillsIOLowercaseSkillMdWriteAndEditInvalidate,
		// which polls once an hour, is the test that proves the former).
		func(req modeltest.Recorded) modeltest.Reply {
			assert.NotContains(t, spineToolResult(t, req, "w1"), "refused", "Write failed")
			cats := spineInjected(req)
			if assert.Len(t, cats, 2, "request 2 catalogs, want a replacement listing alpha and greet") {
				assert.Contains(t, cats[1], "greet: Greet people by name.", "request 2 catalogs, want a replacement listing alpha and greet")
				assert.Contains(t, cats[1], "alpha", "request 2 catalogs, want a replacement listing alpha and greet")
			}
			return spineCall("s1", "skill", `{"name":"greet"}`)(req)
		},
		// 3. The load gives the current body with the absolute base dir.
		func(req modeltest.Recorded) modeltest.Reply {
			res := spineToolResult(t, req, "s1")
			assert.True(t, strings.HasPrefix(res, "Base directory for this skill: "+greetDir+"\n"), "skill load result")
			assert.Contains(t, res, "cd "+greetDir, "skill load result")
			assert.Contains(t, res, "Run scripts/hello.sh with the name.", "skill load result")
			return spineCall("b1", "Bash", `{"command":"rm -r .helios/skills/greet .helios/skills/alpha"}`)(req)
		},
		// 4. Both skills are gone. Wait (with a deadline) until the watcher
		// has seen it, then try a call the tool:before policy denies.
		func(req modeltest.Recorded) modeltest.Reply {
			assert.NotContains(t, spineToolResult(t, req, "b1"), "[exit code", "rm failed")
			testkit.ForCatalog(t, ctx, k, 10*time.Second, func(c skills.Catalog) bool { return c.Complete && len(c.Skills) == 0 })
			return spineCall("b2", "Bash", `{"command":"curl https://example.invalid"}`)(req)
		},
		// 5. A tombstone has been appended, and the denial reached the model
		// as a tool result.
		func(req modeltest.Recorded) modeltest.Reply {
			res := spineToolResult(t, req, "b2")
			assert.Contains(t, res, "denied", "denied call result")
			assert.Contains(t, res, "no network", "denied call result")
			cats := spineInjected(req)
			n := len(cats)
			assert.GreaterOrEqual(t, n, 3, "catalogs = %q, want a final empty catalog (tombstone)", cats)
			assert.Contains(t, cats[n-1], "<available_skills>\n</available_skills>", "catalogs = %q, want a final empty catalog (tombstone)", cats)
			return modeltest.Say("All done.")(req)
		},
	)

	cfg := `{
  "workDir": ".",
  "skills": {"userRoots": [], "watch": {"mode": "native"}},
  "model": {"baseURL": "` + srv.URL() + `", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"dir": "` + filepath.Join(home, "sessions") + `"}
}`
	cfgPath := filepath.Join(work, "helios.config.json")
	spineWriteFile(t, cfgPath, cfg)
	var err error
	k, err = assembly.Load(ctx, cfgPath, assembly.Options{Watch: true})
	require.NoError(t, err)
	defer k.Close()
	require.NoError(t, hooks.ToolBefore.Mount(k.Hooks(), "no-network", hooks.Builtin, func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
		if in.Call.Name == "Bash" && strings.Contains(string(in.Call.Arguments), "curl") {
			return kernel.ToolDecision{Deny: true, Reason: "no network access"}, true, nil
		}
		return kernel.ToolDecision{}, false, nil
	}))

	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	answer, err := s.Run(ctx, "Create a greeting skill, try it, then clean up.")
	require.NoError(t, err)
	assert.Equal(t, "All done.", answer, "answer")
	assert.Len(t, srv.Requests(), 5, "requests")

	// The session is durable: reopening it yields the same log, with tool
	// results paired to their calls.
	id := s.ID()
	s.Close()
	log, err := k.SessionStore().Open(ctx, id)
	require.NoError(t, err)
	defer log.Close()
	uses, results := map[string]bool{}, map[string]bool{}
	for i := range log.Len() {
		switch ev := log.At(i); ev.Type {
		case session.ToolUse:
			uses[ev.ToolUseID] = true
		case session.ToolResult:
			results[ev.ToolUseID] = true
		}
	}
	if assert.Len(t, uses, 4, "tool uses %v, results %v: want 4 paired", uses, results) {
		assert.Len(t, results, 4, "tool uses %v, results %v: want 4 paired", uses, results)
	}
	_, err = os.Stat(greetDir)
	assert.True(t, os.IsNotExist(err), "greet still exists: %v", err)
}

// spineWriteFile creates path (and its parents) with content.
func spineWriteFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// spineSkillMD renders a SKILL.md with the given frontmatter lines and body.
func spineSkillMD(frontmatter, body string) string {
	return "---\n" + frontmatter + "\n---\n" + body
}
