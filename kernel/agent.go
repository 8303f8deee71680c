package kernel

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	skillcatalog "github.com/helios-agents/helios/kernel/skills/catalog"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/telemetry"
	"go.opentelemetry.io/otel/trace"
)

// SessionConfig configures a session. Zero fields take the kernel's
// defaults (Config.Model, Config.Store, Config.MaxSteps, ...).
type SessionConfig struct {
	// Model answers this session; nil means Config.Model.
	Model model.Model
	// Store keeps its log; nil means Config.Store.
	Store session.Store
	// Resume reopens this session ID; "" starts a new session.
	Resume string
	// MaxSteps bounds the steps of one turn; 0 means 50.
	MaxSteps int
	// ContextBudget is the size in bytes of the model view past which
	// context:compact runs; 0 means 400,000 (about 100k tokens).
	ContextBudget int
	// AllowedTools restricts the tools the model gets; nil allows all. When
	// the skill tool is not allowed, no catalog is injected either.
	AllowedTools []string
	// SystemPrompt replaces the built-in base prompt.
	SystemPrompt string
	// Observe, when set, is told what happens as it happens (for the CLI).
	Observe func(Update)
	// Confirm, when set, asks the person whether a tool call a tool:before
	// handler wants confirmed (ToolDecision.Ask) may run. Nil means no one
	// can be asked (a non-interactive run): such calls are denied, and the
	// model is told why. The kernel asks one question at a time per
	// session, its subagents' included (they share it), so Confirm is never
	// entered twice at once.
	Confirm func(ctx context.Context, q Confirmation) (bool, error)

	// parent links a subagent's session to the Agent call that opened it.
	parent *parentLink
}

// Confirmation is a question to the person: may this tool call run?
type Confirmation struct {
	// Call is the call as it would run (its arguments rewritten, if a
	// handler did).
	Call model.ToolCall
	// Reason is why the handler or the permission rule asks; it may be
	// empty.
	Reason string
	// Rule is the permission rule that asks, "" when only a hook asks: a
	// front end may let the person allow it for the rest of the session.
	Rule string
}

// Update is one thing that happened in a session.
type Update struct {
	// Kind says what happened, and which fields are set.
	Kind UpdateKind
	// Text is a streamed text delta (UpdateText), an injected message
	// (UpdateInjected), or a tool result (UpdateToolResult).
	Text string
	// Call is the tool call of UpdateToolCall and UpdateToolResult.
	Call model.ToolCall
	// IsError marks a failed tool result (UpdateToolResult).
	IsError bool
	// Usage is a model request's token usage (UpdateUsage).
	Usage session.Usage
	// Permission is what the permission rules decided about the call
	// (UpdateToolResult); the zero value when the kernel has none or the
	// rules were not reached.
	Permission PermissionDecision
}

// UpdateKind says what an Update reports.
type UpdateKind int

const (
	// UpdateText is a delta of the model's streamed text.
	UpdateText UpdateKind = iota
	// UpdateToolCall is a tool call about to run.
	UpdateToolCall
	// UpdateToolResult is a tool call's result.
	UpdateToolResult
	// UpdateInjected is a message appended on the user's side (the skills
	// catalog, session:start text).
	UpdateInjected
	// UpdateCompacted says the context was compacted.
	UpdateCompacted
	// UpdateWarning is a warning about the session's hooks (a handler that
	// failed, a hook command that timed out and was killed); Text says it.
	UpdateWarning
	// UpdateUsage reports the tokens of the step's model request, once it
	// answered.
	UpdateUsage
	// UpdateSubagent is a subagent's progress under the parent's Agent call
	// (Call): Text is one line of it (its tool calls, nested subagents), and
	// Usage a model request's tokens when it answered.
	UpdateSubagent
)

