package kernel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
)

// AgentToolName is the name of the tool through which the model hands a
// task to a subagent.
const AgentToolName = "Agent"

// The meta keys linking a parent and a child session (C33). The parent's
// result of an Agent call carries MetaSubagentSession; the child's first
// user message carries MetaParentSession and MetaParentToolUse.
const (
	MetaSubagentSession = "subagent_session"
	MetaSubagentType    = "subagent_type"
	MetaParentSession   = session.MetaParentSession
	MetaParentToolUse   = "parent_tool_use_id"
)

// Defaults of AgentsConfig.
const (
	DefaultAgentsMaxConcurrent = 4
	DefaultAgentsMaxDepth      = 1
	// agentCatalogChars bounds the list of agents in the Agent tool's
	// description, as the skill catalog is bounded.
	agentCatalogChars = 4096
)

// AgentDef is one subagent definition, in Claude Code's terms. A nil list
// means "unset" (the parent's); an empty non-nil list means none.
type AgentDef struct {
	// Name is what the model passes as subagent_type.
	Name string
	// Description says when to use it; the model reads it.
	Description string
	// Prompt is the subagent's system prompt.
	Prompt string
	// Tools are the tool names it gets; nil means the parent's tools.
	Tools []string
	// DisallowedTools are removed from Tools (or from the parent's).
	DisallowedTools []string
	// Skills are the names of the only skills it sees and can load; nil
	// means every skill of the parent.
	Skills []string
	// MCPServers are the names of the only MCP servers whose tools (and
	// skills) it gets; nil means the parent's.
	MCPServers []string
	// Model is "" or "inherit" (the parent's model), an alias of
	// AgentsConfig.Models, or a model name.
	Model string
	// MaxTurns bounds its steps; 0 means the parent's MaxSteps.
	MaxTurns int
	// PermissionMode is Claude Code's field. It can only narrow the
	// session's permission decisions: "plan" and "dontAsk" are applied on
	// top of them; "default" and "" change nothing; "acceptEdits",
	// "bypassPermissions" and "auto" would widen them and are refused with
	// a warning (acceptEdits is silent when the session runs in it).
	PermissionMode string
	// Source and Path say where it was read ("project", "user",
	// "plugin:<name>"; the file), for people.
	Source, Path string
}

// AgentSource offers subagent definitions. It is asked at every step, so a
// definition added meanwhile is offered at the next one; its warnings are
// about files skipped or doubted.
type AgentSource interface {
	Agents(ctx context.Context) ([]AgentDef, []contract.Warning)
}

// AgentsConfig configures subagents. The zero value offers no Agent tool.
type AgentsConfig struct {
	// Source offers the definitions; nil means no Agent tool.
	Source AgentSource
	// MaxConcurrent bounds the Agent calls of one step that run at once; 0
	// means DefaultAgentsMaxConcurrent.
	MaxConcurrent int
	// MaxDepth is how deep subagents may nest: a session at depth d (the
	// top one is 0) gets the Agent tool only when d < MaxDepth. 0 means
	// DefaultAgentsMaxDepth; negative means no Agent tool at all.
	MaxDepth int
	// Models maps a definition's model alias to a model name.
	Models map[string]string
	// NewModel builds a model by name (the same provider as the default
	// model). Nil: a definition naming a model other than "inherit" or an
	// unmapped Claude alias (sonnet, opus, haiku) fails with an error result.
	NewModel func(name string) (model.Model, error)
}

func (c AgentsConfig) maxConcurrent() int {
	return cmp.Or(max(c.MaxConcurrent, 0), DefaultAgentsMaxConcurrent)
}

func (c AgentsConfig) maxDepth() int {
	if c.MaxDepth < 0 {
		return 0
	}
	return cmp.Or(c.MaxDepth, DefaultAgentsMaxDepth)
}

// Agents returns the subagent definitions offered now, with the source's
// warnings (none without a source).
func (k *Kernel) Agents(ctx context.Context) ([]AgentDef, []contract.Warning) {
	if k.cfg.Agents.Source == nil {
		return nil, nil
	}
	return k.cfg.Agents.Source.Agents(ctx)
}

// AgentScopeWarnings names what of def's scope matches nothing among the
// tools available (the names a session's model could get): an unknown tool
// in tools or disallowedTools. The rest of the scope applies.
func AgentScopeWarnings(def AgentDef, available []string) []contract.Warning {
	var out []contract.Warning
	for _, field := range []struct {
		key   string
		names []string
	}{{"tools", def.Tools}, {"disallowedTools", def.DisallowedTools}} {
		for _, n := range field.names {
			if !slices.Contains(available, n) {
				out = append(out, contract.Warning{Source: def.Source, Path: def.Path,
					Message: fmt.Sprintf("%s: unknown tool %q; ignored, the rest applies", field.key, n)})
			}
		}
	}
	return out
}

