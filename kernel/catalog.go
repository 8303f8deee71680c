package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	skillcatalog "github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/helios-agents/helios/kernel/skills/skillfs"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// Catalog returns the merged skill catalog, with its warnings.
func (k *Kernel) Catalog(ctx context.Context) skills.Catalog {
	tel := k.cfg.Telemetry
	if tel == nil {
		return k.skills.Snapshot(ctx)
	}
	ctx, span := tel.StartSnapshot(ctx)
	cat := k.skills.Snapshot(ctx)
	span.End(ctx, cat.Complete, len(cat.Skills), cat.ProvidersAsked)
	return cat
}

// skillTools returns the tools through which the model reaches cat's skills
// within b, straight from the one exit (skills.ToSkillTools), each skill
// load traced when the kernel has telemetry: in catalog mode the skill tool
// then skill_search.
func (k *Kernel) skillTools(cat skills.Catalog, b skills.Budget) ([]contract.Tool, []contract.Warning) {
	tools, warns := skills.ToSkillTools(cat, k.cfg.SkillsMode, b)
	if tel := k.cfg.Telemetry; tel != nil {
		for i := range tools {
			if tools[i].Name != skills.SearchToolName || k.cfg.SkillsMode == skills.ModeTools {
				tools[i].Call = tracedLoad(tel, cat, k.cfg.SkillsMode, tools[i])
			}
		}
	}
	return tools, warns
}

// tracedLoad wraps a skill tool's call in a "skills.load" span naming the
// skill: the tool's own name in tools mode, the name argument in catalog
// mode.
func tracedLoad(tel *telemetry.T, cat skills.Catalog, mode skills.Mode, t contract.Tool) func(context.Context, json.RawMessage) (contract.ToolResult, error) {
	call := t.Call
	return func(ctx context.Context, args json.RawMessage) (contract.ToolResult, error) {
		name := t.Name
		if mode == skills.ModeCatalog {
			var a struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(args, &a) // a bad argument is the tool's to report
			name = a.Name
		}
		source := ""
		if s, ok := cat.Lookup(name); ok {
			source = s.Source
		}
		ctx, span := tel.StartSkillLoad(ctx, name, source)
		res, err := call(ctx, args)
		failed := err
		if failed == nil && res.IsError {
			failed = errors.New("skill load failed")
		}
		tel.End(span, failed)
		return res, err
	}
}

// resolveBudget fills the defaults of Config.CatalogBudget.
func resolveBudget(b skills.Budget) skills.Budget {
	if b.ContextWindow <= 0 {
		b.ContextWindow = skills.DefaultContextWindow
	}
	switch {
	case b.Chars == 0:
		b.Chars = skills.PercentBudget(skills.DefaultBudgetPercent, b.ContextWindow)
	case b.Chars < 0:
		b.Chars = 0
	}
	switch {
	case b.ToolsMax == 0:
		b.ToolsMax = skills.DefaultToolsMax
	case b.ToolsMax < 0:
		b.ToolsMax = 0
	}
	b.Pinned = slices.Clone(b.Pinned)
	b.Recent = slices.Clone(b.Recent)
	return b
}

// CatalogBudget returns the budget the model's view of the skills is held
// to, defaults filled in.
func (k *Kernel) CatalogBudget() skills.Budget {
	b := k.budget
	b.Pinned = slices.Clone(b.Pinned)
	b.Recent = slices.Clone(b.Recent)
	return b
}

// SkillLimits returns the bounds of every read of a skill file (zero
// fields: the defaults), for readers outside the kernel that must obey
// the same ones (helios mcp re-encoding frontmatter).
func (k *Kernel) SkillLimits() skillfs.Limits { return k.cfg.SkillLimits }

// CatalogView returns what the model sees of cat in the kernel's mode under
// budget b: in catalog mode exactly the catalog message, in tools mode the
// bounded tool list, with the summary and the warnings (what was cut,
// pinned names that do not exist). A step passes its session's budget;
// CatalogBudget is what every step shares, SessionBudget what a session
// opened now gets (what `helios skills catalog` prints).
//
// For a complete catalog, the warnings are also logged, once per change of
// outcome rather than at every step; when a cut catalog fits again, that is
// logged too.
func (k *Kernel) CatalogView(cat skills.Catalog, b skills.Budget) skillcatalog.View {
	v := skillcatalog.ViewOf(cat, b, k.cfg.SkillsMode)
	if cat.Complete {
		k.logOutcome(v)
	}
	return v
}