// Session runs one agent session over its event log.
type Session struct {
	k     *Kernel
	cfg   SessionConfig
	log   session.Log
	hooks *hooks.Registry
	// callIDs are the tool call IDs used so far: results pair with calls by
	// ID across the whole log, and some servers number calls afresh in
	// every response.
	callIDs map[string]bool
	// budget is the kernel's catalog budget with the skills loaded recently
	// in this work dir, read when the session was opened.
	budget skills.Budget
	// viewSize is the model view's size at the step's request; stepGrowth
	// what the step appended since.
	viewSize, stepGrowth int
	// continued says a turn:end handler kept the current turn going.
	continued bool
	// stopped says a hook stopped the turn (tool:before or tool:after);
	// stopReason is its reason, for the person.
	stopped    bool
	stopReason string
	// preapproved are the allowed-tools rules of the turn: the slash
	// command's that started it, then each skill loaded in it.
	preapproved []string
	// stepSkills is the catalog of the step whose calls run: in tools
	// mode it tells a skill's own tool from the others.
	stepSkills skills.Catalog
	// ended says session:end ran.
	ended bool

	// depth is 0 for a top session, its parent's plus one for a subagent's;
	// parent and scope are set for a subagent's.
	depth  int
	parent *parentLink
	scope  *agentScope
	// asking holds the one question to the person of this session and its
	// subagents: Confirm is never called twice at once, and waiting asks
	// are put in the order they came (a channel's senders queue in order).
	asking chan struct{}
	// modes are the permissionModes (plan, dontAsk) that narrow this
	// session's decisions: its own subagent's and every one above it.
	modes []string
	// scopeWarned says the scope's unknown tools were warned about.
	scopeWarned bool
	// stopMu guards stopped and stopReason, set by concurrent Agent calls'
	// hooks; obsMu serializes Observe.
	stopMu, obsMu sync.Mutex
	// subagents are the runs of this step's Agent calls, by call ID, until
	// their results are appended.
	subMu     sync.Mutex
	subagents map[string]*subagentRun
}

const (
	defaultMaxSteps      = 50
	defaultContextBudget = 400_000
)

// ErrNoModel is returned by OpenSession when no model is configured.
var ErrNoModel = errors.New("no model configured")

// ErrStopped is wrapped by the error of a turn a hook stopped: a
// prompt:submit handler blocked the prompt, or a tool:before or tool:after
// handler stopped the turn. The error says the handler's reason.
var ErrStopped = errors.New("stopped by a hook")

// ModelErr says why a session without a model of its own cannot open: nil
// when the kernel has a default model, else the error OpenSession returns
// (it names the config key or variable to set). The UI shows it at start,
// before any session is opened.
func (k *Kernel) ModelErr() error {
	switch {
	case k.cfg.Model != nil:
		return nil
	case k.cfg.ModelErr != nil:
		return fmt.Errorf("open session: %w", k.cfg.ModelErr)
	}
	return ErrNoModel
}

func firstPositive(vs ...int) int {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

// OpenSession starts a new session (running session:start) or resumes one.
func (k *Kernel) OpenSession(ctx context.Context, cfg SessionConfig) (*Session, error) {
	if cfg.Model == nil {
		cfg.Model = k.cfg.Model
	}
	if cfg.Model == nil {
		if k.cfg.ModelErr != nil {
			return nil, fmt.Errorf("open session: %w", k.cfg.ModelErr)
		}
		return nil, ErrNoModel
	}
	if cfg.Store == nil {
		cfg.Store = k.cfg.Store
	}
	if cfg.Store == nil {
		return nil, errors.New("open session: no session store configured")
	}
	cfg.MaxSteps = firstPositive(cfg.MaxSteps, k.cfg.MaxSteps, defaultMaxSteps)
	cfg.ContextBudget = firstPositive(cfg.ContextBudget, k.cfg.ContextBudget, defaultContextBudget)
	reg, err := k.NewSessionHooks(cfg.Model)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	s := &Session{k: k, cfg: cfg, hooks: reg, callIDs: map[string]bool{}, asking: make(chan struct{}, 1)}
	if p := cfg.parent; p != nil {
		s.depth, s.parent, s.scope = p.session.depth+1, p, p.scope
		s.modes, s.asking = p.session.modes, p.session.asking
		if narrowingMode(p.scope.def.PermissionMode) {
			s.modes = append(slices.Clip(s.modes), p.scope.def.PermissionMode)
		}
	}
	// The catalog's recency is read once the log is open: a store that
	// cannot be opened is then one error, not a recency warning before it.
	if cfg.Resume != "" {
		if s.log, err = cfg.Store.Open(ctx, cfg.Resume); err != nil {
			return nil, fmt.Errorf("resume session %s: %w", cfg.Resume, err)
		}
		s.budget = k.SessionBudget(ctx)
		for i := range s.log.Len() {
			if ev := s.log.At(i); ev.Type == session.ToolUse {
				s.callIDs[ev.ToolUseID] = true
			}
		}
		return s, nil
	}
	if s.log, err = cfg.Store.Create(ctx); err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	s.budget = k.SessionBudget(ctx)
	outs, err := hooks.SessionStart.Dispatch(s.watch(ctx), reg, SessionStartIn{SessionID: s.log.ID(), WorkDir: k.workDir})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("session:start: %w", err), s.log.Close())
	}
	if text := strings.Join(nonEmpty(outs), "\n\n"); text != "" {
		if err := s.append(ctx, session.Event{Type: session.Injected, Provenance: "session:start", Text: text}); err != nil {
			return nil, errors.Join(err, s.log.Close())
		}
	}
	// The project's instructions open the log, ahead of the first prompt
	// and the catalog.
	if err := s.injectCapabilities(ctx); err != nil {
		return nil, errors.Join(err, s.log.Close())
	}
	return s, nil
}

