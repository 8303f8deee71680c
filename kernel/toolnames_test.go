package kernel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
)

// toolCap offers fixed tools under a name.
type toolCap struct {
	name  string
	tools []contract.Tool
}

func (c toolCap) Name() string                                   { return c.name }
func (c toolCap) Tools(context.Context) ([]contract.Tool, error) { return c.tools, nil }

func namedTool(name, answer string) contract.Tool {
	return contract.Tool{Name: name, Call: func(context.Context, json.RawMessage) (contract.ToolResult, error) {
		return contract.ToolResult{Content: answer}, nil
	}}
}

// Probe: in tools mode a repository skill named Bash (or Read, or an MCP
// tool's name) would replace the builtin tool. Builtins come first: the
// skill is refused with one warning naming both, the builtin stays, and the
// other skills are offered after the capabilities' tools.
func TestBuiltinToolsComeBeforeSkills(t *testing.T) {
	root := skillfstest.RealTempDir(t)
	for _, n := range []string{"Bash", "Read", "mcp__gh__search", "pdf"} {
		skillfstest.WriteSkill(t, root, n, "name: "+n+"\ndescription: A skill named "+n+".", "body of "+n+"\n")
	}
	builtins := toolCap{"builtin-tools", []contract.Tool{namedTool("Bash", "builtin Bash"), namedTool("Read", "builtin Read")}}
	mcp := toolCap{"mcp:gh", []contract.Tool{namedTool("mcp__gh__search", "server search"), namedTool("Bash", "server Bash")}}
	k := ksNewKernel(t, kernel.Config{WorkDir: skillfstest.RealTempDir(t), UserSkillRoots: []string{root},
		SkillsMode: skills.ModeTools, Capabilities: []kernel.Capability{builtins, mcp}})
	ctx := context.Background()

	tools, warns := k.Tools(ctx, k.Catalog(ctx), k.CatalogBudget())
	assert.Equal(t, []string{"Bash", "Read", "mcp__gh__search", "pdf"}, ksToolNames(tools))
	for _, tl := range tools[:3] {
		res, err := tl.Call(ctx, nil)
		require.NoError(t, err)
		assert.NotContains(t, res.Content, "body of", "tool %s is the skill's, not the builtin's", tl.Name)
	}
	var texts []string
	for _, w := range warns {
		texts = append(texts, w.String())
	}
	assert.ElementsMatch(t, []string{
		`capability:mcp:gh: tool "Bash" of capability "mcp:gh" is refused: capability "builtin-tools" already offers a tool of that name`,
		`user: tool "Bash" of skill "Bash" (user) is refused: capability "builtin-tools" already offers a tool of that name`,
		`user: tool "Read" of skill "Read" (user) is refused: capability "builtin-tools" already offers a tool of that name`,
		`user: tool "mcp__gh__search" of skill "mcp__gh__search" (user) is refused: capability "mcp:gh" already offers a tool of that name`,
	}, texts)
}
