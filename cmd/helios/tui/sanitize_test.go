package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/skills"
)

// Protects (C19): what the UI shows from the model, tools, skills and
// plugins never reaches the terminal with a hidden character: each class is
// shown escaped, in the streamed answer, a tool call, a tool result (ok and
// failed), an injected message, a loaded skill and the completion popup.
// The screen is checked raw: stripping ANSI codes would also strip an
// escape sequence smuggled in.
func TestTUIShowsHiddenCharactersEscaped(t *testing.T) {
	for _, c := range testkit.Hidden {
		t.Run(c.Class, func(t *testing.T) {
			hostile := "x" + c.Raw + "y"
			k := newFakeKernel()
			k.set(skills.Catalog{Complete: true, Skills: []skills.Skill{{Name: "deploy" + c.Raw, Description: "Ships" + c.Raw + "it.", Source: skills.SourceProject}}})
			sess := &fakeSession{id: "s-1", run: func(ctx context.Context, obs func(kernel.Update), prompt string) error {
				obs(kernel.Update{Kind: kernel.UpdateText, Text: "answer " + hostile})
				call := model.ToolCall{ID: "c1", Name: "Bash" + c.Raw, Arguments: []byte(`{"command":"` + hostile + `"}`)}
				obs(kernel.Update{Kind: kernel.UpdateToolCall, Call: call})
				obs(kernel.Update{Kind: kernel.UpdateToolResult, Call: call, Text: "out " + hostile})
				obs(kernel.Update{Kind: kernel.UpdateToolResult, Call: call, Text: "err " + hostile, IsError: true})
				obs(kernel.Update{Kind: kernel.UpdateInjected, Text: "injected " + hostile})
				return nil
			}}
			m := newTestModel(t, Config{Kernel: k, OpenSession: sess.open, WorkDir: "/w" + c.Raw})
			m.Update(tea.WindowSizeMsg{Width: 400, Height: 60})
			m.Update(m.fetchCatalog()())
			tuiType(m, "go")
			_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			require.Nil(t, cmd())
			tuiDrain(t, m)
			m.add(entry{kind: skillEntry, name: "deploy" + c.Raw, text: "body " + hostile, injected: true})
			tuiType(m, "/skill:")

			screen := m.View().Content
			assert.NotContains(t, screen, c.Raw, "a raw %s reached the terminal", c.Class)
			for _, want := range []string{"answer x" + c.Escaped + "y", "out x" + c.Escaped + "y", "err x" + c.Escaped + "y",
				"injected x" + c.Escaped + "y", "body x" + c.Escaped + "y", "deploy" + c.Escaped, "Ships" + c.Escaped + "it.", "Bash" + c.Escaped} {
				assert.Contains(t, screen, want)
			}
			assert.Equal(t, 1, strings.Count(screen, "/w"+c.Escaped), "the work dir in the status line")
		})
	}
}
