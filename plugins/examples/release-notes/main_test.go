package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/helios-agents/helios/internal/pluginprobe"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain makes this package's test binary the plugin itself, wrapped in
// the tests' probe, when a kernel starts it (the go-plugin handshake
// variable is set). The plugin and host suites build it with `go test -c`
// and launch it in place of the plain executable; the plugin's own code
// carries no test hooks.
func TestMain(m *testing.M) {
	if os.Getenv(plugins.Handshake.MagicCookieKey) != "" {
		pluginprobe.Serve(&releaseNotes{})
		return
	}
	os.Exit(m.Run())
}

func TestGuardTags(t *testing.T) {
	p := &releaseNotes{}
	for _, tt := range []struct {
		tool, command string
		deny          bool
	}{
		{"Bash", "git tag -d v1.2.0", true},
		{"Bash", "git tag --delete v1.2.0", true},
		{"Bash", "cd repo && git tag -l && git tag -d old", true},
		{"Bash", "git push origin --delete v1.2.0", true},
		{"Bash", "git push origin :refs/tags/v1.2.0", true},
		{"Bash", "git push --force --tags", true},
		{"Bash", "git push --tags -f origin", true},
		{"Bash", "git tag v1.3.0 && git push --tags", false},
		{"Bash", "git push -f origin feature", false},
		{"Bash", "git log --oneline v1.2.0..HEAD", false},
		{"Read", "git tag -d v1", false},
	} {
		args, _ := json.Marshal(map[string]string{"command": tt.command})
		d, handled, err := p.guardTags(context.Background(), sdk.ToolBeforeIn{Call: sdk.ToolCall{Name: tt.tool, Arguments: args}})
		assert.NoError(t, err, "%s %q: decision %+v handled %v err %v, want deny %v", tt.tool, tt.command, d, handled, err, tt.deny)
		assert.Equal(t, tt.deny, handled, "%s %q: decision %+v handled %v err %v, want deny %v", tt.tool, tt.command, d, handled, err, tt.deny)
		assert.Equal(t, tt.deny, d.Deny, "%s %q: decision %+v handled %v err %v, want deny %v", tt.tool, tt.command, d, handled, err, tt.deny)
	}
}

func TestPrepareOnlyWhenTheSkillIsVisible(t *testing.T) {
	p := &releaseNotes{}
	_, ok, err := p.prepare(context.Background(), sdk.PrepareIn{Skills: []sdk.Skill{{Name: "other"}}})
	assert.NoError(t, err, "without the skill")
	assert.False(t, ok, "without the skill: handled")
	text, ok, err := p.prepare(context.Background(), sdk.PrepareIn{Skills: []sdk.Skill{{Name: "release-notes"}}})
	assert.True(t, ok, "with the skill")
	assert.NoError(t, err, "with the skill")
	assert.Contains(t, text, "release-notes skill", "with the skill")
}

func TestFormatNotes(t *testing.T) {
	log := "since: v1.4.0\nabc1234 feat(cli): plugins check\nbcd2345 fix: restart after a crash\ncde3456 chore: bump deps\ndef4567 feat!: gRPC only\n"
	want := `# v1.5.0

4 changes since v1.4.0.

## Features

- plugins check (abc1234)
- gRPC only (def4567)

## Fixes

- restart after a crash (bcd2345)

## Other changes

- chore: bump deps (cde3456)
`
	assert.Equal(t, want, formatNotes("v1.5.0", log))
	res, err := formatTool().Call(context.Background(), json.RawMessage(`{"log":"x"}`))
	assert.NoError(t, err, "missing version: %+v", res)
	assert.True(t, res.IsError, "missing version: %+v", res)
}

// The tool's schema is its argument struct's: both arguments required and
// described, nothing else accepted.
func TestFormatToolSchema(t *testing.T) {
	var s struct {
		Properties map[string]struct {
			Type, Description string
		}
		Required             []string
		AdditionalProperties bool
	}
	require.NoError(t, json.Unmarshal(formatTool().Schema, &s))
	assert.Equal(t, []string{"version", "log"}, s.Required)
	for _, p := range []string{"version", "log"} {
		assert.Equal(t, "string", s.Properties[p].Type, "%s", p)
		assert.NotEmpty(t, s.Properties[p].Description, "%s", p)
	}
	assert.False(t, s.AdditionalProperties)
}
