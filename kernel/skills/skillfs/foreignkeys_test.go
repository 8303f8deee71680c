package skillfs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// claudeKeys are frontmatter keys Claude Code defines for its skills (and
// some common in published ones), none of which Helios uses.
var claudeKeys = []string{"argument-hint", "arguments", "when_to_use", "user-invocable", "model", "effort",
	"context", "agent", "hooks", "paths", "shell", "version", "type"}

// Protects: a skill written for Claude Code loads without a warning for
// each of Claude Code's keys (24 warnings after one install), the Agent
// Skills spec's own keys stay quiet as before, a key no one defines still
// warns, and `skills validate` still names every ignored key, as info.
func TestClaudeCodeKeysLoadQuietlyAndValidateNamesThem(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "review")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	fm := "name: review\ndescription: Reviews a change.\nlicense: MIT\ncompatibility: any\nmetadata:\n  a: b\nallowed-tools: Read\ndisable-model-invocation: false\n"
	for _, k := range claudeKeys {
		fm += k + ": x\n"
	}
	fm += "x-house-key: 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\n"+fm+"---\nBody.\n"), 0o644))

	for label, fsys := range bothFS {
		d := &skillfs.DirSource{FS: fsys, Source: "user", Roots: []string{root}}
		set, err := d.Skills(context.Background())
		require.NoError(t, err, label)
		require.Len(t, set.Skills, 1, label)
		assert.Equal(t, []string{filepath.Join(dir, "SKILL.md") + `: unknown frontmatter key "x-house-key"`}, messages(set.Warnings), label)
	}

	reports, err := skillfs.Validate(skillfs.OSFS{}, dir)
	require.NoError(t, err)
	require.Len(t, reports, 1)
	r := reports[0]
	assert.True(t, r.OK(), "%q", r.Errors)
	assert.Equal(t, []string{`unknown frontmatter key "x-house-key"`}, r.Warnings)
	require.Len(t, r.Info, len(claudeKeys), "%q", r.Info)
	for i, k := range claudeKeys {
		assert.True(t, strings.HasPrefix(r.Info[i], `frontmatter key "`+k+`" `), r.Info[i])
		assert.Contains(t, r.Info[i], "Helios ignores it")
	}
}
