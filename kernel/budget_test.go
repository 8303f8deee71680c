package kernel_test

// Contract C13: the catalog budget in the kernel: the digest of the
// budgeted text, and one warning per change of outcome.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

func budSkill(name, source, desc string) skills.Skill {
	return skills.Skill{Name: name, Source: source, Description: desc, BaseDir: "/s/" + source + "/" + name,
		Load: func(context.Context) (skills.Content, error) {
			return skills.Content{Name: name, Body: "Body of " + name + "."}, nil
		}}
}

// C13: the digest covers the budgeted message: a change the model cannot
// see sends nothing, and a change in how many are omitted sends a
// replacement.
func TestCatalogBudgetDigestOverBudgetedText(t *testing.T) {
	var ss []skills.Skill
	for i := range 30 {
		ss = append(ss, budSkill(fmt.Sprintf("s%02d", i), skills.SourceProject, "Does one thing."))
	}
	b := skills.Budget{Chars: 280}
	l := injLog(t)
	inj := kernel.InjectCatalogWithin(l, injCatalog(true, ss...), true, b)
	require.True(t, inj.Append)
	_, err := l.Append(context.Background(), inj.Event)
	require.NoError(t, err)
	v := catalog.Render(ss, b, catalog.MessageFrame())
	require.NotEmpty(t, v.Summary.Omitted)
	assert.Equal(t, v.Message, inj.Event.Text, "the injected message is the budgeted one")

	edited := slices.Clone(ss)
	edited[len(edited)-1].Description = "An omitted skill, described anew."
	injWant(t, kernel.InjectCatalogWithin(l, injCatalog(true, edited...), true, b), false, "unchanged")

	more := append(slices.Clone(ss), budSkill("s99", skills.SourceProject, "Yet another."))
	got := kernel.InjectCatalogWithin(l, injCatalog(true, more...), true, b)
	injWant(t, got, true, "replacement")
	assert.Contains(t, got.Event.Text, fmt.Sprintf("%d more skills", len(v.Summary.Omitted)+1))
}

// budLogs collects log records.
type budLogs struct {
	mu   sync.Mutex
	recs []string
}

func (h *budLogs) Enabled(context.Context, slog.Level) bool { return true }

func (h *budLogs) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
	h.mu.Lock()
	h.recs = append(h.recs, b.String())
	h.mu.Unlock()
	return nil
}

func (h *budLogs) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h *budLogs) WithGroup(string) slog.Handler { return h }

func (h *budLogs) count(sub string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.recs {
		if strings.Contains(r, sub) {
			n++
		}
	}
	return n
}

// C13: the kernel tells a person once per change of outcome, not at every
// step, and says when the catalog fits again.
func TestCatalogBudgetWarnedOncePerChange(t *testing.T) {
	root := t.TempDir()
	for i := range 12 {
		budWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+".", "body")
	}
	logs := &budLogs{}
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{root}, Store: session.NewMemoryStore(),
		CatalogBudget: skills.Budget{Chars: 350}, Logger: slog.New(logs)})
	require.NoError(t, err)
	defer k.Close()
	ctx := context.Background()
	for range 3 {
		v := k.CatalogView(k.Catalog(ctx), k.CatalogBudget())
		require.True(t, v.Cut())
	}
	assert.Equal(t, 1, logs.count("cut to fit its budget"), "one warning for one outcome: %v", logs.recs)

	budWriteSkill(t, root, "skill-99", "One more.", "body")
	k.Skills().Snapshot(ctx) // the folders are read at every snapshot (no watcher)
	k.CatalogView(k.Catalog(ctx), k.CatalogBudget())
	k.CatalogView(k.Catalog(ctx), k.CatalogBudget())
	assert.Equal(t, 2, logs.count("cut to fit its budget"), "a new outcome, a new warning: %v", logs.recs)

	for i := range 13 {
		name := fmt.Sprintf("skill-%02d", i)
		if i == 12 {
			name = "skill-99"
		}
		require.NoError(t, os.RemoveAll(filepath.Join(root, name)))
	}
	k.CatalogView(k.Catalog(ctx), k.CatalogBudget())
	assert.Equal(t, 1, logs.count("fits its budget again"), "%v", logs.recs)
}

// C13 end to end: over a turn of several steps the model gets the budgeted
// catalog message once, loads a skill the budget omitted by its exact name,
// and the log says what was cut once, not at every step.
func TestCatalogBudgetTurnLogsOnceAndLoadsOmitted(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		budWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+".", "Body of skill "+fmt.Sprint(i)+".")
	}
	srv := modeltest.NewServer(t,
		modeltest.Call("skill", `{"name":"skill-39"}`),
		modeltest.Call("skill", `{"name":"skill-38"}`),
		modeltest.Say("done"))
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	logs := &budLogs{}
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{root}, Store: session.NewMemoryStore(),
		Model: client, CatalogBudget: skills.Budget{Chars: 400}, Logger: slog.New(logs)})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "go")
	require.NoError(t, err)

	v := k.CatalogView(k.Catalog(t.Context()), k.CatalogBudget())
	require.Contains(t, v.Summary.Omitted, "skill-39")
	var catalogs, loaded int
	for i := range s.Log().Len() {
		ev := s.Log().At(i)
		switch {
		case ev.Type == session.Injected && ev.Provenance == catalog.Provenance:
			catalogs++
			assert.Equal(t, v.Message, ev.Text)
		case ev.Type == session.ToolResult && !ev.IsError && strings.Contains(ev.Text, "Body of skill 3"):
			loaded++
		}
	}
	assert.Equal(t, 1, catalogs, "the unchanged catalog is sent once")
	assert.Equal(t, 2, loaded, "both omitted skills loaded by name")
	assert.Equal(t, 1, logs.count("cut to fit its budget"), "one warning over three steps: %v", logs.recs)
}

// budWriteSkill writes root/name/SKILL.md with name, description desc and
// body, and returns its path.
func budWriteSkill(t *testing.T, root, name, desc, body string) string {
	t.Helper()
	p := filepath.Join(root, name, "SKILL.md")
	ksWriteFile(t, p, ksSkillMD("name: "+name+"\ndescription: "+desc, body))
	return p
}
