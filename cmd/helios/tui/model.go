package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// Kernel is what the UI needs from the kernel.
type Kernel interface {
	// Catalog returns a snapshot of the merged skill catalog of the work dir.
	Catalog(ctx context.Context) skills.Catalog
	// LoadSkill returns the text a skill load gives the model (C3), hidden
	// skills included: a person may load them by name.
	LoadSkill(ctx context.Context, name string) (string, error)
	// OnSkillsChanged registers fn for the bare "skills changed" signal; fn
	// must not block. The returned function unregisters it.
	OnSkillsChanged(fn func()) (cancel func())
}

// CatalogViewer is an optional ability of a Kernel: what the model sees of a
// catalog under a budget, and the catalog budget (skills.catalog.budget, or
// skills.tools.max in tools mode). With it the status line says when the
// budget shortened or left out skills.
type CatalogViewer interface {
	CatalogBudget() skills.Budget
	CatalogView(cat skills.Catalog, b skills.Budget) catalog.View
}

// Session is the conversation with the model.
type Session interface {
	ID() string
	// Run appends the prompt and steps until the turn ends.
	Run(ctx context.Context, prompt string) (string, error)
	// Inject appends a message on the user's side without running a step.
	Inject(ctx context.Context, provenance, text string) error
	Close() error
}

// SkillProvenance marks the messages a /skill: load adds to the session.
const SkillProvenance = "user:/skill"

// Config configures the UI.
type Config struct {
	// Kernel serves the catalog and skill loads. Required.
	Kernel Kernel
	// OpenSession opens the conversation's session at the first prompt or
	// skill load (so starting the UI and leaving creates nothing), telling
	// observe what happens as it happens; confirm asks the person whether a
	// tool call a hook wants confirmed may run (kernel.SessionConfig's
	// Confirm). Nil means no model.
	OpenSession func(ctx context.Context, observe func(kernel.Update), confirm Confirm) (Session, error)
	// ModelErr says why there is no model (the config key or variable to
	// set); the UI shows it in a banner, refuses prompts, and still browses
	// and loads skills. Nil with a non-nil OpenSession: a model is configured.
	ModelErr error
	// Model and WorkDir are shown in the status line.
	Model   string
	WorkDir string
	// Notices are what the user must know about the config (a work dir
	// config ignored because untrusted, and how to trust it): shown in the
	// banner.
	Notices []string
	// ConfigIgnored flags, in the status line, that the work dir's config
	// was not applied; without a model, the banner gives that as the
	// reason (the file may name one).
	ConfigIgnored bool
	// Commands are the person's slash commands; nil offers none.
	Commands SlashCommands
	// Redact hides secrets (the model key, a database password) in what
	// the conversation shows: a tool that printed one, an error quoting
	// one. Nil shows text as it is.
	Redact func(string) string
}

// Confirm asks the person whether a tool call may run: the UI shows the
// question and waits for y or n.
type Confirm = func(ctx context.Context, q kernel.Confirmation) (bool, error)

// Result is what a UI run leaves behind.
type Result struct {
	// SessionID is the session the conversation was saved in; empty when
	// none was opened.
	SessionID string
}

// Messages. Each one is a value an Update consumes; commands produce them.
type (
	// skillsChangedMsg is the kernel's bare change signal.
	skillsChangedMsg struct{}
	// catalogMsg is the result of the fetch numbered seq, with what the
	// model sees of it when the kernel can say (complete catalogs only).
	catalogMsg struct {
		seq  uint64
		cat  skills.Catalog
		view *catalog.View
	}
	// updateMsg is one thing that happened in the running turn.
	updateMsg kernel.Update
	// confirmMsg asks whether a tool call may run; the answer goes to
	// reply (buffered), which the running turn waits on.
	confirmMsg struct {
		q     kernel.Confirmation
		reply chan<- bool
	}
	// turnDoneMsg ends a turn; it travels behind the turn's updates.
	turnDoneMsg struct{ err error }
	// skillLoadedMsg is the result of a /skill: load.
	skillLoadedMsg struct {
		name, text string
		err        error
		// injected: the text was added to the session; injectErr: adding it
		// failed (the load itself worked).
		injected  bool
		injectErr error
	}
)

