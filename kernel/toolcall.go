package kernel

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/telemetry"
)

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

// runTool passes one call through tool:before, runs it and appends its
// result. Failures the model should see are results, never Go errors.
func (s *Session) runTool(ctx context.Context, cat skills.Catalog, tools []contract.Tool, c model.ToolCall) error {
	s.observe(Update{Kind: UpdateToolCall, Call: c})
	s.stepSkills = cat
	res, pd := s.callTool(ctx, tools, c)
	return s.appendResult(ctx, cat, tools, c, res, pd)
}

// appendResult tells Observe of a call's result and appends it; an Agent
// call's result carries its child session's ID and usage.
func (s *Session) appendResult(ctx context.Context, cat skills.Catalog, tools []contract.Tool, c model.ToolCall, res contract.ToolResult, pd PermissionDecision) error {
	s.skillLoaded(cat, c, res)
	s.observe(Update{Kind: UpdateToolResult, Call: c, Text: res.Content, IsError: res.IsError, Permission: pd})
	meta := s.loadMeta(tools, c.Name, c.Arguments, res.IsError)
	if s.k.cfg.Permissions != nil {
		meta = permissionMeta(meta, pd)
	}
	ev := session.Event{Type: session.ToolResult, ToolUseID: c.ID, ToolName: c.Name, Text: res.Content, IsError: res.IsError,
		Meta: meta}
	if r := s.takeSubagent(c.ID); r != nil {
		ev.Meta = subagentMeta(ev.Meta, map[string]string{MetaSubagentSession: r.childID, MetaSubagentType: r.agentType})
		ev.Usage = r.usage
	}
	return s.append(ctx, ev)
}

func (s *Session) callTool(ctx context.Context, tools []contract.Tool, c model.ToolCall) (contract.ToolResult, PermissionDecision) {
	tel := s.k.cfg.Telemetry
	if tel == nil {
		res, pd, _ := s.execTool(ctx, tools, c)
		return res, pd
	}
	ctx, span := tel.StartTool(ctx, c.Name, c.ID, "function", string(c.Arguments))
	res, pd, errType := s.execTool(ctx, tools, c)
	if pd.Behavior != "" {
		span.SetAttributes(telemetry.PermissionDecision.String(pd.Behavior), telemetry.PermissionRule.String(pd.Rule))
	}
	tel.EndTool(span, errType, res.Content)
	return res, pd
}

