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
	// model is told why.
	Confirm func(ctx context.Context, q Confirmation) (bool, error)
}

// Confirmation is a question to the person: may this tool call run?
type Confirmation struct {
	// Call is the call as it would run (its arguments rewritten, if a
	// handler did).
	Call model.ToolCall
	// Reason is why the handler asks; it may be empty.
	Reason string
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
	// ended says session:end ran.
	ended bool
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

// NoModel says why a session without a model of its own cannot open: nil
// when the kernel has a default model, else the error OpenSession returns
// (it names the config key or variable to set). The UI shows it at start,
// before any session is opened.
func (k *Kernel) NoModel() error {
	switch {
	case k.cfg.Model != nil:
		return nil
	case k.cfg.NoModel != nil:
		return fmt.Errorf("open session: %w", k.cfg.NoModel)
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
		if k.cfg.NoModel != nil {
			return nil, fmt.Errorf("open session: %w", k.cfg.NoModel)
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
	s := &Session{k: k, cfg: cfg, hooks: reg, callIDs: map[string]bool{}}
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
	outs, err := SessionStart.Dispatch(s.watch(ctx), reg, SessionStartIn{SessionID: s.log.ID(), WorkDir: k.workDir})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("session:start: %w", err), s.log.Close())
	}
	if text := strings.Join(nonEmpty(outs), "\n\n"); text != "" {
		if err := s.append(ctx, session.Event{Type: session.Injected, Provenance: "session:start", Text: text}); err != nil {
			return nil, errors.Join(err, s.log.Close())
		}
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
		err = SessionEnd.Dispatch(s.watch(context.Background()), s.hooks, SessionEndIn{SessionID: s.ID(), WorkDir: s.k.workDir})
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
	if err := s.submit(ctx, prompt); err != nil {
		return "", err
	}
	for step := 1; ; step++ {
		resp, end, err := s.Step(ctx, step)
		if err != nil {
			return "", err
		}
		if end {
			return resp.Text, nil
		}
	}
}

// submit runs prompt:submit and appends the prompt with the contexts the
// handlers added, unless one blocked it: then nothing is appended.
func (s *Session) submit(ctx context.Context, prompt string) error {
	ds, err := PromptSubmit.Dispatch(s.watch(ctx), s.k.hooks, PromptSubmitIn{SessionID: s.ID(), Prompt: prompt})
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
	cat := s.k.Catalog(ctx)
	tools, hasSkillTool := s.tools(ctx, cat)

	s.k.catalogView(cat, s.budget) // tells a person, once per change, what the budget cut
	if inj := InjectCatalogWithin(s.log, cat, hasSkillTool, s.budget); inj.Append {
		if err := s.append(ctx, inj.Event); err != nil {
			return model.Response{}, false, err
		}
		s.k.cfg.Telemetry.CatalogInjected(ctx, inj.Reason, inj.Event.Meta[skills.CatalogDigestKey])
		s.observe(Update{Kind: UpdateInjected, Text: inj.Event.Text})
	}

	extra, err := ContextPrepare.Dispatch(ctx, s.k.hooks, prepareIn(s.ID(), step, cat))
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
	for _, c := range resp.ToolCalls {
		if err := s.runTool(ctx, tools, c); err != nil {
			return model.Response{}, false, err
		}
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

// uniqueCallIDs gives every call an ID not used before in this session.
func (s *Session) uniqueCallIDs(calls []model.ToolCall) {
	for i := range calls {
		id := calls[i].ID
		for n := 1; id == "" || s.callIDs[id]; n++ {
			id = fmt.Sprintf("%s~%d", calls[i].ID, n)
		}
		calls[i].ID = id
		s.callIDs[id] = true
	}
}

// tools assembles the model's tools: skill tools (the one exit), then each
// capability's tools; a later tool with a taken name is dropped with a
// warning, and AllowedTools filters. It reports whether the skill tool of
// catalog mode is visible.
func (s *Session) tools(ctx context.Context, cat skills.Catalog) ([]contract.Tool, bool) {
	all, warns := s.k.tools(ctx, cat, s.budget)
	for _, w := range warns {
		s.k.logger.Warn("tools", slog.String("source", w.Source), slog.String("message", w.Message))
	}
	seen := map[string]bool{}
	var out []contract.Tool
	hasSkill := false
	for i, t := range all {
		if seen[t.Name] {
			s.k.logger.Warn("tool name already taken; dropping the later tool", slog.String("tool", t.Name))
			continue
		}
		seen[t.Name] = true
		if s.cfg.AllowedTools != nil && !slices.Contains(s.cfg.AllowedTools, t.Name) {
			continue
		}
		// The skill tool is the first tool of catalog mode, straight from
		// ToSkillTools; a capability's tool of the same name never counts.
		if i == 0 && t.Name == skills.SkillToolName && s.k.cfg.SkillsMode == skills.ModeCatalog {
			hasSkill = true
		}
		out = append(out, t)
	}
	return out, hasSkill
}

// runTool passes one call through tool:before, runs it and appends its
// result. Failures the model should see are results, never Go errors.
func (s *Session) runTool(ctx context.Context, tools []contract.Tool, c model.ToolCall) error {
	s.observe(Update{Kind: UpdateToolCall, Call: c})
	res := s.callTool(ctx, tools, c)
	s.observe(Update{Kind: UpdateToolResult, Call: c, Text: res.Content, IsError: res.IsError})
	return s.append(ctx, session.Event{Type: session.ToolResult, ToolUseID: c.ID, ToolName: c.Name, Text: res.Content, IsError: res.IsError,
		Meta: s.loadMeta(tools, c.Name, c.Arguments, res.IsError)})
}

func (s *Session) callTool(ctx context.Context, tools []contract.Tool, c model.ToolCall) contract.ToolResult {
	tel := s.k.cfg.Telemetry
	if tel == nil {
		res, _ := s.execTool(ctx, tools, c)
		return res
	}
	ctx, span := tel.StartTool(ctx, c.Name, c.ID, "function", string(c.Arguments))
	res, errType := s.execTool(ctx, tools, c)
	tel.EndTool(span, errType, res.Content)
	return res
}

// execTool runs one call through tool:before. Besides the result it names
// the class of a failure for telemetry's error.type: "denied",
// "unknown_tool", "tool_error" (the tool's own error result or a Go error),
// "hook_error", or "" when the tool delivered.
func (s *Session) execTool(ctx context.Context, tools []contract.Tool, c model.ToolCall) (contract.ToolResult, string) {
	if s.stopped {
		return contract.ErrorResult("tool call %s not run: a hook stopped the turn", c.Name), "denied"
	}
	i := slices.IndexFunc(tools, func(t contract.Tool) bool { return t.Name == c.Name })
	in := toolBeforeIn(s.ID(), c)
	if i >= 0 {
		in.Annotations = tools[i].Annotations
	}
	d, decided, err := ToolBefore.Dispatch(ctx, s.k.hooks, in)
	if err != nil {
		return contract.ErrorResult("tool call not run: %v", err), "hook_error"
	}
	args := c.Arguments
	if decided {
		if d.Stop {
			s.stop(d.StopReason)
			return contract.ErrorResult("tool call %s not run: a hook stopped the turn", c.Name), "denied"
		}
		if d.Deny {
			reason := d.Reason
			if reason == "" {
				reason = "denied by policy"
			}
			return contract.ErrorResult("tool call %s denied: %s", c.Name, reason), "denied"
		}
		if len(d.Args) > 0 {
			args = d.Args
		}
		if d.Ask {
			if why := s.confirm(ctx, model.ToolCall{ID: c.ID, Name: c.Name, Arguments: args}, d.Reason); why != "" {
				return contract.ErrorResult("tool call %s denied: %s", c.Name, why), "denied"
			}
		}
	}
	if i < 0 {
		return contract.ErrorResult("unknown tool %q", c.Name), "unknown_tool"
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := safeCall(contract.WithSessionID(ctx, s.ID()), tools[i], args)
	errType := ""
	switch {
	case err != nil:
		res, errType = contract.ErrorResult("tool %s failed: %v", c.Name, err), "tool_error"
	case res.IsError:
		errType = "tool_error"
	}
	return s.toolAfter(ctx, c, args, res), errType
}

// confirm asks the person whether call may run, for a tool:before handler
// that wants it confirmed. It returns "" when the person allowed it, else
// why the call is denied, for the model.
func (s *Session) confirm(ctx context.Context, call model.ToolCall, reason string) string {
	if s.cfg.Confirm == nil {
		return "a hook asks the person to confirm this call, and no one can be asked in this run (it is not interactive)"
	}
	ok, err := s.cfg.Confirm(ctx, Confirmation{Call: call, Reason: reason})
	switch {
	case err != nil:
		return fmt.Sprintf("a hook asks the person to confirm this call, and asking failed: %v", err)
	case !ok:
		return "the person did not allow it"
	}
	return ""
}

// toolAfter runs tool:after on a call that ran and returns its result with
// the handlers' contexts appended, in dispatch order.
func (s *Session) toolAfter(ctx context.Context, c model.ToolCall, args json.RawMessage, res contract.ToolResult) contract.ToolResult {
	fs, err := ToolAfter.Dispatch(ctx, s.k.hooks, toolAfterIn(s.ID(), c, args, res))
	if err != nil {
		return res // the context ended: the result stands as it is
	}
	texts := make([]string, 0, len(fs))
	for _, f := range fs {
		if f.Stop {
			s.stop(f.StopReason)
		}
		texts = append(texts, f.Context)
	}
	if text := strings.Join(nonEmpty(texts), "\n\n"); text != "" {
		res.Content = strings.TrimRight(res.Content, "\n") + "\n\n" + text
	}
	return res
}

// stop records that a hook stopped the turn; the first reason is kept.
func (s *Session) stop(reason string) {
	if !s.stopped {
		s.stopped, s.stopReason = true, reason
	}
}

// safeCall runs a tool, turning a panic into an error.
func safeCall(ctx context.Context, t contract.Tool, args json.RawMessage) (res contract.ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return t.Call(ctx, args)
}

// turnEnds asks turn:end; with no decision the turn ends when the model made
// no tool calls. The step limit ends the turn whatever a handler decided: a
// handler that always says "go on" must not make Run loop forever.
func (s *Session) turnEnds(ctx context.Context, step int, resp model.Response) (bool, error) {
	d, decided, err := TurnEnd.Dispatch(ctx, s.k.hooks, turnEndIn(s.ID(), step, resp, s.continued))
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
	if err := CompactBefore.Dispatch(ctx, s.hooks, CompactBeforeIn{SessionID: s.ID(), ViewBytes: size, Budget: s.cfg.ContextBudget}); err != nil {
		return err
	}
	c, decided, err := ContextCompact.Dispatch(ctx, s.hooks, compactIn(s.ID(), s.log, size, s.cfg.ContextBudget))
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

// toUsage is the usage a session records.
func toUsage(u model.Usage) session.Usage {
	return session.Usage{Input: u.PromptTokens, Output: u.CompletionTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens}
}

func finishMeta(r model.Response) map[string]string {
	if r.FinishReason == "" {
		return nil
	}
	return map[string]string{"finish": r.FinishReason}
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func toModelTools(ts []contract.Tool) []model.Tool {
	out := make([]model.Tool, len(ts))
	for i, t := range ts {
		p := t.Schema
		if len(p) == 0 {
			p = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out[i] = model.Tool{Name: t.Name, Description: t.Description, Parameters: p}
	}
	return out
}

// toMessages turns the model view into chat messages: tool calls join the
// assistant message before them, injected messages and compaction summaries
// speak on the user's side. Providers want each call answered right after
// its assistant message, so the results follow their calls in call order
// wherever the log holds them (a result written late, by a repair, still
// pairs); a call the view holds no result for gets session.Interrupted's,
// and a result whose call the view does not hold is left out. The newest
// skills catalog is the cache point: the catalog is appended, never
// rewritten, so everything up to it is a prefix every later request repeats.
func toMessages(view []session.Event) []model.Message {
	results := map[string]session.Event{}
	catalog := -1
	for _, ev := range view {
		if _, dup := results[ev.ToolUseID]; ev.Type == session.ToolResult && !dup {
			results[ev.ToolUseID] = ev
		}
	}
	var out []model.Message
	var calls []session.Event // the calls of the last assistant message, unanswered yet
	answer := func() {
		for _, c := range calls {
			r, ok := results[c.ToolUseID]
			if !ok {
				r = session.Interrupted(c)
			}
			delete(results, c.ToolUseID)
			out = append(out, model.Message{Role: model.RoleTool, ToolCallID: c.ToolUseID, Content: r.Text, IsError: r.IsError})
		}
		calls = calls[:0]
	}
	for _, ev := range view {
		if ev.Type != session.ToolUse {
			answer()
		}
		switch ev.Type {
		case session.User, session.Injected:
			if ev.Type == session.Injected && ev.Provenance == skills.CatalogProvenance {
				catalog = len(out)
			}
			out = append(out, model.Message{Role: model.RoleUser, Content: ev.Text})
		case session.Compaction:
			out = append(out, model.Message{Role: model.RoleUser, Content: summaryHead() + "\n" + ev.Text})
		case session.Assistant:
			out = append(out, model.Message{Role: model.RoleAssistant, Content: ev.Text})
		case session.ToolUse:
			if n := len(out); n == 0 || out[n-1].Role != model.RoleAssistant {
				out = append(out, model.Message{Role: model.RoleAssistant})
			}
			last := &out[len(out)-1]
			last.ToolCalls = append(last.ToolCalls, model.ToolCall{ID: ev.ToolUseID, Name: ev.ToolName, Arguments: ev.Input})
			calls = append(calls, ev)
		}
	}
	answer()
	if catalog >= 0 {
		out[catalog].CachePoint = true
	}
	return out
}

func viewBytes(view []session.Event) int {
	n := 0
	for _, ev := range view {
		n += eventBytes(ev)
	}
	return n
}

func eventBytes(ev session.Event) int { return len(ev.Text) + len(ev.Input) }