// ID returns the session ID.
func (s *Session) ID() string { return s.log.ID() }

// Log returns the session's event log.
func (s *Session) Log() session.Log { return s.log }

// Hooks returns the session-scope registry (context:compact, session:start).
func (s *Session) Hooks() *hooks.Registry { return s.hooks }

// Close runs session:end (once), tells each capability that keeps state
// per session (contract.SessionEnder: the Bash tool's temp dir) that the
// session ended, and closes the log.
func (s *Session) Close() error {
	var err error
	if !s.ended {
		s.ended = true
		err = hooks.SessionEnd.Dispatch(s.watch(context.Background()), s.hooks, SessionEndIn{SessionID: s.ID(), WorkDir: s.k.workDir})
	}
	for _, c := range s.k.caps {
		if e, ok := c.Capability.(contract.SessionEnder); ok {
			e.EndSession(s.ID())
		}
	}
	return errors.Join(err, s.log.Close())
}

// Inject appends text as a message on the user's side, with provenance
// naming who added it (the UI's /skill: loads use "user:/skill"). It runs no
// step: the model sees the message at the next one. Call it between turns,
// never during Run, so a tool call and its result stay adjacent.
func (s *Session) Inject(ctx context.Context, provenance, text string) error {
	return s.append(ctx, session.Event{Type: session.Injected, Provenance: provenance, Text: text})
}

// Run passes the user's message through prompt:submit, appends it and
// steps until the turn ends. It returns the model's last text. A turn a
// hook stopped returns an error wrapping ErrStopped. A tool call of an
// earlier turn left without a result (the process was killed while it ran,
// or its result could not be stored) is first answered in the log as
// interrupted, once, so the request stays one a strict provider accepts.
func (s *Session) Run(ctx context.Context, prompt string) (answer string, err error) {
	if tel := s.k.cfg.Telemetry; tel != nil {
		var span trace.Span
		ctx, span = tel.StartTurn(ctx, s.ID())
		defer func() { tel.End(span, err) }()
	}
	if _, err := session.RepairInterrupted(ctx, s.log); err != nil {
		return "", fmt.Errorf("session %s: %w", s.ID(), err)
	}
	s.continued, s.stopped = false, false
	s.preapproved = preapprovedOf(ctx)
	if err := s.submit(ctx, prompt); err != nil {
		return "", err
	}
	for step := 1; ; step++ {
		resp, end, err := s.Step(ctx, step)
		if err != nil {
			return "", err
		}
		if end && s.parent != nil && step >= s.cfg.MaxSteps && len(resp.ToolCalls) > 0 {
			return "", fmt.Errorf("%w (%d steps) while still calling tools", ErrMaxTurns, s.cfg.MaxSteps)
		}
		if end {
			return resp.Text, nil
		}
	}
}

