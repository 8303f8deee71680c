package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: an incomplete catalog keeps the previous complete completions
// (a transient read error is no proof that skills are gone) while the
// status line says the catalog is incomplete.
func TestTUICatalogIncompleteKeepsCompletions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		incomplete skills.Catalog
	}{
		{"incomplete and empty", tuiCat(false)},
		{"incomplete and partial", tuiCat(false, "alpha")},
		{"incomplete with a new name", tuiCat(false, "alpha", "gamma")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newFakeKernel()
			m := newTestModel(t, Config{Kernel: k})
			k.set(tuiCat(true, "alpha", "beta"))
			m.Update(m.fetchCatalog()())
			tuiType(m, "/skill:")
			tuiWantSuggestions(t, m, "alpha", "beta")

			k.set(tc.incomplete)
			m.Update(m.fetchCatalog()())
			tuiWantSuggestions(t, m, "alpha", "beta")
			assert.True(t, slices.Equal(tuiSkillNames(m.cat.skills), []string{"alpha", "beta"}), "catalog after an incomplete result; want the last complete one")
			s := tuiScreen(m)
			assert.Contains(t, s, "2 skills", "status line does not say 2 skills, catalog incomplete")
			assert.Contains(t, s, "catalog incomplete", "status line does not say 2 skills, catalog incomplete")

			// The next complete result applies again.
			k.set(tuiCat(true, "beta"))
			m.Update(m.fetchCatalog()())
			tuiWantSuggestions(t, m, "beta")
			assert.Contains(t, tuiScreen(m), "catalog complete", "status line does not say catalog complete")
		})
	}
}

// Protects: a complete empty catalog is authoritative: it clears the stale
// completions (and /skills says there are none).
func TestTUICatalogCompleteEmptyClears(t *testing.T) {
	k := newFakeKernel()
	m := newTestModel(t, Config{Kernel: k})
	k.set(tuiCat(true, "alpha", "beta"))
	m.Update(m.fetchCatalog()())
	tuiType(m, "/skill:")
	tuiWantSuggestions(t, m, "alpha", "beta")

	k.set(tuiCat(true))
	m.Update(m.fetchCatalog()())
	tuiWantSuggestions(t, m)
	assert.False(t, m.popupVisible(), "popup still open with no skills")
	assert.Equal(t, "/skill:", m.input.Value(), "draft; want it untouched")
	tuiSetDraft(m, "/skills")
	tuiPress(m, tea.KeyEnter)
	s := tuiScreen(m)
	assert.Contains(t, s, "No skills.", "screen after /skills does not say there are none")
	assert.Contains(t, s, "0 skills", "screen after /skills does not say there are none")
}

// Protects: the newest fetch wins: when two refreshes finish out of order,
// the older result arriving late is dropped, whatever it holds.
func TestTUICatalogNewestWinsOutOfOrder(t *testing.T) {
	for _, tc := range []struct {
		name         string
		older, newer skills.Catalog
		want         []string
	}{
		{"older has fewer", tuiCat(true, "alpha"), tuiCat(true, "alpha", "beta"), []string{"alpha", "beta"}},
		{"older has more", tuiCat(true, "alpha", "beta"), tuiCat(true, "alpha"), []string{"alpha"}},
		{"newer is empty", tuiCat(true, "alpha"), tuiCat(true), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newFakeKernel()
			m := newTestModel(t, Config{Kernel: k})
			tuiType(m, "/skill:")
			first, second := m.fetchCatalog(), m.fetchCatalog()
			k.set(tc.older)
			older := first()
			k.set(tc.newer)
			newer := second()

			m.Update(newer)
			tuiWantSuggestions(t, m, tc.want...)
			m.Update(older) // finished late
			tuiWantSuggestions(t, m, tc.want...)
			assert.True(t, slices.Equal(tuiSkillNames(m.cat.skills), tc.want), "catalog; want %v", tc.want)
		})
	}

	t.Run("in order, the later applies", func(t *testing.T) {
		k := newFakeKernel()
		m := newTestModel(t, Config{Kernel: k})
		tuiType(m, "/skill:")
		k.set(tuiCat(true, "alpha"))
		m.Update(m.fetchCatalog()())
		k.set(tuiCat(true, "alpha", "beta"))
		m.Update(m.fetchCatalog()())
		tuiWantSuggestions(t, m, "alpha", "beta")
	})
}

