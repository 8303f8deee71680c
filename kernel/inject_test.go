package kernel_test

// Contract C7: catalog injection into the session log.

import (
	"context"
	"iter"
	"testing"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func injSkill(name, desc string) skills.Skill {
	return skills.Skill{Name: name, Description: desc, Source: "project", BaseDir: "/w/" + name}
}

func injCatalog(complete bool, ss ...skills.Skill) skills.Catalog {
	return skills.Catalog{Skills: ss, Complete: complete}
}

// injLog is a real log (the in-memory store passes the same conformance
// suite as the durable one).
func injLog(t *testing.T) session.Log {
	t.Helper()
	l, err := session.NewMemoryStore().Create(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// injStep runs the injector once, appending what it decides, and returns it.
func injStep(t *testing.T, l session.Log, cat skills.Catalog, hasTool bool) kernel.Injection {
	t.Helper()
	inj := kernel.InjectCatalog(l, cat, hasTool)
	if inj.Append {
		_, err := l.Append(context.Background(), inj.Event)
		require.NoError(t, err)
	}
	return inj
}

func injAppend(t *testing.T, l session.Log, evs ...session.Event) {
	t.Helper()
	_, err := l.Append(context.Background(), evs...)
	require.NoError(t, err)
}

func injWant(t *testing.T, got kernel.Injection, appended bool, reason string) {
	t.Helper()
	assert.Equal(t, appended, got.Append, "injection = append %v (%s), want append %v (%s)", got.Append, got.Reason, appended, reason)
	assert.Equal(t, reason, got.Reason, "injection = append %v (%s), want append %v (%s)", got.Append, got.Reason, appended, reason)
}

// C7: the life of a catalog in one session, case by case.
func TestInjectCatalogCases(t *testing.T) {
	a, b := injSkill("alpha", "First."), injSkill("beta", "Second.")
	l := injLog(t)

	// Empty and never published: nothing.
	injWant(t, injStep(t, l, injCatalog(true), true), false, "empty, never published")
	// Incomplete: nothing, even though it has skills.
	injWant(t, injStep(t, l, injCatalog(false, a), true), false, "incomplete")
	// No skill tool (restricted, shadowed, or tools mode): nothing.
	injWant(t, injStep(t, l, injCatalog(true, a), false), false, "no skill tool")
	require.Zero(t, l.Len(), "log has %d events, want 0", l.Len())

	// First complete non-empty: published as a persistent injected message.
	first := injStep(t, l, injCatalog(true, a), true)
	injWant(t, first, true, "first")
	ev := l.At(l.Len() - 1)
	assert.Equal(t, session.Injected, ev.Type, "published event = %+v", ev)
	assert.Equal(t, catalog.Provenance, ev.Provenance, "published event = %+v", ev)
	assert.NotEmpty(t, ev.Meta[catalog.DigestKey], "published event = %+v", ev)
	assert.Contains(t, ev.Text, "<available_skills>\n- alpha: First.\n</available_skills>", "catalog text")

	// Same catalog: nothing. Incomplete later: nothing (the last complete
	// view stays).
	injWant(t, injStep(t, l, injCatalog(true, a), true), false, "unchanged")
	injAppend(t, l, session.Event{Type: session.User, Text: "hi"})
	injWant(t, injStep(t, l, injCatalog(false), true), false, "incomplete")

	// Digest changed: a full replacement.
	injWant(t, injStep(t, l, injCatalog(true, a, b), true), true, "replacement")
	assert.Contains(t, l.At(l.Len()-1).Text, "- alpha: First.\n- beta: Second.\n", "replacement, want the full list")

	// All gone: an explicit empty catalog (tombstone), once.
	injWant(t, injStep(t, l, injCatalog(true), true), true, "tombstone")
	assert.Contains(t, l.At(l.Len()-1).Text, "<available_skills>\n</available_skills>", "tombstone")
	injWant(t, injStep(t, l, injCatalog(true), true), false, "unchanged")
}

// C7: when compaction hides every catalog, the next complete observation
// re-establishes the current one — a tombstone too.
func TestInjectCatalogReestablishedAfterCompaction(t *testing.T) {
	a := injSkill("alpha", "First.")
	for _, tc := range []struct {
		name    string
		current skills.Catalog
		want    string
	}{
		{"non-empty", injCatalog(true, a), "- alpha: First."},
		{"tombstone", injCatalog(true), "<available_skills>\n</available_skills>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := injLog(t)
			injAppend(t, l, session.Event{Type: session.User, Text: "start"})
			injStep(t, l, injCatalog(true, a), true)
			if tc.current.Skills == nil {
				injStep(t, l, tc.current, true) // the tombstone is published
			}
			injAppend(t, l, session.Event{Type: session.Assistant, Text: "working"})
			// A compaction hides everything so far, catalogs included.
			last := l.At(l.Len() - 1).Seq
			injAppend(t, l, session.Event{Type: session.Compaction, From: 1, To: last, Text: "summary"})
			for _, e := range session.ModelView(l) {
				require.NotEqual(t, session.Injected, e.Type, "a catalog is still visible after compaction: %+v", e)
			}
			got := injStep(t, l, tc.current, true)
			injWant(t, got, true, "re-established")
			assert.Contains(t, got.Event.Text, tc.want, "re-established text")
			// Visible again: nothing more.
			injWant(t, injStep(t, l, tc.current, true), false, "unchanged")
		})
	}
}

// C7: the digest covers the exact text between the tags — names and
// descriptions only, with hidden skills left out — so a body-only edit
// never causes a message.
func TestInjectCatalogDigestOverVisibleText(t *testing.T) {
	l := injLog(t)
	a := injSkill("alpha", "First.")
	a.Load = func(context.Context) (skills.Content, error) { return skills.Content{Name: "alpha", Body: "v1"}, nil }
	injStep(t, l, injCatalog(true, a), true)
	edited := a
	edited.Load = func(context.Context) (skills.Content, error) {
		return skills.Content{Name: "alpha", Body: "v2, rewritten"}, nil
	}
	edited.File = "/elsewhere/SKILL.md"
	injWant(t, injStep(t, l, injCatalog(true, edited), true), false, "unchanged")

	hidden := injSkill("deploy", "Deploy.")
	hidden.DisableModelInvocation = true
	injWant(t, injStep(t, l, injCatalog(true, a, hidden), true), false, "unchanged")
	assert.NotContains(t, l.At(l.Len()-1).Text, "deploy", "a skill hidden from the model is in the catalog")
}

// injCountingLog counts the events a Backward scan reads.
type injCountingLog struct {
	session.Log
	read int
}

func (c *injCountingLog) Backward() iter.Seq[session.Event] {
	return func(yield func(session.Event) bool) {
		for ev := range c.Log.Backward() {
			c.read++
			if !yield(ev) {
				return
			}
		}
	}
}

// C7: the scan goes backwards and stops at the newest visible catalog.
func TestInjectCatalogScanStopsAtNewestVisible(t *testing.T) {
	l := injLog(t)
	for range 500 {
		injAppend(t, l, session.Event{Type: session.User, Text: "old"})
	}
	injStep(t, l, injCatalog(true, injSkill("alpha", "First.")), true)
	for range 5 {
		injAppend(t, l, session.Event{Type: session.Assistant, Text: "new"})
	}
	c := &injCountingLog{Log: l}
	injWant(t, kernel.InjectCatalog(c, injCatalog(true, injSkill("alpha", "First.")), true), false, "unchanged")
	assert.Equal(t, 6, c.read, "scan read %d events, want 6 (stop at the newest visible catalog)", c.read)
}
