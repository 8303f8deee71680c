package unit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
)

// Protects C12/C13: the MCP skill tool's description carries the catalog
// under the same budget as the model's catalog message: within the budget,
// the omitted skills counted in the note, and every skill still loadable by
// name.
func TestMCPSkillToolDescriptionWithinBudget(t *testing.T) {
	work := t.TempDir()
	user := filepath.Join(t.TempDir(), "skills")
	require.NoError(t, os.MkdirAll(user, 0o755))
	for i := range 40 {
		name := fmt.Sprintf("skill-%02d", i)
		writeFile(t, filepath.Join(user, name, "SKILL.md"), skillMD("name: "+name+"\ndescription: "+strings.Repeat("Does a careful thing. ", 8), "Body of "+name+".\n"))
	}
	const budget = 700
	cfg, err := json.Marshal(map[string]any{"skills": map[string]any{"userRoots": []string{user}, "catalog": map[string]any{"budget": budget}}})
	require.NoError(t, err)
	path := filepath.Join(work, assembly.ConfigFileName)
	require.NoError(t, os.WriteFile(path, cfg, 0o644))
	k, err := assembly.Load(context.Background(), path, assembly.Options{WorkDir: work})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })

	cs, _ := mcpConnect(t, mcpNewServer(t, k), mcpProtocols[0])
	desc := mcpTool(t, cs, "skill").Description
	assert.LessOrEqual(t, utf8.RuneCountInString(desc), budget, "the description exceeds the catalog budget")
	assert.Contains(t, desc, "skill-00", "the first skills in catalog order are named")
	assert.NotContains(t, desc, "skill-39", "the budget cannot hold every skill")
	assert.Contains(t, desc, "loads any skill by its exact name", "the note says how to reach the omitted skills")
	text, isErr := mcpCall(t, cs, "skill", map[string]any{"name": "skill-39"})
	assert.False(t, isErr, text)
	assert.Contains(t, text, "Body of skill-39.", "an omitted skill still loads by name")
}