// Protects: the draft-open race: a catalog arriving while a slash-command
// name is being typed recomputes the suggestions for that draft, keeps the
// highlighted one when it survives, and never touches the draft or its
// cursor.
func TestTUICatalogArrivesWhileTypingKeepsDraft(t *testing.T) {
	k := newFakeKernel()
	m := newTestModel(t, Config{Kernel: k})
	k.set(tuiCat(true, "alpha", "alps", "beta"))
	m.Update(m.fetchCatalog()())
	tuiType(m, "/skill:al")
	tuiPress(m, tea.KeyLeft) // the cursor is not at the end
	tuiPress(m, tea.KeyDown) // highlight alps
	tuiWantSuggestions(t, m, "alpha", "alps")
	pos := m.input.Position()

	k.set(tuiCat(true, "aleph", "alpha", "alps", "beta"))
	m.Update(m.fetchCatalog()())
	tuiWantSuggestions(t, m, "aleph", "alpha", "alps")
	got := m.input.Value()
	assert.Equal(t, "/skill:al", got, "draft = %q; want %q untouched", got, "/skill:al")
	assert.Equal(t, pos, m.input.Position(), "cursor")
	s, _ := m.pop.selected()
	assert.Equal(t, "alps", s.name, "highlighted %q; want alps kept", s.name)

	// The highlighted skill disappears: the highlight falls back to the top.
	k.set(tuiCat(true, "alpha", "beta"))
	m.Update(m.fetchCatalog()())
	tuiWantSuggestions(t, m, "alpha")
	got = m.input.Value()
	assert.Equal(t, "/skill:al", got, "draft = %q; want %q untouched", got, "/skill:al")
	s, _ = m.pop.selected()
	assert.Equal(t, "alpha", s.name, "highlighted %q; want alpha", s.name)
}

// Protects: nothing is applied after close — not a catalog, not a session
// update, not a key — the change listener is gone, and a fetch started
// before close does not reach the kernel; the opened session is closed.
func TestTUINoUpdateAfterClose(t *testing.T) {
	for _, how := range []string{"Close", "Ctrl-C", "/quit"} {
		t.Run(how, func(t *testing.T) {
			k := newFakeKernel()
			k.loads["alpha"] = "alpha's load text"
			sess := &fakeSession{id: "s-1"}
			m := newTestModel(t, Config{Kernel: k, OpenSession: sess.open})
			k.set(tuiCat(true, "alpha"))
			m.Update(m.fetchCatalog()())
			m.Update(m.rt.loadSkill("alpha", true)()) // opens the session
			tuiType(m, "/skill:")
			pending := m.fetchCatalog()
			calls := k.calls()

			switch how {
			case "Close":
				res, err := m.Close()
				require.NoError(t, err, "Close = %+v; want the session's ID", res)
				require.Equal(t, "s-1", res.SessionID, "Close = %+v; want the session's ID", res)
			case "Ctrl-C":
				_, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
				tuiWantQuit(t, cmd)
			case "/quit":
				tuiSetDraft(m, "/quit")
				_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
				tuiWantQuit(t, cmd)
			}
			entries, draft, sugg := len(m.entries), m.input.Value(), slices.Clone(m.pop.items)
			n := k.listeners()
			assert.Zero(t, n, "%d change listener(s) still registered", n)
			k.signal() // must not reach the closed UI
			assert.Equal(t, nil, pending(), "fetch after close returned a message")
			assert.Equal(t, calls, k.calls(), "the kernel was asked for a catalog after close")

			for _, msg := range []tea.Msg{
				catalogMsg{seq: 99, cat: tuiCat(true, "alpha", "zulu")},
				catalogMsg{seq: 100, cat: tuiCat(true)},
				updateMsg{Kind: kernel.UpdateText, Text: "late"},
				turnDoneMsg{err: errors.New("late")},
				skillLoadedMsg{name: "zulu", text: "late"},
				skillsChangedMsg{},
				tea.KeyPressMsg{Code: 'x', Text: "x"},
			} {
				_, cmd := m.Update(msg)
				assert.Nil(t, cmd, "Update(%T) after close returned a command", msg)
			}
			assert.True(t, slices.Equal(tuiSkillNames(m.cat.skills), []string{"alpha"}), "catalog after close")
			if assert.Len(t, m.entries, entries, "state changed after close: %d entries (want %d), draft %q (want %q), suggestions %v (want %v)", len(m.entries), entries, m.input.Value(), draft, m.pop.items, sugg) {
				assert.Equal(t, draft, m.input.Value(), "state changed after close: %d entries (want %d), draft %q (want %q), suggestions %v (want %v)", len(m.entries), entries, m.input.Value(), draft, m.pop.items, sugg)
				assert.True(t, slices.Equal(m.pop.items, sugg), "state changed after close: %d entries (want %d), draft %q (want %q), suggestions %v (want %v)", len(m.entries), entries, m.input.Value(), draft, m.pop.items, sugg)
			}
			_, err := m.Close()
			require.NoError(t, err)
			assert.True(t, sess.isClosed(), "session not closed")
		})
	}
}

