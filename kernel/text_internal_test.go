package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/modeltext/modeltexttest"
	"github.com/helios-agents/helios/kernel/session"
)

// The kernel's prompts are checked against testdata/golden: a wording change
// is a reviewed diff (go test ./kernel -run TestModelTextGolden -update).
func TestModelTextGolden(t *testing.T) {
	modeltexttest.Check(t, map[string]string{
		"system":          defaultSystemPrompt(),
		"compact":         compactPrompt(),
		"compact_summary": summaryHead(),
		"environment": texts.Text("environment.md.tmpl", map[string]any{
			"WorkDir": "/home/me/my project", "OS": "linux", "Arch": "amd64", "Date": "2026-12-02",
		}),
		"skills_prompt.catalog": texts.Text("skills_prompt.md.tmpl", map[string]any{"Tools": false}),
		"skills_prompt.tools":   texts.Text("skills_prompt.md.tmpl", map[string]any{"Tools": true}),
	})
}

// A compaction reaches the model as a user message: the summary frame's
// sentence, then the summary.
func TestCompactionReachesModelFramed(t *testing.T) {
	got := toMessages([]session.Event{{Type: session.Compaction, Text: "we ran make"}})
	assert.Equal(t, []model.Message{{Role: model.RoleUser, Content: "Summary of the earlier conversation:\nwe ran make"}}, got)
}
