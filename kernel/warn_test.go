package kernel_test

import (
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
)

// One way to report warnings: what a turn logs about its tools (a tool
// refused for a taken name) and its catalog (what the budget cut) reaches
// Config.OnWarning too, with the same text the logger gets.
func TestWarningsReachOnWarningAndTheLogger(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Say("done"))
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	var mu sync.Mutex
	var got []string
	logs := &budLogs{}
	builtins := toolCap{"builtin-tools", []contract.Tool{namedTool("Bash", "builtin Bash")}}
	mcp := toolCap{"mcp:gh", []contract.Tool{namedTool("Bash", "server Bash")}}
	k := ksNewKernel(t, kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{reachRoot(t)}, Store: session.NewMemoryStore(),
		Model: client, CatalogBudget: skills.Budget{Chars: 400}, Logger: slog.New(logs),
		Capabilities: []kernel.Capability{builtins, mcp},
		OnWarning: func(w contract.Warning) {
			mu.Lock()
			got = append(got, w.String())
			mu.Unlock()
		}})
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "go")
	require.NoError(t, err)

	clash := `capability:mcp:gh: tool "Bash" of capability "mcp:gh" is refused: capability "builtin-tools" already offers a tool of that name`
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, got, clash)
	var cut bool
	for _, w := range got {
		cut = cut || w != clash
	}
	assert.True(t, cut, "the catalog budget's warning reaches OnWarning: %q", got)
	logs.mu.Lock()
	defer logs.mu.Unlock()
	assert.Contains(t, logs.recs, `WARN tools source=capability:mcp:gh message=tool "Bash" of capability "mcp:gh" is refused: capability "builtin-tools" already offers a tool of that name`)
}