// Protects: the bare change signal starts a fetch with the next sequence
// number; a burst of signals is one pending signal.
func TestTUIChangeSignalRefetches(t *testing.T) {
	k := newFakeKernel()
	m := newTestModel(t, Config{Kernel: k})
	k.signal()
	k.signal()
	k.signal()
	msg := m.rt.waitChange()()
	_, ok := msg.(skillsChangedMsg)
	require.True(t, ok, "waitChange = %#v", msg)
	select {
	case <-m.rt.changed:
		t.Errorf("a burst of signals left more than one pending")
	default:
	}
	before := m.cat.requested
	_, cmd := m.Update(msg)
	require.NotNil(t, cmd, "no command after a change signal")
	assert.Equal(t, before+1, m.cat.requested, "requested")
}

// Protects: /skill:<name> with a model loads the skill's exact load text
// into the session on the user's behalf (provenance user:/skill), opening
// the session on first use, and shows it compactly; the user keeps typing.
func TestTUISkillLoadInjects(t *testing.T) {
	k := newFakeKernel()
	k.loads["alpha"] = "Base directory for this skill: /s/alpha\n\nline 1\nline 2\n"
	sess := &fakeSession{id: "s-7"}
	m := newTestModel(t, Config{Kernel: k, OpenSession: sess.open, Model: "m1"})
	k.set(tuiCat(true, "alpha", "beta"))
	m.Update(m.fetchCatalog()())

	tuiType(m, "/skill:al")
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	require.NotNil(t, cmd, "Enter on the popup: cmd %v, draft %q; want a load and an empty draft", cmd, m.input.Value())
	require.Empty(t, m.input.Value(), "Enter on the popup: cmd %v, draft %q; want a load and an empty draft", cmd, m.input.Value())
	m.Update(cmd())
	want := []string{SkillProvenance + "|" + k.loads["alpha"]}
	assert.Empty(t, cmp.Diff(want, sess.injectedTexts()), "injected (-want +got)")
	s := tuiScreen(m)
	for _, part := range []string{"/skill:alpha loaded into the conversation", "line 1", "model m1"} {
		assert.Contains(t, s, part, "screen lacks %q:\n%s", part, s)
	}

	// An unknown name is an error on screen, and nothing is injected.
	k.loadErr = fmt.Errorf("%w %q (did you mean alpha?)", kernel.ErrUnknownSkill, "alpah")
	tuiSetDraft(m, "/skill:alpah ")
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(cmd())
	assert.Contains(t, tuiScreen(m), "did you mean alpha?", "screen lacks the unknown-skill error")
	assert.Len(t, sess.injectedTexts(), 1, "injections")
}

