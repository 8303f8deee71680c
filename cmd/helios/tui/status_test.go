package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
)

// statusWorld is a model with everything the status line can show at
// once: a long model name and work dir, a catalog cut by its budget, the
// tokens of two requests and a running turn.
func statusWorld(t *testing.T) *Model {
	t.Helper()
	k := budgetKernel{newFakeKernel(), skills.Budget{Chars: 300}}
	m := newTestModel(t, Config{
		Kernel:      k,
		OpenSession: (&fakeSession{}).open,
		Model:       "claude-sonnet-4-5-20250929",
		WorkDir:     "/home/someone/projects/acme/services/payment-gateway/worker",
	})
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("skill-%02d", i))
	}
	k.set(tuiCat(true, names...))
	m.Update(m.fetchCatalog()())
	m.Update(updateMsg(kernel.Update{Kind: kernel.UpdateUsage, Usage: session.Usage{Input: 20_400, Output: 1_250, CacheRead: 9_000}}))
	m.busy = inTurn
	return m
}

// statusAt is the status line rendered w cells wide, without styling.
func statusAt(m *Model, w int) string { return ansi.Strip(m.renderStatus(w)) }

// Issue 36: at 80 columns and narrower the status line still shows the
// tokens and the work dir (its last folder at least), and it is exactly as
// wide as the terminal.
func TestStatusLineKeepsTokensAndWorkDir(t *testing.T) {
	m := statusWorld(t)
	full := statusAt(m, 1000)
	require.Contains(t, full, "model claude-sonnet-4-5-20250929", "the full line")
	require.Contains(t, full, "/home/someone/projects/acme/services/payment-gateway/worker", "the full line")
	for _, w := range []int{100, 80, 60, 40} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			s := statusAt(m, w)
			assert.Equal(t, w, ansi.StringWidth(s), "width of %q", s)
			line := strings.TrimRight(s, " ")
			assert.Contains(t, line, "20.4k", "tokens in: %q", line)
			assert.Contains(t, line, "1.2k", "tokens out: %q", line)
			assert.True(t, strings.HasSuffix(line, "/worker"), "the work dir's last folder is not shown whole: %q", line)
			assert.Contains(t, line, "working…", "the running turn: %q", line)
			if w >= 80 {
				assert.Contains(t, line, "tokens 20.4k in", "tokens at %d columns: %q", w, line)
				assert.Contains(t, line, "40 skills", "skills at %d columns: %q", w, line)
				assert.Contains(t, line, "/home/", "the work dir's start at %d columns: %q", w, line)
			}
			if w >= 100 {
				assert.Contains(t, line, "36 omitted", "the budget at %d columns: %q", w, line)
			}
		})
	}
}

// Issue 36: what is shortened first: the model name, then the middle of
// the work dir; the rest only when that is not enough.
func TestStatusLineShortensModelFirst(t *testing.T) {
	m := statusWorld(t)
	full := strings.TrimRight(statusAt(m, 1000), " ")
	n := ansi.StringWidth(full)

	s := statusAt(m, n-5)
	assert.Contains(t, s, "model claude-sonnet-4…", "the model name is not the first thing shortened: %q", s)
	assert.Contains(t, s, "/home/someone/projects/acme/services/payment-gateway/worker", "the work dir is cut before it had to be: %q", s)
	assert.Contains(t, s, "tokens 20.4k in (44% cached) · 1.2k out", "the tokens are cut before they had to be: %q", s)

	s = statusAt(m, n-30)
	assert.Contains(t, s, "model claude-sonnet-4…", "%q", s)
	assert.NotContains(t, s, "/home/someone/projects/acme/services/payment-gateway/worker", "the work dir is not cut: %q", s)
	assert.Regexp(t, ` /home/\S*…\S*/worker *$`, s, "the work dir is not cut in its middle")
	assert.Contains(t, s, "catalog complete", "a part was dropped before the work dir was cut: %q", s)
	assert.Contains(t, s, "working… (Esc cancels)", "a part was shortened before the work dir was cut: %q", s)

	// A line that fits is left whole.
	assert.Equal(t, full, strings.TrimRight(statusAt(m, n), " "))
}

// Issue 36: an untrusted work dir config with a model in it: the banner
// says the config was ignored and how to trust it, never that no model is
// configured.
func TestTUIUntrustedConfigBanner(t *testing.T) {
	m := newTestModel(t, Config{
		Kernel:        newFakeKernel(),
		ModelErr:      fmt.Errorf("open session: %w", errors.New("no model configured")),
		ConfigIgnored: true,
		Notices:       []string{"ignoring /w/helios.config.json: it is not trusted yet. Read the file, then trust it with: helios trust /w"},
	})
	s := tuiScreen(m)
	assert.Contains(t, s, "config was IGNORED because it is untrusted", "banner: %s", s)
	assert.Contains(t, s, "trust it with `helios trust`", "banner: %s", s)
	assert.NotContains(t, strings.ToLower(s), "no model configured", "banner: %s", s)
	assert.NotContains(t, strings.ToLower(s), "no model is configured", "banner: %s", s)

	tuiType(m, "hello")
	tuiPress(m, tea.KeyEnter)
	s = tuiScreen(m)
	assert.Contains(t, s, "No model, so nothing was sent. No model: the work dir's config was IGNORED", "refusal: %s", s)
}

// Issue 36: /skill: completion matches anywhere in the name, case
// insensitively, the names it starts first.
func TestTUICompletionMatchesInsideNames(t *testing.T) {
	k := newFakeKernel()
	m := newTestModel(t, Config{Kernel: k})
	k.set(tuiCat(true, "alpha", "calibrate", "libfuzzer", "something-lib", "zlib"))
	m.Update(m.fetchCatalog()())

	tuiType(m, "/skill:fuzz")
	tuiWantSuggestions(t, m, "libfuzzer")
	tuiSetDraft(m, "/skill:lib")
	tuiWantSuggestions(t, m, "libfuzzer", "calibrate", "something-lib", "zlib")
	tuiSetDraft(m, "/skill:LIB")
	tuiWantSuggestions(t, m, "libfuzzer", "calibrate", "something-lib", "zlib")
	tuiSetDraft(m, "/skill:")
	tuiWantSuggestions(t, m, "alpha", "calibrate", "libfuzzer", "something-lib", "zlib")
	tuiSetDraft(m, "/skill:nothing")
	tuiWantSuggestions(t, m)

	// Enter on the highlighted inside match loads that skill.
	tuiSetDraft(m, "/skill:fuzz")
	assert.True(t, m.popupVisible(), "popup for an inside match")
}
