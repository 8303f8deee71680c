package kernel_test

// Contract C3, one exit to the model: the tools a step offers the model are
// skills.ToSkillTools's, under the session's budget (C13: at most ToolsMax in
// tools mode; C23: recent loads first).

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
)

// exitTurn runs one turn of a new session on a kernel of cfg with a
// scripted model, and returns the tools of the model's first request that
// are named in names, in the order offered.
func exitTurn(t *testing.T, cfg kernel.Config, names []string, script ...modeltest.Step) []string {
	t.Helper()
	srv := modeltest.NewServer(t, script...)
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	cfg.Model = client
	k := ksNewKernel(t, cfg)
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "go")
	require.NoError(t, err)
	reqs := srv.Requests()
	require.NotEmpty(t, reqs, "the model was never asked")
	offered := []string{}
	for _, tl := range reqs[0].Tools {
		if slices.Contains(names, tl.Name) {
			offered = append(offered, tl.Name)
		}
	}
	return offered
}

// C3, C13: in tools mode a step offers the model the skill tools within
// skills.tools.max, the first in catalog order, and no more.
func TestStepOffersToolsModeSkillsWithinBudget(t *testing.T) {
	root := t.TempDir()
	names := []string{"d-skill", "a-skill", "c-skill", "b-skill"}
	for _, n := range names {
		budWriteSkill(t, root, n, "Does "+n+".", "Body of "+n+".")
	}
	cfg := kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{root}, Store: session.NewMemoryStore(),
		SkillsMode: skills.ModeTools, CatalogBudget: skills.Budget{ToolsMax: 2}}
	assert.Equal(t, []string{"a-skill", "b-skill"}, exitTurn(t, cfg, names, modeltest.Say("done")))

	cfg.CatalogBudget = skills.Budget{ToolsMax: -1}
	assert.Equal(t, []string{"a-skill", "b-skill", "c-skill", "d-skill"}, exitTurn(t, cfg, names, modeltest.Say("done")), "skills.tools.max below zero bounds nothing")
}

// C3, C23: in tools mode the one skill tool a budget of one leaves is the
// skill loaded most recently in this work dir, not the first by name: a
// step's tools come from the session's budget.
func TestStepOffersRecentSkillToolFirst(t *testing.T) {
	root, work, store := t.TempDir(), t.TempDir(), session.NewMemoryStore()
	names := []string{"a-skill", "b-skill"}
	for _, n := range names {
		budWriteSkill(t, root, n, "Does "+n+".", "Body of "+n+".")
	}
	cfg := kernel.Config{WorkDir: work, UserSkillRoots: []string{root}, Store: store}
	exitTurn(t, cfg, names, modeltest.Call(skills.SkillToolName, `{"name":"b-skill"}`), modeltest.Say("loaded"))

	cfg.SkillsMode, cfg.CatalogBudget = skills.ModeTools, skills.Budget{ToolsMax: 1}
	assert.Equal(t, []string{"b-skill"}, exitTurn(t, cfg, names, modeltest.Say("done")), "the recent load is the one tool offered")
}