func (k *Kernel) logOutcome(v skillcatalog.View) {
	var key strings.Builder
	for _, w := range v.Warnings {
		key.WriteString(w.String())
		key.WriteByte('\n')
	}
	k.outcomeMu.Lock()
	same, wasCut := k.outcome == key.String(), k.outcomeCut
	k.outcome, k.outcomeCut = key.String(), v.Cut()
	k.outcomeMu.Unlock()
	if same {
		return
	}
	for _, w := range v.Warnings {
		k.warn(w, "skills catalog", slog.String("key", w.Path), slog.String("message", w.Message))
	}
	if !v.Cut() && wasCut {
		k.logger.Info("skills catalog fits its budget again", slog.Int("skills", v.Summary.Total), slog.Int("used", v.Summary.Used), slog.Int("budget", v.Summary.Budget))
	}
}

// Tools returns every tool the model gets with cat under budget b: the
// skills' tools (skills.ToSkillTools) and each capability's. In catalog
// mode the skill tools come first, then each capability's tools in
// capability order; in tools mode the capabilities' tools come first and
// the skills' tools after them, so builtin tools come before any skill. A
// tool whose name an earlier one took is refused with a warning naming
// both: a skill named Bash never hides the Bash tool. A capability whose
// Tools fails costs only its own tools, with a warning.
func (k *Kernel) Tools(ctx context.Context, cat skills.Catalog, b skills.Budget) ([]contract.Tool, []contract.Warning) {
	tools, _, warns := k.tools(ctx, cat, b)
	return tools, warns
}

// tools is Tools, also saying which of the tools are the skills' own
// (fromSkill[i] for tools[i]): a subagent's scope governs those by its
// skills, every other tool by its tools, whatever their names.
func (k *Kernel) tools(ctx context.Context, cat skills.Catalog, b skills.Budget) (tools []contract.Tool, fromSkill []bool, warns []contract.Warning) {
	skillTools, warns := k.skillTools(cat, b)
	var owners []string // who offers tools[i], for a refusal's warning
	taken := map[string]int{}
	add := func(t contract.Tool, owner, source string, skill bool) {
		if i, ok := taken[t.Name]; ok {
			warns = append(warns, contract.Warning{Source: source,
				Message: fmt.Sprintf("tool %q of %s is refused: %s already offers a tool of that name", t.Name, owner, owners[i])})
			return
		}
		taken[t.Name] = len(tools)
		tools, owners, fromSkill = append(tools, t), append(owners, owner), append(fromSkill, skill)
	}
	addSkills := func() {
		for _, t := range skillTools {
			owner, source := "the skills", "kernel"
			if k.cfg.SkillsMode == skills.ModeTools {
				owner, source = fmt.Sprintf("skill %q", t.Name), ""
				if s, ok := cat.Lookup(t.Name); ok {
					owner, source = fmt.Sprintf("skill %q (%s)", t.Name, s.Source), s.Source
				}
			}
			add(t, owner, source, true)
		}
	}
	if k.cfg.SkillsMode != skills.ModeTools {
		addSkills()
	}
	for _, c := range k.caps {
		tp, ok := c.Capability.(ToolProvider)
		if !ok {
			continue
		}
		ts, err := tp.Tools(ctx)
		source := skills.CapabilitySource(c.Name())
		if err != nil {
			warns = append(warns, contract.Warning{Source: source, Message: fmt.Sprintf("tools unavailable: %v", err)})
			continue
		}
		for _, t := range ts {
			add(t, fmt.Sprintf("capability %q", c.Name()), source, false)
		}
	}
	if k.cfg.SkillsMode == skills.ModeTools {
		addSkills()
	}
	return tools, fromSkill, warns
}

// ErrUnknownSkill is returned by LoadSkill for a name not in the catalog.
var ErrUnknownSkill = errors.New("unknown skill")

// LoadSkill loads a skill by name for a person (`helios skills load`, the
// UI's /skill:): skills hidden from the model are loadable too. The text is
// exactly what the model receives.
func (k *Kernel) LoadSkill(ctx context.Context, name string) (string, error) {
	cat := k.Catalog(ctx)
	s, ok := cat.Lookup(name)
	if !ok {
		names := make([]string, len(cat.Skills))
		for i, s := range cat.Skills {
			names[i] = s.Name
		}
		if close := skills.CloseMatches(name, names); len(close) > 0 {
			return "", fmt.Errorf("%w %q (did you mean %s?)", ErrUnknownSkill, name, strings.Join(close, ", "))
		}
		return "", fmt.Errorf("%w %q", ErrUnknownSkill, name)
	}
	return skills.Load(ctx, s)
}
