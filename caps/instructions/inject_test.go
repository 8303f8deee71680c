package instructions_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/instructions"
	"github.com/helios-agents/helios/kernel/session"
)

// stepper plays the kernel's part: before each request, what Inject
// returns is appended.
type stepper struct {
	t   *testing.T
	c   *instructions.Capability
	log session.Log
}

func newStepper(t *testing.T, c *instructions.Capability) *stepper {
	log, err := session.NewMemoryStore().Create(context.Background())
	require.NoError(t, err)
	return &stepper{t: t, c: c, log: log}
}

// step injects and returns the texts appended.
func (s *stepper) step() []string {
	s.t.Helper()
	evs, err := s.c.Inject(context.Background(), s.log)
	require.NoError(s.t, err)
	if len(evs) > 0 {
		_, err = s.log.Append(context.Background(), evs...)
		require.NoError(s.t, err)
	}
	var texts []string
	for _, ev := range evs {
		assert.Equal(s.t, instructions.Provenance, ev.Provenance)
		texts = append(texts, ev.Text)
	}
	return texts
}

// tool records a tool call naming path, as the step loop would.
func (s *stepper) tool(name, path string) {
	s.t.Helper()
	in, _ := json.Marshal(map[string]string{"path": path})
	_, err := s.log.Append(context.Background(),
		session.Event{Type: session.ToolUse, ToolUseID: name + path, ToolName: name, Input: in},
		session.Event{Type: session.ToolResult, ToolUseID: name + path, Text: "ok"})
	require.NoError(s.t, err)
}

func (s *stepper) events() []session.Event {
	var out []session.Event
	for i := range s.log.Len() {
		out = append(out, s.log.At(i))
	}
	return out
}

func TestInjectFirstThenUpdatesAppendedNeverRewritten(t *testing.T) {
	tr := newTree(t, "w")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "root rules\n")
	write(t, filepath.Join(tr.root, "w/AGENTS.md"), "work rules v1\n")
	c := tr.open(t, 0)
	s := newStepper(t, c)

	first := s.step()
	require.Len(t, first, 1)
	assert.Equal(t, c.Load(context.Background()).Message, first[0])
	assert.Contains(t, first[0], "work rules v1")
	assert.Empty(t, s.step(), "nothing changed: nothing appended")

	write(t, filepath.Join(tr.root, "w/AGENTS.md"), "work rules v2\n")
	upd := s.step()
	require.Len(t, upd, 1)
	assert.Contains(t, upd[0], "<project_instructions_update>")
	assert.Contains(t, upd[0], `<instructions path="w/AGENTS.md">`+"\nwork rules v2\n</instructions>")
	assert.NotContains(t, upd[0], "root rules", "only what changed")
	assert.Equal(t, first[0], s.log.At(0).Text, "the first message stays byte-identical")
	assert.Empty(t, s.step())

	require.NoError(t, os.Remove(filepath.Join(tr.root, "AGENTS.md")))
	gone := s.step()
	require.Len(t, gone, 1)
	assert.Contains(t, gone[0], "No longer in effect (deleted, refused or cut to fit the budget): AGENTS.md.")
	assert.Empty(t, s.step())
	assert.Len(t, s.events(), 3)
}

func TestInjectNestedOnceWhenAToolTouchesIt(t *testing.T) {
	tr := newTree(t, ".")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "root rules\n")
	write(t, filepath.Join(tr.root, "pkg/api/CLAUDE.md"), "api rules\n")
	write(t, filepath.Join(tr.root, "pkg/api/handler.go"), "package api\n")
	write(t, filepath.Join(tr.root, "other/x.go"), "package other\n")
	s := newStepper(t, tr.open(t, 0))

	first := s.step()
	require.Len(t, first, 1)
	assert.NotContains(t, first[0], "api rules", "a nested file waits for a tool to touch its folder")

	s.tool("Glob", "other/x.go") // a folder without a file of its own
	assert.Empty(t, s.step())

	s.tool("Read", "pkg/api/handler.go")
	nested := s.step()
	require.Len(t, nested, 1)
	assert.Contains(t, nested[0], `<instructions path="pkg/api/CLAUDE.md">`+"\napi rules\n</instructions>")
	assert.Contains(t, nested[0], "applies to the work in that folder")

	for range 3 {
		s.tool("Edit", filepath.Join(tr.root, "pkg/api/handler.go"))
		assert.Empty(t, s.step(), "appended once")
	}

	write(t, filepath.Join(tr.root, "pkg/api/CLAUDE.md"), "api rules v2\n")
	upd := s.step()
	require.Len(t, upd, 1)
	assert.Contains(t, upd[0], "api rules v2")
	n := 0
	for _, ev := range s.events() {
		if ev.Type == session.Injected && strings.Contains(ev.Text, `path="pkg/api/CLAUDE.md"`) {
			n++
		}
	}
	assert.Equal(t, 2, n, "once, then once for the change")
}

func TestInjectNothingWithoutFiles(t *testing.T) {
	tr := newTree(t, ".")
	s := newStepper(t, tr.open(t, 0))
	assert.Empty(t, s.step())
	write(t, filepath.Join(tr.root, "AGENTS.md"), "late rules\n")
	late := s.step()
	require.Len(t, late, 1)
	assert.Contains(t, late[0], "<project_instructions>")
	assert.Contains(t, late[0], "late rules")
}

func TestInjectReestablishedAfterCompaction(t *testing.T) {
	tr := newTree(t, ".")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "root rules\n")
	write(t, filepath.Join(tr.root, "pkg/AGENTS.md"), "pkg rules\n")
	s := newStepper(t, tr.open(t, 0))
	require.Len(t, s.step(), 1)
	s.tool("Read", "pkg/a.go")
	require.Len(t, s.step(), 1)
	assert.Empty(t, s.step())

	last := s.log.At(s.log.Len() - 1).Seq
	_, err := s.log.Append(context.Background(), session.Event{Type: session.Compaction, From: 1, To: last, Text: "summary"})
	require.NoError(t, err)
	again := s.step()
	require.Len(t, again, 2, "the instructions, then the nested folder's file")
	assert.Contains(t, again[0], "<project_instructions>")
	assert.Contains(t, again[0], "root rules")
	assert.Contains(t, again[1], "pkg rules")
	assert.Empty(t, s.step())
}