// execTool runs one call through tool:before and the permission rules.
// Besides the result it returns the rules' decision and names the class of
// a failure for telemetry's error.type: "denied", "unknown_tool",
// "tool_error" (the tool's own error result or a Go error), "hook_error",
// or "" when the tool delivered.
func (s *Session) execTool(ctx context.Context, tools []contract.Tool, c model.ToolCall) (contract.ToolResult, PermissionDecision, string) {
	var pd PermissionDecision
	s.stopMu.Lock()
	stopped := s.stopped
	s.stopMu.Unlock()
	if stopped {
		return contract.ErrorResult("tool call %s not run: a hook stopped the turn", c.Name), pd, "denied"
	}
	i := slices.IndexFunc(tools, func(t contract.Tool) bool { return t.Name == c.Name })
	in := toolBeforeIn(s.ID(), c)
	if i >= 0 {
		in.Annotations = tools[i].Annotations
	}
	d, decided, err := hooks.ToolBefore.Dispatch(ctx, s.k.hooks, in)
	if err != nil {
		return contract.ErrorResult("tool call not run: %v", err), pd, "hook_error"
	}
	args := c.Arguments
	ask, askReason := false, ""
	if decided {
		if d.Stop {
			s.stop(d.StopReason)
			return contract.ErrorResult("tool call %s not run: a hook stopped the turn", c.Name), pd, "denied"
		}
		if d.Deny {
			reason := d.Reason
			if reason == "" {
				reason = "denied by policy"
			}
			return contract.ErrorResult("tool call %s denied: %s", c.Name, reason), pd, "denied"
		}
		if len(d.Args) > 0 {
			args = d.Args
		}
		ask, askReason = d.Ask, d.Reason
	}
	// The rules come after the hooks: a hook's deny wins, a hook's allow
	// does not pass a deny rule, and a rule's ask is asked as a hook's is.
	call := model.ToolCall{ID: c.ID, Name: c.Name, Arguments: args}
	pd = s.decide(ctx, call)
	pd = s.narrow(call, pd)
	switch pd.Behavior {
	case PermissionDeny:
		return contract.ErrorResult("tool call %s denied: %s", c.Name, pd.Reason), pd, "denied"
	case PermissionAsk:
		ask, askReason = true, strings.TrimSpace(askReason+"\n"+pd.Reason)
	}
	if ask {
		// permission:request answers before anyone is asked.
		req := PermissionRequestIn{SessionID: s.ID(), Call: hookdata.ToolCall(call), Rule: pd.Rule, Reason: askReason}
		if i >= 0 {
			req.Annotations = tools[i].Annotations
		}
		a, answered, err := hooks.PermissionRequest.Dispatch(ctx, s.k.hooks, req)
		switch {
		case err != nil:
			return contract.ErrorResult("tool call not run: %v", err), pd, "hook_error"
		case answered && a.Deny:
			why := cmp.Or(a.Message, "denied by a permission:request handler")
			if a.Interrupt {
				s.stop(why)
			}
			return contract.ErrorResult("tool call %s denied: %s", c.Name, why), pd, "denied"
		case answered && len(a.Args) > 0:
			// The rewritten call meets the deny rules again: an answer
			// never passes a deny.
			args = a.Args
			call.Arguments = args
			if re := s.decide(ctx, call); re.Behavior == PermissionDeny {
				return contract.ErrorResult("tool call %s denied: %s", c.Name, re.Reason), re, "denied"
			}
		case !answered:
			if why := s.confirm(ctx, call, askReason, pd, decided && d.Ask); why != "" {
				return contract.ErrorResult("tool call %s denied: %s", c.Name, why), pd, "denied"
			}
		}
	}
	if i < 0 {
		return contract.ErrorResult("unknown tool %q", c.Name), pd, "unknown_tool"
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := safeCall(context.WithValue(contract.WithSessionID(ctx, s.ID()), callIDKey{}, c.ID), tools[i], args)
	errType := ""
	switch {
	case err != nil:
		res, errType = contract.ErrorResult("tool %s failed: %v", c.Name, err), "tool_error"
	case res.IsError:
		errType = "tool_error"
	}
	return s.toolAfter(ctx, c, args, res), pd, errType
}

// confirm asks the person whether call may run, for a tool:before handler
// or a permission rule that wants it confirmed. It returns "" when the
// person allowed it, else why the call is denied, for the model. The
// question names the rule only when a rule alone asks: the person's
// "always" then answers that rule's later asks, never a hook's. The
// questions of a session and its subagents are asked one at a time, in the
// order they came, so a front door never has two open at once.
func (s *Session) confirm(ctx context.Context, call model.ToolCall, reason string, pd PermissionDecision, hookAsks bool) string {
	who, rule := "a hook asks", ""
	if pd.Behavior == PermissionAsk {
		who = "a permission rule asks"
		if pd.Rule != "" {
			who = fmt.Sprintf("the %s rule %q asks", pd.List, pd.Rule)
		}
		if !hookAsks {
			rule = pd.Rule
		}
	}
	if s.cfg.Confirm == nil {
		return who + " the person to confirm this call, and no one can be asked in this run (it is not interactive)"
	}
	select {
	case s.asking <- struct{}{}:
	case <-ctx.Done():
		return fmt.Sprintf("%s the person to confirm this call, and asking failed: %v", who, ctx.Err())
	}
	defer func() { <-s.asking }()
	ok, err := s.cfg.Confirm(ctx, Confirmation{Call: call, Reason: reason, Rule: rule})
	switch {
	case err != nil:
		return fmt.Sprintf("%s the person to confirm this call, and asking failed: %v", who, err)
	case !ok:
		return "the person did not allow it"
	}
	return ""
}

// toolAfter runs tool:after on a call that ran and returns its result with
// the handlers' contexts appended, in dispatch order.
func (s *Session) toolAfter(ctx context.Context, c model.ToolCall, args json.RawMessage, res contract.ToolResult) contract.ToolResult {
	fs, err := hooks.ToolAfter.Dispatch(ctx, s.k.hooks, toolAfterIn(s.ID(), c, args, res))
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

// safeCall runs a tool, turning a panic into an error.
func safeCall(ctx context.Context, t contract.Tool, args json.RawMessage) (res contract.ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return t.Call(ctx, args)
}
