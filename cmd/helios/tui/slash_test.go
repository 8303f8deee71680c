package tui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	slashcmds "github.com/helios-agents/helios/caps/commands"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/workfs"
)

// setCommands serves a real command set to the UI, as helios does.
type setCommands struct{ set *slashcmds.Set }

func (c setCommands) List() []SlashCommand {
	cmds, _ := c.set.List()
	var out []SlashCommand
	for _, cmd := range cmds {
		out = append(out, SlashCommand{Name: cmd.Name, Description: cmd.Description, ArgumentHint: cmd.ArgumentHint})
	}
	return out
}

func (c setCommands) Expand(ctx context.Context, name, args string) (string, []string, error) {
	ex, err := c.set.Expand(ctx, name, args)
	return ex.Prompt, ex.Warnings, err
}

// Protects: a slash command completes like /skill: (a file added while the
// UI runs included), Tab puts "/name " in the draft, and Enter sends the
// command's expansion, not the typed text, showing what was typed.
func TestTUISlashCommand(t *testing.T) {
	work := t.TempDir()
	fsys, err := workfs.New(work)
	require.NoError(t, err)
	t.Cleanup(func() { fsys.Close() })
	dir := filepath.Join(work, ".claude", "commands", "git")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fix.md"), []byte("---\ndescription: Fix an issue\nargument-hint: [issue]\n---\nFix issue $1 now.\n"), 0o644))

	var prompts []string
	sess := &fakeSession{id: "s-1", run: func(_ context.Context, _ func(kernel.Update), prompt string) error {
		prompts = append(prompts, prompt)
		return nil
	}}
	set := slashcmds.New(slashcmds.Config{Work: fsys, Home: t.TempDir()})
	m := newTestModel(t, Config{Kernel: newFakeKernel(), OpenSession: sess.open, Commands: setCommands{set}})

	tuiType(m, "/gi")
	tuiWantSuggestions(t, m, "/git:fix")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "push.md"), []byte("Push.\n"), 0o644))
	tuiSetDraft(m, "/git") // a new slash word reads the folders again
	tuiWantSuggestions(t, m, "/git:fix", "/git:push")
	assert.Contains(t, tuiScreen(m), "[issue] Fix an issue")

	tuiPress(m, tea.KeyTab)
	assert.Equal(t, "/git:fix ", m.input.Value())
	tuiType(m, "42")
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	require.NotNil(t, cmd)
	cmd()
	assert.Equal(t, []string{"Fix issue 42 now.\n"}, prompts)
	assert.Contains(t, tuiScreen(m), "/git:fix 42")
}
