package kernel_test

// Contract C23: every skill reachable at a bounded catalog cost, in the step
// loop: skill_search finds a skill the budget left out, and recent loads are
// listed first in the next session.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
)

// reachHits returns the names a skill_search result lists, in order.
func reachHits(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, "- "); ok {
			name, _, _ := strings.Cut(rest, " (")
			out = append(out, name)
		}
	}
	return out
}

// C23 end to end: a skill the budget left out of the catalog is found by
// words of its description through skill_search and loaded by the skill
// tool, in one turn of the step loop.
func TestSkillSearchFindsOmittedSkillInTurn(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		budWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+".", "Body of skill "+fmt.Sprint(i)+".")
	}
	budWriteSkill(t, root, "zz-forms", "Fills in PDF forms and extracts the values of their fields.", "Body of the forms skill.")
	srv := modeltest.NewServer(t,
		modeltest.Call(skills.SearchToolName, `{"query":"fill a pdf form"}`),
		modeltest.Call(skills.SkillToolName, `{"name":"zz-forms"}`),
		modeltest.Say("done"))
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{root}, Store: session.NewMemoryStore(),
		Model: client, CatalogBudget: skills.Budget{Chars: 400}})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "fill the form in form.pdf")
	require.NoError(t, err)

	v := k.CatalogView(k.Catalog(t.Context()), k.CatalogBudget())
	require.Contains(t, v.Summary.Omitted, "zz-forms", "the test needs the skill left out of the catalog")
	assert.NotContains(t, v.Message, "zz-forms")
	assert.Contains(t, v.Message, "skill_search", "the catalog's note names the tool that finds the rest")
	var results []session.Event
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.ToolResult {
			results = append(results, ev)
		}
	}
	require.Len(t, results, 2)
	assert.False(t, results[0].IsError, results[0].Text)
	hits := reachHits(results[0].Text)
	require.NotEmpty(t, hits, results[0].Text)
	assert.Equal(t, "zz-forms", hits[0], "the omitted skill is the best match: %s", results[0].Text)
	assert.Contains(t, results[0].Text, "- zz-forms (user): Fills in PDF forms and extracts the values of their fields.")
	assert.False(t, results[1].IsError, results[1].Text)
	assert.Contains(t, results[1].Text, "Body of the forms skill.")
}

// reachKernel is a kernel over root's 40 skills (skill-00 … skill-39, in
// name order, so the budget of 400 characters omits the last ones) with a
// scripted model and the given store.
func reachKernel(t *testing.T, root, work string, store session.Store, logs *budLogs, script ...modeltest.Step) *kernel.Kernel {
	t.Helper()
	srv := modeltest.NewServer(t, script...)
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	cfg := kernel.Config{WorkDir: work, UserSkillRoots: []string{root}, Store: store, Model: client, CatalogBudget: skills.Budget{Chars: 400}}
	if logs != nil {
		cfg.Logger = slog.New(logs)
	}
	k, err := kernel.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	return k
}

func reachRoot(t *testing.T) string {
	root := t.TempDir()
	for i := range 40 {
		budWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+".", "Body of skill "+fmt.Sprint(i)+".")
	}
	return root
}

// reachTurn runs one turn of a new session and returns its first catalog
// message.
func reachTurn(t *testing.T, k *kernel.Kernel) string {
	t.Helper()
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "go")
	require.NoError(t, err)
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.Injected && ev.Provenance == catalog.Provenance {
			return ev.Text
		}
	}
	t.Fatal("no catalog message")
	return ""
}

// C23: after a skill is loaded, the next session in the same work dir lists
// it (after pinned and project skills, before the rest, most recent first),
// even when the budget left it out before; a session in another work dir
// sharing the store does not.
func TestCatalogRecentLoadsListedNextSession(t *testing.T) {
	root, work := reachRoot(t), t.TempDir()
	store := session.NewMemoryStore()
	k := reachKernel(t, root, work, store, nil,
		modeltest.Call("skill", `{"name":"skill-39"}`),
		modeltest.Call("skill", `{"name":"skill-38"}`),
		modeltest.Call("skill", `{"name":"no-such-skill"}`),
		modeltest.Say("done"),
		modeltest.Say("done again"))
	first := reachTurn(t, k)
	require.NotContains(t, first, "skill-39", "the test needs the skill omitted at first")

	next := reachTurn(t, k)
	assert.Contains(t, next, "<available_skills>\n- skill-38\n- skill-39\n- skill-00\n", "the recent loads come first, most recent first:\n%s", next)
	assert.NotContains(t, next, "no-such-skill", "a failed load is not remembered")

	v := k.CatalogView(k.Catalog(t.Context()), k.SessionBudget(t.Context()))
	require.GreaterOrEqual(t, len(v.Summary.Listed), 3)
	assert.Equal(t, []catalog.Listed{{Name: "skill-38", Why: "recent"}, {Name: "skill-39", Why: "recent"}, {Name: "skill-00", Why: "name"}}, v.Summary.Listed[:3])

	other := reachKernel(t, root, t.TempDir(), store, nil, modeltest.Say("elsewhere"))
	elsewhere := reachTurn(t, other)
	assert.NotContains(t, elsewhere, "skill-39", "a load in another work dir changes nothing here")
}

// reachBrokenStore is a store whose sessions cannot be listed.
type reachBrokenStore struct{ session.Store }

func (reachBrokenStore) List(context.Context) ([]session.Info, error) {
	return nil, errors.New("list sessions: disk on fire")
}

// C23 bad input: a store that cannot be read for recency leaves the
// catalog in name order, with one warning however many sessions open.
func TestCatalogRecentUnreadableStore(t *testing.T) {
	root, logs := reachRoot(t), &budLogs{}
	k := reachKernel(t, root, t.TempDir(), reachBrokenStore{session.NewMemoryStore()}, logs, modeltest.Say("one"), modeltest.Say("two"))
	byName := k.CatalogView(k.Catalog(t.Context()), k.CatalogBudget()).Message
	assert.Equal(t, byName, reachTurn(t, k))
	assert.Equal(t, byName, reachTurn(t, k))
	assert.Equal(t, 1, logs.count("falls back to name order"), "one warning: %v", logs.recs)
	assert.Equal(t, 1, logs.count("disk on fire"), "the warning says why: %v", logs.recs)
}