// busyKind is what the UI is waiting for.
type busyKind int

const (
	idle busyKind = iota
	inTurn
	inLoad
)

// Model is the Bubble Tea model of the UI.
type Model struct {
	rt  *runtime
	cfg Config
	// slashCmds are the person's commands as read for the slash word being
	// typed (slashRead: read for it already); see listCommands.
	slashCmds []SlashCommand
	slashRead bool

	width, height int
	input         textinput.Model
	conv          viewport.Model
	entries       []entry
	renderedWidth int  // the width the conversation was last rendered at
	dirty         bool // the conversation changed since

	busy       busyKind
	cancelTurn context.CancelFunc

	cat catalogState
	pop popup
	// usage sums the session's model requests, for the status line.
	usage session.Usage

	// asking is the question a hook asks, until the person answers it.
	asking *confirmMsg
	// always are the permission rules the person allowed for the rest of
	// the session ("a"): their asks are answered yes without a question.
	always map[string]bool

	closed bool
}

var _ tea.Model = (*Model)(nil)

// New builds the model and starts listening for catalog changes; Close (or
// Run) stops it. ctx bounds every kernel call the UI makes.
func New(ctx context.Context, cfg Config) *Model {
	ti := textinput.New()
	ti.Prompt = "› "
	ti.Placeholder = "Ask, or type / for commands (/help)"
	ti.Focus()
	m := &Model{
		rt:    newRuntime(ctx, cfg),
		cfg:   cfg,
		input: ti,
		conv:  viewport.New(),
		dirty: true,
	}
	// The conversation gets no key messages (the input line has them);
	// PgUp/PgDn and the arrows scroll it through its methods.
	m.conv.FillHeight = true
	return m
}

// Init fetches the first catalog and starts waiting for change signals and
// session updates.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.fetchCatalog(), m.rt.waitChange(), m.rt.waitEvent(), textinput.Blink)
}

// Update applies one message. After Close (or /quit, Ctrl-C) nothing is
// applied any more.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.closed {
		return m, nil
	}
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case skillsChangedMsg:
		cmd = tea.Batch(m.fetchCatalog(), m.rt.waitChange())
	case catalogMsg:
		m.applyCatalog(msg)
	case updateMsg:
		m.applyUpdate(kernel.Update(msg))
		cmd = m.rt.waitEvent()
	case confirmMsg:
		m.closeText()
		q := msg.q
		if q.Rule != "" && m.always[q.Rule] {
			msg.reply <- true
			m.add(entry{kind: noteEntry, text: fmt.Sprintf("Allowed %s %s: rule %s is allowed for this session.", q.Call.Name, string(q.Call.Arguments), q.Rule)})
			cmd = m.rt.waitEvent()
			break
		}
		who, keys := "A hook", "y / n"
		if q.Rule != "" {
			who, keys = "The permission rule "+q.Rule, "y / n / a (always, for this session)"
		}
		text := fmt.Sprintf("%s asks before %s %s runs", who, q.Call.Name, string(q.Call.Arguments))
		if r := strings.TrimSpace(q.Reason); r != "" {
			text += ": " + r
		}
		m.add(entry{kind: noteEntry, text: text + ". Allow it? " + keys})
		m.asking = &msg
		cmd = m.rt.waitEvent()
	case turnDoneMsg:
		m.asking = nil // a cancelled turn stopped waiting
		m.turnDone(msg)
		cmd = m.rt.waitEvent()
	case skillLoadedMsg:
		m.skillLoaded(msg)
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	case tea.InterruptMsg:
		cmd = m.quit()
	default: // paste, cursor blink, ...
		before := m.input.Value()
		m.input, cmd = m.input.Update(msg)
		if m.input.Value() != before {
			m.refreshSuggestions()
		}
	}
	if !m.closed {
		m.layout()
	}
	return m, cmd
}

