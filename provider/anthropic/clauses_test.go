package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
)

// point names a recorded block as describe does, with a tool_result's
// tool_use_id, so two results of one turn tell apart.
func point(blk string) string {
	d := describe(blk)
	if d != "user tool_result" {
		return d
	}
	_, js, _ := strings.Cut(blk, " ")
	var b struct {
		ToolUseID string `json:"tool_use_id"`
	}
	_ = json.Unmarshal([]byte(js), &b)
	return d + " " + b.ToolUseID
}

// C24 with several tools that differ (names, descriptions, schemas) and a
// step that called several of them at once: the tools' breakpoint is on
// the last tool (so it covers them all), the conversation's on the last
// result of the turn, never more than four in all; and the next step's
// request repeats, byte for byte, everything up to the previous step's
// last breakpoint.
func TestBreakpointsWithSeveralToolsAndParallelCalls(t *testing.T) {
	tools := []model.Tool{
		bashTool,
		{Name: "Read", Description: "Read a file.", Parameters: json.RawMessage(`{"properties":{"path":{"type":"string"}},"type":"object"}`)},
		{Name: "mcp__docs__search", Description: "Search the docs.", Parameters: json.RawMessage(` {"type":"object", "properties": {"q": {"type": "string"}}} `)},
		{Name: "skill"},
	}
	srv := modeltest.NewAnthropicServer(t, modeltest.Say("ok"), modeltest.Say("ok"))
	c := newClient(t, srv.URL(), nil)
	msgs := append(conversation(1),
		model.Message{Role: model.RoleUser, Content: "<available_skills>\npdf: Read PDFs.\nxlsx: Sheets.\n</available_skills>", CachePoint: true},
		model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
			{ID: "toolu_a", Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
			{ID: "toolu_b", Name: "Read", Arguments: json.RawMessage(`{"path":"go.mod"}`)},
			{ID: "toolu_c", Name: "mcp__docs__search", Arguments: json.RawMessage(`{"q":"cache"}`)},
		}},
		model.Message{Role: model.RoleTool, ToolCallID: "toolu_a", Content: "go.mod\n"},
		model.Message{Role: model.RoleTool, ToolCallID: "toolu_b", Content: "module x\n"},
		model.Message{Role: model.RoleTool, ToolCallID: "toolu_c", Content: "no hits", IsError: true},
	)
	msgs[0].CachePoint = false // the kernel marks only the newest catalog
	_, err := c.Generate(t.Context(), model.Request{System: "sys", Tools: tools, Messages: msgs})
	require.NoError(t, err)
	msgs = append(msgs,
		model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
			{ID: "toolu_d", Name: "skill", Arguments: json.RawMessage(`{"name":"pdf"}`)},
			{ID: "toolu_e", Name: "Bash", Arguments: json.RawMessage(`{"command":"make"}`)},
		}},
		model.Message{Role: model.RoleTool, ToolCallID: "toolu_d", Content: "Read PDFs with pdftotext."},
		model.Message{Role: model.RoleTool, ToolCallID: "toolu_e", Content: "ok"},
	)
	_, err = c.Generate(t.Context(), model.Request{System: "sys", Tools: tools, Messages: msgs})
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	for i, want := range [][]string{
		{"tool skill", "system", "user <available_skills>\npdf: Read PDFs.\nxlsx: Sheets.\n</available_skills>", "user tool_result toolu_c"},
		{"tool skill", "system", "user <available_skills>\npdf: Read PDFs.\nxlsx: Sheets.\n</available_skills>", "user tool_result toolu_e"},
	} {
		var got []string
		for _, b := range reqs[i].Breakpoints {
			got = append(got, point(reqs[i].Blocks[b]))
		}
		assert.Equal(t, want, got, "step %d's breakpoints", i+1)
		assert.LessOrEqual(t, len(reqs[i].Breakpoints), 4)
	}
	n := reqs[0].Breakpoints[len(reqs[0].Breakpoints)-1] + 1
	require.GreaterOrEqual(t, len(reqs[1].Blocks), n)
	assert.Empty(t, cmp.Diff(reqs[0].Blocks[:n], reqs[1].Blocks[:n]), "step 2 rewrote the prefix step 1 cached (-before +after)")
	assert.Positive(t, reqs[1].Usage.CacheReadTokens)
}