// agentScope is what a child session may use. Nil lists allow everything.
type agentScope struct {
	def AgentDef
}

// allowsTool reports whether the scope lets the child's model have tool t;
// skill says t is one of the skill tools (governed by the skills scope, the
// filtered catalog, never by tools).
func (sc *agentScope) allowsTool(name string, skill bool) bool {
	if sc == nil {
		return true
	}
	if slices.Contains(sc.def.DisallowedTools, name) {
		return false
	}
	if skill {
		return true
	}
	if server, ok := mcpServerOf(name); ok && sc.def.MCPServers != nil && !slices.Contains(sc.def.MCPServers, server) {
		return false
	}
	return sc.def.Tools == nil || slices.Contains(sc.def.Tools, name)
}

// mcpServerOf returns the server of an MCP tool name mcp__<server>__<tool>.
func mcpServerOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", false
	}
	server, _, ok := strings.Cut(rest, "__")
	return server, ok
}

// filter returns the view of cat the child may see: only its skills, and
// none of an MCP server outside its servers. It is a new catalog over the
// same merged skills, rendered through the same exit (skills.ToSkillTools), so a
// skill outside it is neither listed nor loadable.
func (sc *agentScope) filter(cat skills.Catalog) skills.Catalog {
	if sc == nil || (sc.def.Skills == nil && sc.def.MCPServers == nil) {
		return cat
	}
	out := skills.Catalog{Complete: cat.Complete, ProvidersAsked: cat.ProvidersAsked}
	for _, s := range cat.Skills {
		if sc.def.Skills != nil && !slices.Contains(sc.def.Skills, s.Name) {
			continue
		}
		if server, ok := strings.CutPrefix(s.Source, "mcp:"); ok && sc.def.MCPServers != nil && !slices.Contains(sc.def.MCPServers, server) {
			continue
		}
		out.Skills = append(out.Skills, s)
	}
	return out
}

// agentArgs is the Agent tool's input.
type agentArgs struct {
	SubagentType string `json:"subagent_type" jsonschema:"The subagent to use: one of the names listed in this tool's description."`
	Description  string `json:"description" jsonschema:"A short (3-5 word) description of the task, shown to the person."`
	Prompt       string `json:"prompt" jsonschema:"The task for the subagent, with everything it needs to know: it does not see this conversation."`
}

// subagentRun is what the parent's log records of one Agent call.
type subagentRun struct {
	childID, agentType string
	usage              session.Usage
}

// agentTool returns the Agent tool for this step's definitions, or false
// when the session may not start subagents or none is defined.
func (s *Session) agentTool(ctx context.Context) (contract.Tool, bool) {
	src := s.k.cfg.Agents.Source
	if src == nil || s.depth >= s.k.cfg.Agents.maxDepth() {
		return contract.Tool{}, false
	}
	defs, warns := src.Agents(ctx)
	for _, w := range warns {
		s.k.logger.Warn("agents", slog.String("source", w.Source), slog.String("path", w.Path), slog.String("message", w.Message))
	}
	if len(defs) == 0 {
		return contract.Tool{}, false // nothing to delegate to: the tool would only cost tokens
	}
	desc := texts.Text("agent_tool.md.tmpl", agentCatalog(defs, agentCatalogChars))
	return contract.NewTool(AgentToolName, desc, func(ctx context.Context, in agentArgs) (contract.ToolResult, error) {
		i := slices.IndexFunc(defs, func(d AgentDef) bool { return d.Name == in.SubagentType })
		if i < 0 {
			names := make([]string, len(defs))
			for j, d := range defs {
				names[j] = d.Name
			}
			if close := skills.CloseMatches(in.SubagentType, names); len(close) > 0 {
				return contract.ErrorResult("unknown subagent_type %q (did you mean %s?)", in.SubagentType, strings.Join(close, ", ")), nil
			}
			return contract.ErrorResult("unknown subagent_type %q", in.SubagentType), nil
		}
		return s.runSubagent(ctx, defs[i], in), nil
	}), true
}

