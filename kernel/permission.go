package kernel

import (
	"context"
	"encoding/json"
	"fmt"
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

// The permissionModes of a subagent definition the kernel applies.
const (
	agentModePlan    = "plan"
	agentModeDontAsk = "dontAsk"
)

// planReadOnly are the tools a "plan" subagent may run unmatched: those
// caps/permissions' defaultMode "plan" lets run (a tools-mode skill's own
// tool counts as the skill tool).
var planReadOnly = map[string]bool{"Read": true, "Glob": true, "Grep": true, skills.SkillToolName: true, "skill_search": true}

// narrowingMode reports whether a definition's permissionMode narrows the
// session's decisions (and so is applied).
func narrowingMode(mode string) bool {
	return mode == agentModePlan || mode == agentModeDontAsk
}

// permissionModer is a Permissions that knows the mode it decides
// unmatched calls by (caps/permissions' defaultMode).
type permissionModer interface {
	Mode() string
}

// permissionMode is the session's permission mode as the Permissions port
// reports it; "default" when it cannot say.
func (k *Kernel) permissionMode() string {
	if m, ok := k.cfg.Permissions.(permissionModer); ok && m.Mode() != "" {
		return m.Mode()
	}
	return "default"
}

// agentModeWarning is the warning for a definition's permissionMode that
// would widen the session's mode, and so is refused: a subagent never gets
// more than its parent.
func agentModeWarning(def AgentDef, sessionMode string) (contract.Warning, bool) {
	switch m := def.PermissionMode; {
	case m == "acceptEdits" && sessionMode != "acceptEdits",
		m == "bypassPermissions", m == "auto":
		return contract.Warning{Source: def.Source, Path: def.Path, Message: fmt.Sprintf(
			"permissionMode: %q would widen the session's mode %q; refused, the session's permission rules apply", m, sessionMode)}, true
	}
	return contract.Warning{}, false
}

// narrow applies the session's subagent permissionModes to d, the rules'
// decision on call. As caps/permissions' modes, they decide only what no
// rule allowed: a deny stays, an allow rule's allow stays; "dontAsk" denies
// an ask and every unmatched call, "plan" every unmatched call but a
// read-only tool's. Without a Permissions port every call is unmatched.
func (s *Session) narrow(call model.ToolCall, d PermissionDecision) PermissionDecision {
	for _, mode := range s.modes {
		if d.Behavior == PermissionDeny || d.List == "allow" || d.List == "allowed-tools" {
			return d
		}
		switch {
		case mode == agentModeDontAsk && d.Behavior == PermissionAsk:
			d = PermissionDecision{Behavior: PermissionDeny, Rule: d.Rule, List: "permissionMode",
				Reason: d.Reason + `; the subagent's permissionMode "dontAsk" denies what would ask`}
		case mode == agentModeDontAsk:
			d = PermissionDecision{Behavior: PermissionDeny, List: "permissionMode",
				Reason: `no allow rule matches, and the subagent's permissionMode "dontAsk" denies every call no rule allows`}
		case mode == agentModePlan && d.Behavior != PermissionAsk && !s.planReadOnly(call.Name):
			d = PermissionDecision{Behavior: PermissionDeny, List: "permissionMode",
				Reason: fmt.Sprintf(`no allow rule matches, and the subagent's permissionMode "plan" runs read-only tools only (not %s)`, call.Name)}
		}
	}
	return d
}

// planReadOnly reports whether "plan" lets tool run unmatched.
func (s *Session) planReadOnly(tool string) bool {
	if planReadOnly[tool] {
		return true
	}
	_, skill := s.stepSkills.Lookup(tool)
	return s.k.cfg.SkillsMode == skills.ModeTools && skill
}
