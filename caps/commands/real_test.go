package commands_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/commands"
)

// Protects: a dozen published command files (testdata/ATTRIBUTION.md) list
// with their frontmatter, including davila7's `argument-hint: [x] | --y`
// that is not YAML but Claude Code reads as text, and expand as Claude
// Code documents: arguments in place, !`cmd` run confined with its output
// in place, @package.json attached, and !`cmd` refused where allowed-tools
// lacks Bash (create-prp).
func TestRealCommands(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, os.CopyFS(filepath.Join(e.work, ".claude/commands"), os.DirFS("testdata/real")))
	write(t, filepath.Join(e.work, "package.json"), `{"name": "demo"}`+"\n")
	// npm audit in dependency-audit may wait for the network it does not
	// have: a short timeout keeps the test quick (TestBangTimeoutKills
	// holds what the timeout does).
	s := commands.New(commands.Config{Work: e.fs, Home: e.home, Runner: confined(t), Timeout: time.Second})

	cmds, warnings := s.List()
	assert.Empty(t, warnings)
	require.Len(t, cmds, 12)
	byName := map[string]commands.Command{}
	for _, c := range cmds {
		assert.NoError(t, c.Err, c.Name)
		assert.NotEmpty(t, c.Description, c.Name)
		byName[c.Name] = c
	}
	act := byName["davila7:act"]
	assert.Equal(t, "Execute GitHub Actions locally using act", act.Description)
	assert.Equal(t, "[workflow-name]", act.ArgumentHint)
	assert.Equal(t, []string{"Read", "Edit", "Bash"}, act.AllowedTools)
	audit := byName["davila7:dependency-audit"]
	assert.Equal(t, "[scope] | --security | --licenses | --updates | --all", audit.ArgumentHint)
	assert.Equal(t, []string{"Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch"}, byName["wshobson:market-opportunity"].AllowedTools)
	assert.Equal(t, "<path-to-receipt.json>", byName["wshobson:verify-receipt"].ArgumentHint)

	const args = "--minor extra"
	expanded := 0
	for _, c := range cmds {
		ex, err := s.Expand(context.Background(), c.Name, args)
		if c.Name == "davila7:create-prp" {
			assert.ErrorIs(t, err, commands.ErrBashNotAllowed)
			continue
		}
		if !assert.NoError(t, err, c.Name) {
			continue
		}
		expanded++
		assert.NotContains(t, ex.Prompt, "$ARGUMENTS", c.Name)
		// Where $1 stands and $ARGUMENTS does not, only the first word shows.
		assert.Contains(t, ex.Prompt, "--minor", c.Name)
		for _, line := range strings.Split(ex.Prompt, "\n") {
			if strings.HasPrefix(line, "- ") {
				assert.NotContains(t, line, "!`", "%s: %s", c.Name, line)
			}
		}
	}
	assert.Equal(t, 11, expanded)
	t.Logf("%d of %d real command files expand", expanded, len(cmds))

	ex, err := s.Expand(context.Background(), "davila7:load-llms-txt", "xatu")
	require.NoError(t, err)
	// The network is off for confined commands.
	assert.Contains(t, ex.Prompt, "- Network access: ❌ Limited\n")
	assert.Contains(t, ex.Prompt, "Load external documentation context: xatu\n")
	assert.True(t, strings.HasSuffix(ex.Prompt, "<file path=\"package.json\">\n{\"name\": \"demo\"}\n</file>\n"), ex.Prompt)

	ex, err = s.Expand(context.Background(), "davila7:pac-configure", "demo")
	require.NoError(t, err)
	assert.Contains(t, ex.Prompt, "- PAC structure: \n")
	assert.Contains(t, ex.Prompt, "- Existing epics: 0\n")

	ex, err = s.Expand(context.Background(), "wshobson:verify-receipt", "./r.json")
	require.NoError(t, err)
	assert.Contains(t, ex.Prompt, "npx @veritasacta/verify \"./r.json\"\n")
	assert.Contains(t, ex.Prompt, "Where `./r.json` is the receipt path")
}
