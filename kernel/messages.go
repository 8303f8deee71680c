package kernel

import (
	"encoding/json"
	"strings"

	skillcatalog "github.com/helios-agents/helios/kernel/skills/catalog"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
)

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
			if ev.Type == session.Injected && ev.Provenance == skillcatalog.Provenance {
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
