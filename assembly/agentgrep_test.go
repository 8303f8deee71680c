package assembly_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects: an agent file written for Claude Code that allows only
// `Read, Grep, Glob` gets the builtin Grep (no unknown-tool warning), and
// its Grep searches the work dir.
func TestSubagentAllowedGrepGetsIt(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	work := t.TempDir()
	writeAgent(t, work, "searcher", "---\nname: searcher\ndescription: Searches.\ntools: Read, Grep, Glob\n---\nYou search.")
	require.NoError(t, os.WriteFile(filepath.Join(work, "notes.txt"), []byte("the needle is here\n"), 0o644))
	call, _ := json.Marshal(map[string]string{"subagent_type": "searcher", "description": "d", "prompt": "find the needle"})
	srv := modeltest.NewServer(t, modeltest.Call(kernel.AgentToolName, string(call)),
		modeltest.Call("Grep", `{"pattern": "needle", "output_mode": "content"}`), modeltest.Say("found"), modeltest.Say("done"))
	answer, warns := runAssembled(t, work, srv, "")
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
	for _, w := range warns {
		assert.NotContains(t, w, "unknown tool", "warning %q", strings.TrimSpace(w))
	}
}