// Protects: with no model the UI opens with a banner naming what to set,
// skills still list and load (shown, not sent), and a prompt is refused
// without losing the way out.
func TestTUINoModel(t *testing.T) {
	k := newFakeKernel()
	k.loads["alpha"] = "Base directory for this skill: /s/alpha\n\nbody\n"
	noModel := errors.New(`open session: no model configured: set "model": {"baseURL": ..., "name": ...} in helios.config.json`)
	m := newTestModel(t, Config{Kernel: k, ModelErr: noModel})
	k.set(tuiCat(true, "alpha"))
	m.Update(m.fetchCatalog()())
	s := tuiScreen(m)
	assert.Contains(t, s, `no model configured: set "model"`, "banner missing or not the config error")
	assert.NotContains(t, s, "open session:", "banner missing or not the config error")
	assert.Contains(t, s, "no model", "banner missing or not the config error")

	tuiType(m, "hello")
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	assert.Nil(t, cmd, "a prompt without a model started a command")
	assert.Contains(t, tuiScreen(m), "No model, so nothing was sent.", "screen lacks the refusal")

	tuiSetDraft(m, "/skill:alpha")
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(cmd())
	s = tuiScreen(m)
	assert.Contains(t, s, "/skill:alpha shown here only: no model", "skill not shown")
	assert.Contains(t, s, "body", "skill not shown")
}

// Protects: a turn streams: text deltas join one answer, each tool call and
// its outcome is one compact line, and the turn's end arrives after its
// updates; Esc cancels a running turn.
func TestTUITurnStreams(t *testing.T) {
	k := newFakeKernel()
	sess := &fakeSession{id: "s-2", run: func(ctx context.Context, obs func(kernel.Update), prompt string) error {
		obs(kernel.Update{Kind: kernel.UpdateText, Text: "Look"})
		obs(kernel.Update{Kind: kernel.UpdateText, Text: "ing."})
		call := model.ToolCall{ID: "c1", Name: "Bash", Arguments: []byte(`{"command":"ls"}`)}
		obs(kernel.Update{Kind: kernel.UpdateToolCall, Call: call})
		obs(kernel.Update{Kind: kernel.UpdateToolResult, Call: call, Text: "a\nb\n"})
		obs(kernel.Update{Kind: kernel.UpdateToolResult, Call: call, Text: "no such file", IsError: true})
		obs(kernel.Update{Kind: kernel.UpdateText, Text: "Done."})
		return nil
	}}
	m := newTestModel(t, Config{Kernel: k, OpenSession: sess.open})
	tuiType(m, "list files")
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	require.Equal(t, inTurn, m.busy, "not busy after a prompt")
	require.Equal(t, nil, cmd(), "turn command returned a message; want its results through the event channel")
	tuiDrain(t, m)
	assert.Equal(t, idle, m.busy, "still busy after the turn")
	var got []string
	for _, e := range m.entries {
		got = append(got, ansi.Strip(renderEntry(e, 80)))
	}
	want := []string{
		"› list files",
		"Looking.",
		`→ Bash {"command":"ls"}`,
		"  ✓ 2 line(s): a b",
		"  ✗ error: no such file",
		"Done.",
	}
	assert.Empty(t, cmp.Diff(want, got), "conversation (-want +got)")

	// Esc cancels a running turn.
	started := make(chan struct{})
	sess.run = func(ctx context.Context, _ func(kernel.Update), _ string) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}
	tuiType(m, "wait")
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	go cmd()
	<-started
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	tuiDrain(t, m)
	assert.Contains(t, tuiScreen(m), "Cancelled.", "screen lacks the cancellation")
}