// submit runs prompt:submit and appends the prompt with the contexts the
// handlers added, unless one blocked it: then nothing is appended.
func (s *Session) submit(ctx context.Context, prompt string) error {
	ds, err := hooks.PromptSubmit.Dispatch(s.watch(ctx), s.k.hooks, PromptSubmitIn{SessionID: s.ID(), Prompt: prompt})
	if err != nil {
		return fmt.Errorf("prompt:submit: %w", err)
	}
	var blocked, contexts []string
	for _, d := range ds {
		if d.Block {
			blocked = append(blocked, cmp.Or(strings.TrimSpace(d.Reason), "no reason given"))
		}
		contexts = append(contexts, d.Context)
	}
	if len(blocked) > 0 {
		return fmt.Errorf("%w: the prompt was blocked and not sent: %s", ErrStopped, strings.Join(blocked, "; "))
	}
	evs := []session.Event{{Type: session.User, Text: prompt}}
	if p := s.parent; p != nil {
		evs[0].Meta = map[string]string{MetaParentSession: p.session.ID(), MetaParentToolUse: p.toolUseID}
	}
	text := strings.Join(nonEmpty(contexts), "\n\n")
	if text != "" {
		evs = append(evs, session.Event{Type: session.Injected, Provenance: "prompt:submit", Text: text})
	}
	if err := s.append(ctx, evs...); err != nil {
		return err
	}
	if text != "" {
		s.observe(Update{Kind: UpdateInjected, Text: text})
	}
	return nil
}

// Step runs one step: catalog injection, context:prepare, the model
// request, each tool call through tool:before and tool:after, turn:end,
// and compaction when the view is over budget. It reports whether the turn
// ended. A turn a hook stopped ends with an error wrapping ErrStopped,
// once every call of the step has its result.
func (s *Session) Step(ctx context.Context, step int) (model.Response, bool, error) {
	ctx = s.watch(ctx)
	cat := s.scope.filter(s.k.Catalog(ctx))
	tools, hasSkillTool := s.tools(ctx, cat)

	if err := s.injectCapabilities(ctx); err != nil {
		return model.Response{}, false, err
	}
	if s.scope == nil {
		s.k.CatalogView(cat, s.budget) // tells a person, once per change, what the budget cut
	}
	if inj := InjectCatalogWithin(s.log, cat, hasSkillTool, s.budget); inj.Append {
		if err := s.append(ctx, inj.Event); err != nil {
			return model.Response{}, false, err
		}
		s.k.cfg.Telemetry.CatalogInjected(ctx, inj.Reason, inj.Event.Meta[skillcatalog.DigestKey])
		s.observe(Update{Kind: UpdateInjected, Text: inj.Event.Text})
	}

	extra, err := hooks.ContextPrepare.Dispatch(ctx, s.k.hooks, prepareIn(s.ID(), step, cat))
	if err != nil {
		return model.Response{}, false, fmt.Errorf("context:prepare: %w", err)
	}
	// The view is built once per step: it is O(log) to build. The budget
	// check after the step adds what the step appended, all of it visible.
	view := session.ModelView(s.log)
	s.viewSize, s.stepGrowth = viewBytes(view), 0
	req := model.Request{
		System:   s.systemPrompt(extra),
		Messages: toMessages(view),
		Tools:    toModelTools(tools),
		CacheKey: s.ID(),
	}
	if s.cfg.Observe != nil {
		req.OnText = func(d string) { s.observe(Update{Kind: UpdateText, Text: d}) }
	}
	resp, err := s.generate(ctx, step, req)
	if err != nil {
		return model.Response{}, false, fmt.Errorf("model: %w", err)
	}

	s.uniqueCallIDs(resp.ToolCalls)
	usage := toUsage(resp.Usage)
	s.observe(Update{Kind: UpdateUsage, Usage: usage})
	evs := []session.Event{{Type: session.Assistant, Text: resp.Text, Meta: finishMeta(resp), Usage: usage}}
	for _, c := range resp.ToolCalls {
		evs = append(evs, session.Event{Type: session.ToolUse, ToolUseID: c.ID, ToolName: c.Name, Input: c.Arguments})
	}
	if err := s.append(ctx, evs...); err != nil {
		return model.Response{}, false, err
	}
	if err := s.runTools(ctx, cat, tools, resp.ToolCalls); err != nil {
		return model.Response{}, false, err
	}
	if s.stopped {
		s.stopped = false
		return resp, true, fmt.Errorf("%w: %s", ErrStopped, cmp.Or(strings.TrimSpace(s.stopReason), "no reason given"))
	}

	end, err := s.turnEnds(ctx, step, resp)
	if err != nil {
		return model.Response{}, false, err
	}
	if err := s.maybeCompact(ctx); err != nil {
		return model.Response{}, false, err
	}
	return resp, end, nil
}

