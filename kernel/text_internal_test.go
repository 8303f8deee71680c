package kernel

import (
	"encoding/json"
	"html"
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
		"agent_tool":            texts.Text("agent_tool.md.tmpl", agentCatalog(goldenAgents, agentCatalogChars)),
		"agent_tool.cut":        texts.Text("agent_tool.md.tmpl", agentCatalog(goldenAgents, 100)),
		"agent_tool.none":       texts.Text("agent_tool.md.tmpl", agentCatalog(nil, agentCatalogChars)),
	})
}

// A compaction reaches the model as a user message: the summary frame's
// sentence, then the summary.
func TestCompactionReachesModelFramed(t *testing.T) {
	got := toMessages([]session.Event{{Type: session.Compaction, Text: "we ran make"}})
	assert.Equal(t, []model.Message{{Role: model.RoleUser, Content: "Summary of the earlier conversation:\nwe ran make"}}, got)
}

var goldenAgents = []AgentDef{
	{Name: "code-reviewer", Description: "Reviews a diff for <bugs> & style.\nUse after every change."},
	{Name: "test-runner", Description: "Runs the tests and explains each failure, with the smallest fix it can find for each of them."},
	{Name: "docs", Description: "Writes docs."},
}

// The list of agents holds within its budget: descriptions shortened
// first, then the last agents counted instead of listed.
func TestAgentCatalogWithinBudget(t *testing.T) {
	for _, chars := range []int{40, 100, 300, agentCatalogChars} {
		data := agentCatalog(goldenAgents, chars)
		n := 0
		for _, l := range reflectLines(data["Agents"]) {
			n += len(html.UnescapeString(l[0])) + len(html.UnescapeString(l[1])) + 4
		}
		assert.LessOrEqual(t, n, chars, "budget %d", chars)
	}
	assert.Equal(t, 0, agentCatalog(goldenAgents, agentCatalogChars)["Omitted"])
	assert.Positive(t, agentCatalog(goldenAgents, 100)["Omitted"])
}

func reflectLines(v any) [][2]string {
	b, _ := json.Marshal(v)
	var ls []struct{ Name, Description string }
	_ = json.Unmarshal(b, &ls)
	out := make([][2]string, len(ls))
	for i, l := range ls {
		out[i] = [2]string{l.Name, l.Description}
	}
	return out
}