// Protects: the popup's keys: "/" offers the commands, Tab completes the
// highlighted one, arrows move (wrapping), each skill row shows its
// description, Esc closes the popup until the draft changes.
func TestTUIPopupKeys(t *testing.T) {
	k := newFakeKernel()
	m := newTestModel(t, Config{Kernel: k})
	k.set(tuiCat(true, "beta", "alpha", "gamma"))
	m.Update(m.fetchCatalog()())

	tuiType(m, "/sk")
	tuiWantSuggestions(t, m, "/skill:<name>", "/skills")
	tuiPress(m, tea.KeyTab)
	got := m.input.Value()
	require.Equal(t, "/skill:", got, "Tab completed to %q; want /skill:", got)
	tuiWantSuggestions(t, m, "alpha", "beta", "gamma")
	assert.NotEmpty(t, tuiLine(tuiScreen(m), "alpha", "About alpha."), "popup row lacks the description")
	tuiPress(m, tea.KeyUp) // wraps to the last
	s, _ := m.pop.selected()
	assert.Equal(t, "gamma", s.name, "up from the top highlighted %q; want gamma", s.name)
	tuiPress(m, tea.KeyDown)
	tuiPress(m, tea.KeyDown)
	tuiPress(m, tea.KeyTab)
	got = m.input.Value()
	assert.Equal(t, "/skill:beta", got, "Tab completed to %q; want /skill:beta", got)

	tuiSetDraft(m, "/skill:")
	tuiPress(m, tea.KeyEscape)
	assert.False(t, m.popupVisible(), "popup open after Esc")
	tuiType(m, "g")
	assert.True(t, m.popupVisible(), "popup closed after typing on")
	tuiWantSuggestions(t, m, "gamma")
}

// Protects: /help and unknown commands answer on screen; a draft that is
// not a command goes nowhere without a model but is not a command error.
func TestTUISlashCommands(t *testing.T) {
	m := newTestModel(t, Config{Kernel: newFakeKernel()})
	tuiSetDraft(m, "/help")
	tuiPress(m, tea.KeyEnter)
	tuiSetDraft(m, "/nope")
	tuiPress(m, tea.KeyEnter)
	s := tuiScreen(m)
	for _, part := range []string{"/skill:<name>", "Tab", "unknown command /nope"} {
		assert.Contains(t, s, part, "screen lacks %q:\n%s", part, s)
	}
}

// --- helpers ---

func newTestModel(t *testing.T, cfg Config) *Model {
	t.Helper()
	m := New(context.Background(), cfg)
	t.Cleanup(func() { _, _ = m.Close() })
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return m
}

// tuiCat is a catalog of skills described "About <name>.".
func tuiCat(complete bool, names ...string) skills.Catalog {
	c := skills.Catalog{Complete: complete}
	for _, n := range names {
		c.Skills = append(c.Skills, skills.Skill{Name: n, Description: "About " + n + ".", Source: skills.SourceProject})
	}
	return c
}

func tuiType(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func tuiPress(m *Model, code rune) { m.Update(tea.KeyPressMsg{Code: code}) }

func tuiSetDraft(m *Model, s string) {
	m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tuiType(m, s)
}

// tuiWantSuggestions checks the names the popup offers for the draft.
func tuiWantSuggestions(t *testing.T, m *Model, want ...string) {
	t.Helper()
	var got []string
	for _, s := range m.pop.items {
		got = append(got, s.name)
	}
	if len(want) == 0 && len(got) == 0 {
		return
	}
	assert.Empty(t, cmp.Diff(want, got), "suggestions for %q (-want +got)", m.input.Value())
}

func tuiWantQuit(t *testing.T, cmd tea.Cmd) {
	t.Helper()
	require.NotNil(t, cmd, "no command; want tea.Quit")
	_, ok := cmd().(tea.QuitMsg)
	require.True(t, ok, "command is not tea.Quit")
}

func tuiSkillNames(ss []skills.Skill) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// tuiScreen is the rendered view without styling.
func tuiScreen(m *Model) string { return ansi.Strip(m.View().Content) }

func tuiLine(screen string, parts ...string) string {
	for l := range strings.SplitSeq(screen, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return l
		}
	}
	return ""
}