// injectCapabilities appends what each Injector capability returns, in
// capability order, before the catalog. A failing injector costs only its
// own messages, with a warning.
func (s *Session) injectCapabilities(ctx context.Context) error {
	for _, c := range s.k.caps {
		inj, ok := c.Capability.(Injector)
		if !ok {
			continue
		}
		evs, err := inj.Inject(ctx, s.log)
		if err != nil {
			w := contract.Warning{Source: skills.CapabilitySource(c.Name()), Message: fmt.Sprintf("messages unavailable: %v", err)}
			s.k.warn(w, "inject", slog.String("source", w.Source), slog.String("message", w.Message))
			s.observe(Update{Kind: UpdateWarning, Text: w.String()})
			continue
		}
		if len(evs) == 0 {
			continue
		}
		if err := s.append(ctx, evs...); err != nil {
			return err
		}
		for _, ev := range evs {
			s.observe(Update{Kind: UpdateInjected, Text: ev.Text})
		}
	}
	return nil
}

// generate is one model request, in a "chat {model}" span when telemetry is
// on. The request and the answer enter the span only with content capture.
func (s *Session) generate(ctx context.Context, step int, req model.Request) (model.Response, error) {
	tel := s.k.cfg.Telemetry
	if tel == nil {
		return s.cfg.Model.Generate(ctx, req)
	}
	info := model.Info{Name: "unknown"}
	if d, ok := s.cfg.Model.(model.Describer); ok {
		info = d.Info()
	}
	ctx, chat := tel.StartChat(ctx, telemetry.ModelInfo{Provider: info.Provider, Model: info.Name, Server: info.Server}, step)
	resp, err := s.cfg.Model.Generate(ctx, req)
	r := telemetry.ChatResult{ResponseModel: resp.Model, FinishReason: resp.FinishReason,
		InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens,
		CacheReadTokens: resp.Usage.CacheReadTokens, CacheWriteTokens: resp.Usage.CacheWriteTokens}
	if tel.CaptureContent() {
		r.Input = contentJSON(struct {
			System   string          `json:"system"`
			Messages []model.Message `json:"messages"`
		}{req.System, req.Messages})
		r.Output = contentJSON(resp)
	}
	chat.End(ctx, r, err)
	return resp, err
}

// contentJSON renders a request or a response for a span attribute.
func contentJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unrenderable: %v", err)
	}
	return string(b)
}

// tools assembles the model's tools: skill tools (the one exit), then each
// capability's tools; a later tool with a taken name is dropped with a
// warning, and AllowedTools filters. It reports whether the skill tool of
// catalog mode is visible.
func (s *Session) tools(ctx context.Context, cat skills.Catalog) ([]contract.Tool, bool) {
	all, fromSkill, warns := s.k.tools(ctx, cat, s.budget)
	if t, ok := s.agentTool(ctx); ok {
		all, fromSkill = append(all, t), append(fromSkill, false)
	}
	if s.scope != nil && !s.scopeWarned {
		s.scopeWarned = true
		names := make([]string, len(all))
		for i, t := range all {
			names[i] = t.Name
		}
		warns := AgentScopeWarnings(s.scope.def, append(names, AgentToolName))
		if w, ok := agentModeWarning(s.scope.def, s.k.permissionMode()); ok {
			warns = append(warns, w)
		}
		for _, w := range warns {
			s.k.logger.Warn("subagent scope", slog.String("source", w.Source), slog.String("path", w.Path), slog.String("message", w.Message))
			s.observe(Update{Kind: UpdateWarning, Text: w.String()})
		}
	}
	for _, w := range warns {
		s.k.warn(w, "tools", slog.String("source", w.Source), slog.String("message", w.Message))
	}
	seen := map[string]bool{}
	var out []contract.Tool
	hasSkill := false
	for i, t := range all {
		if seen[t.Name] {
			s.k.warn(contract.Warning{Source: "kernel", Message: fmt.Sprintf("tool %q: name already taken; the later tool is dropped", t.Name)},
				"tool name already taken; dropping the later tool", slog.String("tool", t.Name))
			continue
		}
		seen[t.Name] = true
		if s.cfg.AllowedTools != nil && !slices.Contains(s.cfg.AllowedTools, t.Name) {
			continue
		}
		if !s.scope.allowsTool(t.Name, fromSkill[i]) {
			continue
		}
		// The skill tool of catalog mode, straight from ToSkillTools (a
		// capability's tool of that name was refused).
		if fromSkill[i] && t.Name == skills.SkillToolName && s.k.cfg.SkillsMode == skills.ModeCatalog {
			hasSkill = true
		}
		out = append(out, t)
	}
	return out, hasSkill
}

