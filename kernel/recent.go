package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
)

// Meta keys of the tool result of a skill load: the skill loaded and the
// work dir it was loaded in. The kernel reads them back to order the next
// sessions' catalogs (C23).
const (
	LoadedSkillKey = "skill"
	WorkDirKey     = "workDir"
)

// recentSessions bounds how many of the store's newest sessions are read
// for recency: enough to remember the skills of a few days' work, few
// enough that opening a session stays cheap.
const recentSessions = 20

// RecentSkills returns the skills loaded through the skill tool in this
// work dir, most recent first, read from the newest sessions of the
// kernel's store (at most 20). A store that cannot be listed or read is an
// error.
func (k *Kernel) RecentSkills(ctx context.Context) ([]string, error) {
	st := k.cfg.Store
	if st == nil {
		return nil, nil
	}
	infos, err := st.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("recent skills: %w", err)
	}
	var out []string
	seen := map[string]bool{}
	for _, info := range infos[:min(len(infos), recentSessions)] {
		evs, err := readSession(ctx, st, info.ID)
		if err != nil {
			return nil, fmt.Errorf("recent skills: %w", err)
		}
		for i := len(evs) - 1; i >= 0; i-- {
			ev := evs[i]
			name := ev.Meta[LoadedSkillKey]
			if ev.Type == session.ToolResult && name != "" && ev.Meta[WorkDirKey] == k.workDir && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out, nil
}

// readSession reads a session's events without holding it open when the
// store can (session.Reader), else through Open.
func readSession(ctx context.Context, st session.Store, id string) ([]session.Event, error) {
	if r, ok := st.(session.Reader); ok {
		return r.Read(ctx, id)
	}
	l, err := st.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	evs := make([]session.Event, l.Len())
	for i := range evs {
		evs[i] = l.At(i)
	}
	return evs, nil
}

// SessionBudget is the catalog budget of a session opened now: the
// kernel's, with the skills loaded recently in this work dir (Budget.Recent).
// When the store cannot be read for recency, the catalog falls back to
// name order and one warning says why (once per kernel and error).
func (k *Kernel) SessionBudget(ctx context.Context) skills.Budget {
	b := k.CatalogBudget()
	recent, err := k.RecentSkills(ctx)
	if err != nil {
		k.recentMu.Lock()
		first := k.recentErr != err.Error()
		k.recentErr = err.Error()
		k.recentMu.Unlock()
		if first {
			k.logger.Warn("skills catalog: recently loaded skills unknown; the catalog falls back to name order", slog.Any("error", err))
		}
		return b
	}
	b.Recent = recent
	return b
}

// loadMeta is the Meta of a tool result that loaded a skill through the
// catalog-mode skill tool, nil for any other call.
func (s *Session) loadMeta(tools []contract.Tool, name string, args json.RawMessage, isError bool) map[string]string {
	if isError || name != skills.SkillToolName || s.k.cfg.SkillsMode != skills.ModeCatalog ||
		len(tools) == 0 || tools[0].Name != skills.SkillToolName {
		return nil
	}
	var a struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(args, &a) != nil || a.Name == "" {
		return nil
	}
	return map[string]string{LoadedSkillKey: a.Name, WorkDirKey: s.k.workDir}
}
