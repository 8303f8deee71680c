package sdk

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type toolsOnly struct{}

func (toolsOnly) Tools() []Tool {
	return []Tool{{Name: "echo", Call: func(_ context.Context, args json.RawMessage) (ToolResult, error) {
		return ToolResult{Content: string(args)}, nil
	}}}
}

// A plugin implements what it has: hooks, tools, or neither (skills alone).
func TestOptionalProviders(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "skills", "jot", "SKILL.md"), "---\nname: jot\ndescription: Jot things down.\n---\nJot.\n")
	for _, p := range []Plugin{nil, struct{}{}} {
		d, err := newServer(t, dir, p).Describe(context.Background())
		require.NoError(t, err)
		assert.Empty(t, d.Mounts)
		assert.Empty(t, d.Tools)
		require.Len(t, d.Skills, 1)
		assert.Equal(t, "jot", d.Skills[0].Name)
	}
	s := newServer(t, dir, toolsOnly{})
	d, err := s.Describe(context.Background())
	require.NoError(t, err)
	assert.Empty(t, d.Mounts)
	require.Len(t, d.Tools, 1)
	res, err := s.CallTool(context.Background(), "echo", json.RawMessage(`{"a":1}`))
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, res.Content)
}