// stop records that a hook stopped the turn; the first reason is kept.
func (s *Session) stop(reason string) {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if !s.stopped {
		s.stopped, s.stopReason = true, reason
	}
}

// turnEnds asks turn:end; with no decision the turn ends when the model made
// no tool calls. The step limit ends the turn whatever a handler decided: a
// handler that always says "go on" must not make Run loop forever.
func (s *Session) turnEnds(ctx context.Context, step int, resp model.Response) (bool, error) {
	d, decided, err := hooks.TurnEnd.Dispatch(ctx, s.k.hooks, turnEndIn(s.ID(), step, resp, s.continued))
	if err != nil {
		return false, fmt.Errorf("turn:end: %w", err)
	}
	if step >= s.cfg.MaxSteps {
		return true, nil
	}
	if !decided {
		return len(resp.ToolCalls) == 0, nil
	}
	if !d.End {
		s.continued = true
		if text := strings.TrimSpace(d.Reason); text != "" {
			if err := s.append(ctx, session.Event{Type: session.Injected, Provenance: "turn:end", Text: text}); err != nil {
				return false, err
			}
			s.observe(Update{Kind: UpdateInjected, Text: text})
		}
	}
	return d.End, nil
}

// maybeCompact runs context:compact when the model view is over budget and
// appends the decided compaction marker.
func (s *Session) maybeCompact(ctx context.Context) error {
	size := s.viewSize + s.stepGrowth
	if size <= s.cfg.ContextBudget {
		return nil
	}
	if err := hooks.CompactBefore.Dispatch(ctx, s.hooks, CompactBeforeIn{SessionID: s.ID(), ViewBytes: size, Budget: s.cfg.ContextBudget}); err != nil {
		return err
	}
	c, decided, err := hooks.ContextCompact.Dispatch(ctx, s.hooks, compactIn(s.ID(), s.log, size, s.cfg.ContextBudget))
	if err != nil || !decided {
		return err
	}
	if err := s.append(ctx, session.Event{Type: session.Compaction, From: c.From, To: c.To, Text: c.Summary}); err != nil {
		return err
	}
	s.observe(Update{Kind: UpdateCompacted, Text: c.Summary})
	return nil
}

func (s *Session) systemPrompt(extra []string) string {
	parts := []string{s.cfg.SystemPrompt}
	if parts[0] == "" {
		parts[0] = defaultSystemPrompt()
	}
	parts = append(parts, s.k.SkillsPrompt())
	if m := s.k.Extensions(); m != "" {
		parts = append(parts, m)
	}
	parts = append(parts, nonEmpty(extra)...)
	return strings.Join(parts, "\n\n")
}

func (s *Session) append(ctx context.Context, evs ...session.Event) error {
	evs = redactEvents(s.k.cfg.Secrets, evs)
	if _, err := s.log.Append(ctx, evs...); err != nil {
		return fmt.Errorf("session %s: append: %w", s.ID(), err)
	}
	for _, ev := range evs {
		s.stepGrowth += eventBytes(ev)
	}
	return nil
}

func (s *Session) observe(u Update) {
	if s.cfg.Observe != nil {
		s.obsMu.Lock()
		defer s.obsMu.Unlock()
		s.cfg.Observe(u)
	}
}

// watch returns ctx with a warnings function (contract.WithWarnings) that
// tells Observe of each warning raised while the session dispatches: a
// hook handler that failed, a hook command that timed out.
func (s *Session) watch(ctx context.Context) context.Context {
	if s.cfg.Observe == nil {
		return ctx
	}
	return contract.WithWarnings(ctx, func(w contract.Warning) {
		s.observe(Update{Kind: UpdateWarning, Text: w.String()})
	})
}