// Close stops the UI: no update is applied afterwards, the change listener
// is unregistered, running kernel calls are cancelled and waited for, and
// the session (if one was opened) is closed. It is safe to call twice.
func (m *Model) Close() (Result, error) {
	m.closed = true
	return m.rt.close()
}

// quit closes the UI from inside Update and ends the program. The blocking
// part of closing (waiting for cancelled calls) is left to Close, after the
// program has restored the terminal.
func (m *Model) quit() tea.Cmd {
	m.closed = true
	m.rt.stop()
	return tea.Quit
}

// key handles a key press: the UI's own keys first, the rest edits the
// draft.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if m.asking != nil {
		return m.answer(k)
	}
	popupOpen := m.popupVisible()
	switch k.String() {
	case "ctrl+c":
		return m.quit()
	case "enter":
		return m.submit()
	case "esc":
		switch {
		case popupOpen:
			m.pop.hiddenFor = m.input.Value()
		case m.busy == inTurn && m.cancelTurn != nil:
			m.cancelTurn()
		}
		return nil
	case "up", "ctrl+p":
		if popupOpen {
			m.pop.move(-1)
		} else {
			m.conv.ScrollUp(1)
		}
		return nil
	case "down", "ctrl+n":
		if popupOpen {
			m.pop.move(1)
		} else {
			m.conv.ScrollDown(1)
		}
		return nil
	case "tab":
		if popupOpen {
			m.acceptSuggestion()
		}
		return nil
	case "shift+tab":
		if popupOpen {
			m.pop.move(-1)
		}
		return nil
	case "pgup":
		m.conv.PageUp()
		return nil
	case "pgdown":
		m.conv.PageDown()
		return nil
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	if m.input.Value() != before {
		m.refreshSuggestions()
	}
	return cmd
}

// acceptSuggestion puts the highlighted suggestion into the draft.
func (m *Model) acceptSuggestion() {
	s, ok := m.pop.selected()
	if !ok {
		return
	}
	m.setDraft(s.value)
}

func (m *Model) setDraft(v string) {
	m.input.SetValue(v)
	m.input.CursorEnd()
	m.refreshSuggestions()
}

// submit acts on Enter. With the popup open, Enter takes the highlighted
// suggestion: a skill is loaded, "/skill:" opens the skill list, another
// command runs.
func (m *Model) submit() tea.Cmd {
	draft := strings.TrimSpace(m.input.Value())
	if s, ok := m.pop.selected(); ok && m.popupVisible() {
		switch {
		case s.skill:
			return m.startLoad(s.name)
		case s.value == skillPrefix:
			m.setDraft(skillPrefix)
			return nil
		default:
			draft = s.value
		}
	}
	switch {
	case draft == "":
		return nil
	case draft == "/quit":
		return m.quit()
	case draft == "/help":
		m.clearDraft()
		m.add(entry{kind: noteEntry, text: helpText})
	case draft == "/skills":
		m.clearDraft()
		m.listSkills()
	case strings.HasPrefix(draft, skillPrefix):
		name := strings.TrimSpace(draft[len(skillPrefix):])
		if name == "" {
			m.add(entry{kind: noteEntry, text: "Type a skill's name after /skill: (the popup lists them)."})
			return nil
		}
		return m.startLoad(name)
	case strings.HasPrefix(draft, "/") && m.isUserCommand(draft):
		name, args, _ := m.userCommand(draft)
		return m.startCommand(draft, name, args)
	case strings.HasPrefix(draft, "/") && !strings.ContainsAny(draft, " \t\n"):
		m.add(entry{kind: errorEntry, text: fmt.Sprintf("unknown command %s (/help lists the commands)", draft)})
	default:
		return m.startTurn(draft)
	}
	return nil
}

