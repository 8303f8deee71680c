package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/plugins/sdk"
)

func TestNoForcePush(t *testing.T) {
	s, err := sdk.New(plugin{}, sdk.Config{Dir: "."})
	require.NoError(t, err)
	defer s.Close()
	for _, tt := range []struct {
		tool, command string
		deny          bool
	}{
		{"Bash", "git push --force origin main", true},
		{"Bash", "git push -f", true},
		{"Bash", "cd repo && git push --force-with-lease", true},
		{"Bash", "git push origin main", false},
		{"Bash", "git push origin feature-f", false},
		{"Read", "git push --force", false},
	} {
		args, _ := json.Marshal(map[string]string{"command": tt.command})
		res, err := s.Handle(context.Background(), "tool:before", "no-force-push", sdk.ToolBeforeIn{Call: sdk.ToolCall{Name: tt.tool, Arguments: args}})
		require.NoError(t, err)
		assert.Equal(t, tt.deny, res.Handled, "%s %q", tt.tool, tt.command)
	}
	d, err := s.Describe(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "no-force-push", d.Name)
}
