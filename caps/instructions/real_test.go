package instructions_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/instructions"
)

// copyTree copies testdata/name (symlinks as symlinks) into a new project
// with .git, and returns it.
func copyTree(t *testing.T, name string) tree {
	t.Helper()
	tr := newTree(t, ".")
	src := filepath.Join("testdata", name)
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(tr.root, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	}))
	return tr
}

// TestRealVercelAgentSkills loads vercel-labs/agent-skills' own files as
// published (see testdata/ATTRIBUTION.md): the root AGENTS.md (its
// CLAUDE.md is a symlink to it, and is not read twice) reaches the model
// whole; the nested skills/composition-patterns/AGENTS.md arrives once a
// tool works in that folder.
func TestRealVercelAgentSkills(t *testing.T) {
	tr := copyTree(t, "vercel-agent-skills")
	root, err := os.ReadFile(filepath.Join(tr.root, "AGENTS.md"))
	require.NoError(t, err)
	nested, err := os.ReadFile(filepath.Join(tr.root, "skills/composition-patterns/AGENTS.md"))
	require.NoError(t, err)
	c := tr.open(t, 0)

	r := c.Load(context.Background())
	assert.Empty(t, r.Warnings)
	assert.Equal(t, []fileState{{"AGENTS.md", instructions.Included}}, states(r))
	assert.Equal(t, len(root), r.Files[0].Bytes)
	assert.Contains(t, r.Message, `<instructions path="AGENTS.md">`+"\n"+strings.TrimRight(string(root), "\n")+"\n</instructions>")
	assert.Equal(t, 1, strings.Count(r.Message, "## Repository Overview"))

	s := newStepper(t, c)
	require.Len(t, s.step(), 1)
	s.tool("Write", "skills/composition-patterns/rules/new-rule.md")
	got := s.step()
	require.Len(t, got, 1)
	assert.Contains(t, got[0], `<instructions path="skills/composition-patterns/AGENTS.md">`+"\n"+strings.TrimRight(string(nested), "\n")+"\n</instructions>")
	s.tool("Read", "skills/composition-patterns/AGENTS.md")
	assert.Empty(t, s.step())
}

// TestRealClaudeSkillsNested works in alirezarezvani/claude-skills, whose
// instructions are nested CLAUDE.md files only (see testdata/ATTRIBUTION.md):
// none at session start; editing a test under
// engineering-team/playwright-pro brings both folders' files, the farther
// first, each whole and once.
func TestRealClaudeSkillsNested(t *testing.T) {
	tr := copyTree(t, "claude-skills")
	team, err := os.ReadFile(filepath.Join(tr.root, "engineering-team/CLAUDE.md"))
	require.NoError(t, err)
	pw, err := os.ReadFile(filepath.Join(tr.root, "engineering-team/playwright-pro/CLAUDE.md"))
	require.NoError(t, err)
	s := newStepper(t, tr.open(t, 0))

	assert.Empty(t, s.step(), "no instructions at the root")
	s.tool("Edit", "engineering-team/playwright-pro/tests/login.spec.ts")
	got := s.step()
	require.Len(t, got, 1)
	a := strings.Index(got[0], `<instructions path="engineering-team/CLAUDE.md">`+"\n"+strings.TrimRight(string(team), "\n")+"\n</instructions>")
	b := strings.Index(got[0], `<instructions path="engineering-team/playwright-pro/CLAUDE.md">`+"\n"+strings.TrimRight(string(pw), "\n")+"\n</instructions>")
	require.GreaterOrEqual(t, a, 0)
	require.Greater(t, b, a)
	s.tool("Read", "engineering-team/playwright-pro/CLAUDE.md")
	assert.Empty(t, s.step())
}
