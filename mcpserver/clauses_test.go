package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"github.com/helios-agents/helios/mcpserver"
)

// skillToolDescription serves the kernel's catalog over MCP (in memory) and
// returns the skill tool's description a client lists.
func skillToolDescription(t *testing.T, k *kernel.Kernel) string {
	t.Helper()
	srv, err := mcpserver.New(mcpserver.Config{Kernel: k})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tl := range res.Tools {
		if tl.Name == "skill" {
			return tl.Description
		}
	}
	t.Fatal("no skill tool")
	return ""
}

// C23: the skill tool's description stays within the 4,096 characters
// clients keep, whatever the catalog budget allows (unbounded or larger),
// and it is held to a smaller budget; the omitted sentence comes first.
func TestSkillToolDescriptionBound(t *testing.T) {
	root := skillfstest.RealTempDir(t)
	for i := range 600 {
		name := fmt.Sprintf("skill-%03d", i)
		skillfstest.WriteSkill(t, root, name, "name: "+name+"\ndescription: "+strings.Repeat("Does a careful thing. ", 4), "body")
	}
	for _, chars := range []int{-1, 20000, 1500} {
		t.Run(fmt.Sprint(chars), func(t *testing.T) {
			k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{root}, CatalogBudget: skills.Budget{Chars: chars}})
			require.NoError(t, err)
			t.Cleanup(func() { k.Close() })
			desc := skillToolDescription(t, k)
			n := utf8.RuneCountInString(desc)
			assert.LessOrEqual(t, n, mcpserver.MaxToolDescription)
			if chars > 0 && chars < mcpserver.MaxToolDescription {
				assert.LessOrEqual(t, n, chars, "a smaller catalog budget holds the description too")
			} else {
				assert.Greater(t, n, mcpserver.MaxToolDescription-400, "the bound is used, not a smaller one")
			}
			first, _, _ := strings.Cut(desc, "\n")
			assert.Contains(t, first, "skill_search", "the omitted sentence comes first")
			assert.Contains(t, desc, "- skill-000")
		})
	}
}
