package kernel

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/skills"
)

// Permissions decides whether a tool call may run: the person's permission
// rules (C31). The kernel consults it for every call, after tool:before and
// before the tool runs; the assembly wires caps/permissions to it.
type Permissions interface {
	Decide(ctx context.Context, q PermissionQuery) PermissionDecision
}

// PermissionQuery is one call to decide.
type PermissionQuery struct {
	// Call is the call as it would run (its arguments rewritten, if a
	// tool:before handler did).
	Call model.ToolCall
	// Preapproved are the allowed-tools rules of the skills loaded in the
	// current turn and of the slash command that started it: they turn an
	// ask or an unmatched call into allow, never a deny.
	Preapproved []string
	// Skill is the skill the call loads when Call is a skill's own tool
	// (skills.ModeTools names each tool by its skill), so that a
	// Skill(name) rule meets it as it meets the catalog tool's call; ""
	// for every other call.
	Skill string
}

// The behaviors of a PermissionDecision.
const (
	PermissionAllow = "allow"
	PermissionAsk   = "ask"
	PermissionDeny  = "deny"
)

// PermissionDecision is what the rules decided. The zero value is no
// decision: the call runs.
type PermissionDecision struct {
	// Behavior is PermissionAllow, PermissionAsk or PermissionDeny.
	Behavior string
	// Rule is the rule that decided; "" when the mode did.
	Rule string
	// List is the list the rule came from ("deny", "ask", "allow",
	// "allowed-tools") or "defaultMode".
	List string
	// Reason is one line naming rule and list, for the model and the person.
	Reason string
}

// Log keys of a tool result's Meta that record the permission decision,
// set when the kernel has Permissions.
const (
	PermissionDecisionKey = "permission.decision"
	PermissionRuleKey     = "permission.rule"
	PermissionListKey     = "permission.list"
)

type preapprovedKey struct{}

// WithPreapproved returns ctx carrying rules that pre-approve calls for the
// turn Session.Run starts with it: a slash command's allowed-tools.
func WithPreapproved(ctx context.Context, rules []string) context.Context {
	return context.WithValue(ctx, preapprovedKey{}, slices.Clone(rules))
}

func preapprovedOf(ctx context.Context) []string {
	rules, _ := ctx.Value(preapprovedKey{}).([]string)
	return rules
}

// decide asks the Permissions port about call; nil Permissions allows all.
func (s *Session) decide(ctx context.Context, call model.ToolCall) PermissionDecision {
	p := s.k.cfg.Permissions
	if p == nil {
		return PermissionDecision{}
	}
	q := PermissionQuery{Call: call, Preapproved: slices.Clip(s.preapproved)}
	if s.k.cfg.SkillsMode == skills.ModeTools {
		if _, ok := s.stepSkills.Lookup(call.Name); ok {
			q.Skill = call.Name
		}
	}
	return p.Decide(ctx, q)
}

// skillLoaded adds the allowed-tools of the skill a successful call loaded
// to the turn's pre-approved rules: the skill tool of catalog mode by its
// name argument, or a skill's own tool in tools mode.
func (s *Session) skillLoaded(cat skills.Catalog, c model.ToolCall, res contract.ToolResult) {
	if s.k.cfg.Permissions == nil || res.IsError {
		return
	}
	name := c.Name
	switch {
	case c.Name == skills.SkillToolName && s.k.cfg.SkillsMode == skills.ModeCatalog:
		name = skillArg(c.Arguments)
	case s.k.cfg.SkillsMode != skills.ModeTools:
		return
	}
	if sk, ok := cat.Lookup(name); ok {
		s.preapproved = append(s.preapproved, sk.AllowedTools...)
	}
}

// skillArg is the name argument of a skill tool call.
func skillArg(args json.RawMessage) string {
	var a struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(args, &a)
	return a.Name
}

// permissionMeta records d in a tool result's Meta.
func permissionMeta(meta map[string]string, d PermissionDecision) map[string]string {
	if meta == nil {
		meta = map[string]string{}
	}
	meta[PermissionDecisionKey] = d.Behavior
	if d.Rule != "" {
		meta[PermissionRuleKey] = d.Rule
	}
	if d.List != "" {
		meta[PermissionListKey] = d.List
	}
	return meta
}