// tuiDrain feeds the turn's updates to the model until the turn ends.
func tuiDrain(t *testing.T, m *Model) {
	t.Helper()
	for {
		msg := m.rt.waitEvent()()
		require.NotNil(t, msg, "event channel closed before the turn ended")
		m.Update(msg)
		if _, ok := msg.(turnDoneMsg); ok {
			return
		}
	}
}

// fakeKernel serves a settable catalog and records listeners.
type fakeKernel struct {
	mu        sync.Mutex
	cat       skills.Catalog
	nCalls    int
	listen    map[int]func()
	nextID    int
	loads     map[string]string
	loadErr   error
	loadCalls int
}

func newFakeKernel() *fakeKernel {
	return &fakeKernel{listen: map[int]func(){}, loads: map[string]string{}, cat: skills.Catalog{Complete: true}}
}

func (k *fakeKernel) set(c skills.Catalog) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.cat = c
}

func (k *fakeKernel) calls() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nCalls
}

func (k *fakeKernel) listeners() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.listen)
}

func (k *fakeKernel) signal() {
	k.mu.Lock()
	fns := make([]func(), 0, len(k.listen))
	for _, fn := range k.listen {
		fns = append(fns, fn)
	}
	k.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

func (k *fakeKernel) Catalog(context.Context) skills.Catalog {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.nCalls++
	return k.cat
}

func (k *fakeKernel) LoadSkill(_ context.Context, name string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.loadCalls++
	if k.loadErr != nil {
		return "", k.loadErr
	}
	text, ok := k.loads[name]
	if !ok {
		return "", fmt.Errorf("%w %q", kernel.ErrUnknownSkill, name)
	}
	return text, nil
}

func (k *fakeKernel) OnSkillsChanged(fn func()) func() {
	k.mu.Lock()
	defer k.mu.Unlock()
	id := k.nextID
	k.nextID++
	k.listen[id] = fn
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		delete(k.listen, id)
	}
}

// fakeSession records injections; run scripts a turn.
type fakeSession struct {
	id       string
	mu       sync.Mutex
	observe  func(kernel.Update)
	confirm  Confirm
	injected []string
	closed   bool
	run      func(ctx context.Context, observe func(kernel.Update), prompt string) error
}

func (s *fakeSession) open(_ context.Context, observe func(kernel.Update), confirm Confirm) (Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observe, s.confirm = observe, confirm
	return s, nil
}

func (s *fakeSession) ID() string { return s.id }

func (s *fakeSession) Run(ctx context.Context, prompt string) (string, error) {
	s.mu.Lock()
	run, obs := s.run, s.observe
	s.mu.Unlock()
	if run == nil {
		return "", nil
	}
	return "", run(ctx, obs, prompt)
}

func (s *fakeSession) Inject(_ context.Context, provenance, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.injected = append(s.injected, provenance+"|"+text)
	return nil
}

func (s *fakeSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

func (s *fakeSession) injectedTexts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.injected)
}