// agentCatalog is the data of agent_tool.md.tmpl: the definitions in order,
// names and descriptions escaped as the skills catalog's are, within chars:
// descriptions are shortened evenly first, then the last agents are left
// out and counted.
func agentCatalog(defs []AgentDef, chars int) map[string]any {
	type line struct{ Name, Description string }
	lines := make([]line, 0, len(defs))
	total := 0
	for _, d := range defs {
		name, _ := sanitize.Clean(d.Name)
		desc, _ := sanitize.Clean(strings.Join(strings.Fields(d.Description), " "))
		lines = append(lines, line{name, desc})
		total += len(name) + len(desc) + 4
	}
	if total > chars && len(lines) > 0 {
		each := max(chars/len(lines)-4, 40)
		total = 0
		for i := range lines {
			room := max(each-len(lines[i].Name), 20)
			if r := []rune(lines[i].Description); len(r) > room {
				lines[i].Description = string(r[:room-1]) + "…"
			}
			total += len(lines[i].Name) + len(lines[i].Description) + 4
		}
	}
	omitted := 0
	for total > chars && len(lines) > 0 {
		last := lines[len(lines)-1]
		total -= len(last.Name) + len(last.Description) + 4
		lines, omitted = lines[:len(lines)-1], omitted+1
	}
	for i := range lines {
		lines[i].Name, lines[i].Description = markup.Replace(lines[i].Name), markup.Replace(lines[i].Description)
	}
	return map[string]any{"Agents": lines, "Omitted": omitted}
}

// runSubagent runs def's turn on in.Prompt in a child session linked to s,
// and returns its final text as the result. Whatever goes wrong is an error
// result: a subagent never fails its parent's turn.
func (s *Session) runSubagent(ctx context.Context, def AgentDef, in agentArgs) contract.ToolResult {
	callID := toolCallID(ctx)
	m, err := s.k.agentModel(s.cfg.Model, def.Model)
	if err != nil {
		return contract.ErrorResult("subagent %s not started: %v", def.Name, err)
	}
	child, err := s.k.OpenSession(ctx, SessionConfig{
		Model:         m,
		Store:         s.cfg.Store,
		MaxSteps:      cmp.Or(max(def.MaxTurns, 0), s.cfg.MaxSteps),
		ContextBudget: s.cfg.ContextBudget,
		SystemPrompt:  def.Prompt,
		Confirm:       s.cfg.Confirm,
		Observe:       s.childObserver(callID, def.Name),
		parent:        &parentLink{session: s, toolUseID: callID, scope: &agentScope{def: def}},
	})
	if err != nil {
		return contract.ErrorResult("subagent %s not started: %v", def.Name, err)
	}
	_ = hooks.SubagentStart.Dispatch(s.watch(ctx), s.k.hooks, SubagentStartIn{SessionID: s.ID(), AgentID: child.ID(), AgentType: def.Name, ToolUseID: callID})
	answer, runErr := child.Run(ctx, in.Prompt)
	for continued := false; ; continued = true {
		stop := SubagentStopIn{SessionID: s.ID(), AgentID: child.ID(), AgentType: def.Name, ToolUseID: callID, LastAssistantMessage: answer, Continued: continued}
		if runErr != nil {
			stop.LastAssistantMessage, stop.Error = "", runErr.Error()
		}
		ds, _ := hooks.SubagentStop.Dispatch(s.watch(context.WithoutCancel(ctx)), s.k.hooks, stop)
		next, goOn := subagentGoesOn(ds)
		left := child.cfg.MaxSteps - childRequests(child.log)
		if !goOn || runErr != nil || left <= 0 || ctx.Err() != nil {
			break
		}
		// A handler keeps the subagent going: its reason is the next
		// prompt, within what is left of maxTurns.
		child.cfg.MaxSteps = left
		answer, runErr = child.Run(ctx, next)
	}
	run := &subagentRun{childID: child.ID(), agentType: def.Name, usage: childUsage(child.log)}
	s.recordSubagent(callID, run)
	if err := child.Close(); err != nil && runErr == nil {
		s.k.logger.Warn("close subagent session", slog.String("session", child.ID()), slog.String("error", err.Error()))
	}
	if runErr != nil {
		return contract.ErrorResult("subagent %s (session %s) failed: %v", def.Name, child.ID(), runErr)
	}
	if strings.TrimSpace(answer) == "" {
		answer = fmt.Sprintf("(subagent %s ended without a final answer)", def.Name)
	}
	return contract.ToolResult{Content: answer}
}

// ErrMaxTurns is wrapped by the error of a subagent's turn that reached its
// step limit while still calling tools.
var ErrMaxTurns = errors.New("reached its maxTurns")

// parentLink ties a child session to the Agent call that started it.
type parentLink struct {
	session   *Session
	toolUseID string
	scope     *agentScope
}

// subagentGoesOn reads subagent:stop's decisions: the subagent goes on when
// one has End false, with the first non-empty reason as its next prompt.
func subagentGoesOn(ds []TurnDecision) (string, bool) {
	goOn, next := false, ""
	for _, d := range ds {
		if !d.End {
			goOn = true
			next = cmp.Or(next, strings.TrimSpace(d.Reason))
		}
	}
	return cmp.Or(next, "A hook asks you to go on."), goOn
}

