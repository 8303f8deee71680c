package kernel

import (
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// Injection is what the catalog injector decided at one step.
type Injection struct {
	// Event is the message to append, when Append is true.
	Event session.Event
	// Append says the model needs Event at this step.
	Append bool
	// Reason says why, for logs and tests: "incomplete", "no skill tool",
	// "unchanged", "first", "replacement", "tombstone", "re-established",
	// "empty, never published".
	Reason string
}

// InjectCatalog is InjectCatalogWithin without a budget.
func InjectCatalog(log session.Log, cat skills.Catalog, hasSkillTool bool) Injection {
	return InjectCatalogWithin(log, cat, hasSkillTool, skills.Budget{})
}

// InjectCatalogWithin decides, at one step, whether the model needs a new
// catalog message (contract C7), the catalog budgeted by b (C13). The
// catalog reaches the model only as appended user-side messages, never by
// rewriting history:
//
//   - the agent has no skill tool (tools mode, or the tool is restricted or
//     shadowed): nothing — the model cannot load skills by name;
//   - the snapshot is incomplete: nothing — the model keeps the last
//     complete view rather than a half-observed one;
//   - no catalog was ever published: publish a non-empty one; an empty one
//     is not worth a message;
//   - the newest still-visible catalog has the same digest: nothing;
//   - it has another digest: append a full replacement, or an explicit
//     empty catalog (a tombstone) when every skill is gone;
//   - catalogs exist but compaction hid them all: re-establish the current
//     one, tombstone included.
//
// The digest covers exactly the budgeted message the model reads, which
// holds names and descriptions only, so editing a body never causes a
// message, and neither does a change the budget hides. The log is scanned
// backwards without copying it; the scan stops at the newest visible
// catalog, and only when compaction hid every catalog does it read the
// whole log.
func InjectCatalogWithin(log session.Log, cat skills.Catalog, hasSkillTool bool, b skills.Budget) Injection {
	if !hasSkillTool {
		return Injection{Reason: "no skill tool"}
	}
	if !cat.Complete {
		return Injection{Reason: "incomplete"}
	}
	v := catalog.ViewOf(cat, b, skills.ModeCatalog)
	text, digest := v.Text, v.Digest

	last, visible, ever := lastCatalog(log)
	switch {
	case visible && last.Meta[catalog.DigestKey] == digest:
		return Injection{Reason: "unchanged"}
	case visible && text == "":
		return injection(v, "tombstone")
	case visible:
		return injection(v, "replacement")
	case ever:
		return injection(v, "re-established")
	case text == "":
		return Injection{Reason: "empty, never published"}
	default:
		return injection(v, "first")
	}
}

func injection(v catalog.View, reason string) Injection {
	return Injection{
		Append: true,
		Reason: reason,
		Event: session.Event{
			Type:       session.Injected,
			Provenance: catalog.Provenance,
			Text:       v.Message,
			Meta:       map[string]string{catalog.DigestKey: v.Digest},
		},
	}
}

// lastCatalog scans the log backwards for the newest catalog this injector
// published that compaction has not hidden. ever reports whether any catalog
// was published at all.
func lastCatalog(log session.Log) (last session.Event, visible, ever bool) {
	// Compactions newer than the event being looked at; each hides a span of
	// older events.
	var spans [][2]int64
	for ev := range log.Backward() {
		switch {
		case ev.Type == session.Compaction:
			spans = append(spans, [2]int64{ev.From, ev.To})
		case ev.Type == session.Injected && ev.Provenance == catalog.Provenance:
			ever = true
			if !hidden(ev.Seq, spans) {
				return ev, true, true
			}
		}
	}
	return session.Event{}, false, ever
}

func hidden(seq int64, spans [][2]int64) bool {
	for _, s := range spans {
		if s[0] <= seq && seq <= s[1] {
			return true
		}
	}
	return false
}