func (s *fakeSession) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Protects: M466's TUI half — a call a hook wants confirmed waits for the
// person: the question names the call and the hook's reason, y allows, n
// denies, and the turn goes on after the answer.
func TestTUIConfirmAsksThePerson(t *testing.T) {
	for _, tc := range []struct {
		key  rune
		want bool
		note string
	}{{'y', true, "Allowed."}, {'n', false, "Denied."}} {
		t.Run(string(tc.key), func(t *testing.T) {
			k := newFakeKernel()
			var got []bool
			sess := &fakeSession{id: "s-ask"}
			sess.run = func(ctx context.Context, _ func(kernel.Update), _ string) error {
				sess.mu.Lock()
				confirm := sess.confirm
				sess.mu.Unlock()
				ok, err := confirm(ctx, kernel.Confirmation{Call: model.ToolCall{Name: "Bash", Arguments: []byte(`{"command":"make deploy"}`)}, Reason: "this deploys"})
				got = append(got, ok)
				return err
			}
			m := newTestModel(t, Config{Kernel: k, OpenSession: sess.open})
			tuiType(m, "ship it")
			_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			go cmd()
			msg := m.rt.waitEvent()()
			_, isQuestion := msg.(confirmMsg)
			require.True(t, isQuestion, "first event is the question, got %T", msg)
			m.Update(msg)
			s := tuiScreen(m)
			assert.Contains(t, s, `A hook asks before Bash {"command":"make deploy"} runs: this deploys. Allow it? y / n`)
			tuiType(m, "x") // another key waits
			require.NotNil(t, m.asking, "a key other than y or n answered")
			tuiType(m, string(tc.key))
			tuiDrain(t, m)
			assert.Equal(t, []bool{tc.want}, got)
			assert.Contains(t, tuiScreen(m), tc.note)
			assert.Equal(t, idle, m.busy)
		})
	}
}

// Protects: M797 (always not remembered). A permission rule's ask names
// the rule and offers a; y allows once, n denies, a allows this call and
// every later ask of the same rule in the session without a question,
// while another rule still asks.
func TestTUIPermissionAsk(t *testing.T) {
	push := kernel.Confirmation{Call: model.ToolCall{Name: "Bash", Arguments: []byte(`{"command":"git push"}`)}, Rule: "Bash(git push:*)",
		Reason: `rule "Bash(git push:*)" in permissions.ask of /p/helios.config.json asks before this call`}
	rm := kernel.Confirmation{Call: model.ToolCall{Name: "Bash", Arguments: []byte(`{"command":"rm x"}`)}, Rule: "Bash(rm:*)"}
	for _, tc := range []struct {
		key  string
		want []bool // answers to push, push again, rm (n)
	}{{"y", []bool{true, false, false}}, {"n", []bool{false, false, false}}, {"a", []bool{true, true, false}}} {
		t.Run(tc.key, func(t *testing.T) {
			k := newFakeKernel()
			var got []bool
			sess := &fakeSession{id: "s-perm"}
			sess.run = func(ctx context.Context, _ func(kernel.Update), _ string) error {
				sess.mu.Lock()
				confirm := sess.confirm
				sess.mu.Unlock()
				for _, q := range []kernel.Confirmation{push, push, rm} {
					ok, err := confirm(ctx, q)
					if err != nil {
						return err
					}
					got = append(got, ok)
				}
				return nil
			}
			m := newTestModel(t, Config{Kernel: k, OpenSession: sess.open})
			tuiType(m, "ship it")
			_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			go cmd()
			question := func() {
				t.Helper()
				msg := m.rt.waitEvent()()
				_, isQuestion := msg.(confirmMsg)
				require.True(t, isQuestion, "want the question, got %T", msg)
				m.Update(msg)
			}
			question()
			assert.Contains(t, tuiScreen(m), `The permission rule Bash(git push:*) asks before Bash {"command":"git push"} runs`)
			assert.Contains(t, tuiScreen(m), "y / n / a")
			tuiType(m, tc.key)
			question()
			if tc.key == "a" {
				require.Nil(t, m.asking, "an always-allowed rule asked again")
				question() // the rm rule still asks
			} else {
				require.NotNil(t, m.asking)
				tuiType(m, "n")
				question()
			}
			require.NotNil(t, m.asking)
			assert.Equal(t, "Bash(rm:*)", m.asking.q.Rule)
			tuiType(m, "n")
			tuiDrain(t, m)
			assert.Equal(t, tc.want, got)
		})
	}
}