// childRequests counts a child's model requests: its assistant events.
func childRequests(l session.Log) int {
	n := 0
	for i := range l.Len() {
		if l.At(i).Type == session.Assistant {
			n++
		}
	}
	return n
}

// childUsage sums the usage recorded in a child's log: its model requests
// and, for a nested child, its own children's.
func childUsage(l session.Log) session.Usage {
	var u session.Usage
	for i := range l.Len() {
		if ev := l.At(i); ev.Type == session.Assistant || ev.Type == session.ToolResult {
			u = u.Add(ev.Usage)
		}
	}
	return u
}

// agentModel resolves a definition's model: "" and "inherit" are parent; an
// alias of Models names a model; an unmapped Claude alias inherits; any other
// name is built by NewModel.
func (k *Kernel) agentModel(parent model.Model, name string) (model.Model, error) {
	if name == "" || name == "inherit" {
		return parent, nil
	}
	if to, ok := k.cfg.Agents.Models[name]; ok {
		name = to
	} else if name == "sonnet" || name == "opus" || name == "haiku" {
		return parent, nil
	}
	if k.cfg.Agents.NewModel == nil {
		return nil, fmt.Errorf("model %q: no model can be built by name here; map it in agents.models or use \"inherit\"", name)
	}
	m, err := k.cfg.Agents.NewModel(name)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", name, err)
	}
	return m, nil
}

// childObserver forwards a child's progress to the parent's Observe as
// UpdateSubagent updates of the parent's call.
func (s *Session) childObserver(callID, agentType string) func(Update) {
	if s.cfg.Observe == nil {
		return nil
	}
	call := model.ToolCall{ID: callID, Name: AgentToolName}
	return func(u Update) {
		var text string
		switch u.Kind {
		case UpdateToolCall:
			text = agentType + ": " + u.Call.Name
		case UpdateUsage:
			s.observe(Update{Kind: UpdateSubagent, Call: call, Usage: u.Usage, Text: agentType + ": answered"})
			return
		case UpdateSubagent: // a nested subagent's, its tokens carried up
			s.observe(Update{Kind: UpdateSubagent, Call: call, Usage: u.Usage, Text: agentType + " › " + u.Text})
			return
		case UpdateWarning: // its scope's and mode's, for the person
			s.observe(u)
			return
		default:
			return
		}
		s.observe(Update{Kind: UpdateSubagent, Call: call, Text: text})
	}
}

type callIDKey struct{}

// toolCallID returns the ID of the tool call ctx runs (set by execTool).
func toolCallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

func (s *Session) recordSubagent(callID string, r *subagentRun) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if s.subagents == nil {
		s.subagents = map[string]*subagentRun{}
	}
	s.subagents[callID] = r
}

// takeSubagent returns and forgets what a call's subagent recorded.
func (s *Session) takeSubagent(callID string) *subagentRun {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	r := s.subagents[callID]
	delete(s.subagents, callID)
	return r
}

// runTools runs a step's calls in order, appending each result. Consecutive
// Agent calls run concurrently, at most AgentsConfig.MaxConcurrent at once;
// their results are appended in call order once all of them ended.
func (s *Session) runTools(ctx context.Context, cat skills.Catalog, tools []contract.Tool, calls []model.ToolCall) error {
	for i := 0; i < len(calls); {
		j := i + 1
		if calls[i].Name == AgentToolName {
			for j < len(calls) && calls[j].Name == AgentToolName {
				j++
			}
		}
		if j-i == 1 {
			if err := s.runTool(ctx, cat, tools, calls[i]); err != nil {
				return err
			}
			i = j
			continue
		}
		group := calls[i:j]
		results := make([]contract.ToolResult, len(group))
		decisions := make([]PermissionDecision, len(group))
		sem := make(chan struct{}, s.k.cfg.Agents.maxConcurrent())
		var wg sync.WaitGroup
		for n, c := range group {
			s.observe(Update{Kind: UpdateToolCall, Call: c})
			wg.Go(func() {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					results[n] = contract.ErrorResult("tool call %s not run: %v", c.Name, ctx.Err())
					return
				}
				defer func() { <-sem }()
				results[n], decisions[n] = s.callTool(ctx, tools, c)
			})
		}
		wg.Wait()
		for n, c := range group {
			if err := s.appendResult(ctx, cat, tools, c, results[n], decisions[n]); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// subagentMeta adds the link keys to meta (a permission decision's keys may
// be there already).
func subagentMeta(meta, link map[string]string) map[string]string {
	if meta == nil {
		return link
	}
	for k, v := range link {
		meta[k] = v
	}
	return meta
}