func (m *Model) clearDraft() {
	m.input.Reset()
	m.refreshSuggestions()
}

// startTurn sends a prompt to the model. The draft is kept when the prompt
// cannot be sent now.
func (m *Model) startTurn(prompt string) tea.Cmd {
	if !m.canSend() {
		return nil
	}
	m.clearDraft()
	m.add(entry{kind: userEntry, text: prompt})
	m.busy = inTurn
	ctx, cancel := context.WithCancel(m.rt.ctx)
	m.cancelTurn = cancel
	return m.rt.runTurn(ctx, prompt)
}

// canSend says whether a prompt can be sent now, and why not if not.
func (m *Model) canSend() bool {
	switch {
	case m.cfg.OpenSession == nil || m.cfg.ModelErr != nil:
		m.add(entry{kind: errorEntry, text: "No model, so nothing was sent. " + noModelText(m.cfg.ModelErr, m.cfg.ConfigIgnored)})
		return false
	case m.busy != idle:
		m.add(entry{kind: noteEntry, text: "Still working on the last request: wait for it, or press Esc to cancel it."})
		return false
	}
	return true
}

func (m *Model) turnDone(msg turnDoneMsg) {
	m.busy = idle
	if m.cancelTurn != nil {
		m.cancelTurn()
		m.cancelTurn = nil
	}
	m.closeText()
	switch {
	case msg.err == nil:
	case errors.Is(msg.err, context.Canceled):
		m.add(entry{kind: noteEntry, text: "Cancelled."})
	default:
		m.add(entry{kind: errorEntry, text: msg.err.Error()})
	}
}

// startLoad loads a skill; with a model it is added to the conversation on
// the user's behalf.
func (m *Model) startLoad(name string) tea.Cmd {
	if m.busy != idle {
		m.add(entry{kind: noteEntry, text: "Still working on the last request: load the skill when it is done (Esc cancels it)."})
		return nil
	}
	m.clearDraft()
	m.busy = inLoad
	return m.rt.loadSkill(name, m.cfg.OpenSession != nil && m.cfg.ModelErr == nil)
}

func (m *Model) skillLoaded(msg skillLoadedMsg) {
	m.busy = idle
	if msg.err != nil {
		m.add(entry{kind: errorEntry, text: fmt.Sprintf("/skill:%s: %v", msg.name, msg.err)})
		return
	}
	m.add(entry{kind: skillEntry, name: msg.name, text: msg.text, injected: msg.injected})
	if msg.injectErr != nil {
		m.add(entry{kind: errorEntry, text: fmt.Sprintf("/skill:%s was loaded but not added to the conversation: %v", msg.name, msg.injectErr)})
	}
}

// applyUpdate shows one session update: text streams into the open answer,
// everything else is one compact line.
func (m *Model) applyUpdate(u kernel.Update) {
	switch u.Kind {
	case kernel.UpdateText:
		if n := len(m.entries); n > 0 && m.entries[n-1].kind == answerEntry && m.entries[n-1].open {
			m.entries[n-1].text += u.Text
			m.entries[n-1].cache = ""
			m.dirty = true
			return
		}
		m.add(entry{kind: answerEntry, text: u.Text, open: true})
	case kernel.UpdateToolCall:
		m.closeText()
		m.add(entry{kind: toolCallEntry, name: u.Call.Name, id: u.Call.ID, text: string(u.Call.Arguments)})
	case kernel.UpdateToolResult:
		m.add(entry{kind: toolResultEntry, name: u.Call.Name, text: u.Text, isError: u.IsError})
	case kernel.UpdateInjected:
		m.closeText()
		m.add(entry{kind: injectedEntry, text: u.Text})
	case kernel.UpdateCompacted:
		m.closeText()
		m.add(entry{kind: injectedEntry, text: "context compacted"})
	case kernel.UpdateWarning:
		m.closeText()
		m.add(entry{kind: noteEntry, text: "warning: " + u.Text})
	case kernel.UpdateUsage:
		m.usage = m.usage.Add(u.Usage)
	case kernel.UpdateSubagent:
		m.usage = m.usage.Add(u.Usage)
		m.subagentLine(u.Call.ID, u.Text)
	}
}

// subagentLine shows a subagent's latest progress on one line under its
// Agent call: the line is rewritten, never repeated.
func (m *Model) subagentLine(callID, text string) {
	if text == "" {
		return
	}
	at := -1
	for i := len(m.entries) - 1; i >= 0; i-- {
		e := &m.entries[i]
		if e.id != callID {
			continue
		}
		if e.kind == subagentEntry {
			e.text, e.cache, m.dirty = text, "", true
			return
		}
		if e.kind == toolCallEntry {
			at = i + 1
			break
		}
	}
	if at < 0 {
		m.add(entry{kind: subagentEntry, id: callID, text: text})
		return
	}
	m.entries = append(m.entries[:at], append([]entry{{kind: subagentEntry, id: callID, text: text}}, m.entries[at:]...)...)
	m.dirty = true
}

// answer takes the person's answer to the question a hook or a permission
// rule asks: y allows the call, a allows it and every later ask of the same
// rule in this session, n or Esc denies it; other keys wait (Ctrl-C still
// quits).
func (m *Model) answer(k tea.KeyPressMsg) tea.Cmd {
	var ok bool
	switch k.String() {
	case "ctrl+c":
		return m.quit()
	case "y", "Y":
		ok = true
	case "a", "A":
		rule := m.asking.q.Rule
		if rule == "" {
			return nil // only a permission rule can be allowed for the session
		}
		if m.always == nil {
			m.always = map[string]bool{}
		}
		m.always[rule] = true
		ok = true
	case "n", "N", "esc":
	default:
		return nil
	}
	m.asking.reply <- ok
	m.asking = nil
	if ok {
		m.add(entry{kind: noteEntry, text: "Allowed."})
	} else {
		m.add(entry{kind: noteEntry, text: "Denied."})
	}
	return nil
}

// closeText ends the streaming answer, if any.
func (m *Model) closeText() {
	if n := len(m.entries); n > 0 && m.entries[n-1].open {
		m.entries[n-1].open = false
	}
}

func (m *Model) add(e entry) {
	if e.kind != answerEntry {
		m.closeText()
	}
	m.entries = append(m.entries, e)
	m.dirty = true
}

const helpText = `Commands:
  /skill:<name>  load a skill into the conversation on your behalf
  /skills        list the skills of the catalog
  /<command> …   run one of your slash commands (.claude/commands) with its arguments
  /help          this help
  /quit          leave (Ctrl-C too)
Keys:
  Enter          send the prompt, or take the highlighted suggestion
  ↑/↓            move in the suggestions (otherwise scroll the conversation)
  Tab            complete the draft with the highlighted suggestion
  Esc            close the suggestions; cancel a running answer
  PgUp/PgDn      scroll the conversation`

// noModelText is the banner's sentence for a missing model. When the work
// dir's config was ignored, that is the reason: the file may well name a
// model, it was just not read.
func noModelText(err error, configIgnored bool) string {
	switch {
	case configIgnored:
		return "No model: the work dir's config was IGNORED because it is untrusted, so any model it names is not used. " +
			"Read the file, then trust it with `helios trust`."
	case err == nil:
		return "No model is configured."
	}
	text := strings.TrimPrefix(err.Error(), "open session: ")
	if !strings.HasSuffix(text, ".") {
		text += "."
	}
	return text
}

// Run runs the UI on the terminal until the user quits or ctx ends, then
// closes it. opts go to tea.NewProgram (tests give input and output).
func Run(ctx context.Context, cfg Config, opts ...tea.ProgramOption) (Result, error) {
	m := New(ctx, cfg)
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)...)
	_, err := p.Run()
	res, cerr := m.Close()
	return res, errors.Join(err, cerr)
}
