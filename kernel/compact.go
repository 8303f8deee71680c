package kernel

import (
	"context"
	"fmt"
	"strings"

	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
)

// keepRecent is how much of the newest view the compactor leaves alone, as a
// share of the budget, so the model keeps its immediate context verbatim.
const keepRecentShare = 4 // 1/4 of the budget

// compactor is the builtin context:compact handler of a session answered by
// m. It summarizes the oldest visible events (everything but the newest
// quarter of the budget) with m and hides them behind the summary. It passes
// when there is nothing old enough to compact, so a plugin compactor can try.
func compactor(m model.Model) func(context.Context, CompactIn) (Compaction, bool, error) {
	return func(ctx context.Context, in CompactIn) (Compaction, bool, error) {
		return compact(ctx, m, in.Events, in.Budget)
	}
}

// compact compacts view, the model view, for a budget of budget bytes.
func compact(ctx context.Context, m model.Model, view []hookdata.Event, budget int) (Compaction, bool, error) {
	keep := budget / keepRecentShare
	// Walk back from the newest event until the kept tail is full; the span
	// before it is compacted. Never split a tool call from its result: the
	// span ends before an assistant or user message.
	size, cut := 0, len(view)
	for i := len(view) - 1; i >= 0; i-- {
		size += len(view[i].Text) + len(view[i].Input)
		if size > keep {
			break
		}
		cut = i
	}
	for cut > 0 && cut < len(view) && view[cut].Type != string(session.User) && view[cut].Type != string(session.Assistant) {
		cut--
	}
	if cut <= 1 {
		return Compaction{}, false, nil
	}
	span := view[:cut]
	var b strings.Builder
	for _, ev := range span {
		fmt.Fprintf(&b, "[%s] %s %s\n", ev.Type, ev.ToolName, clipText(ev.Text+ev.Input, 2000))
	}
	resp, err := m.Generate(ctx, model.Request{
		System:   compactPrompt(),
		Messages: []model.Message{{Role: model.RoleUser, Content: b.String()}},
	})
	if err != nil {
		return Compaction{}, false, fmt.Errorf("summarize events %d to %d: %w", span[0].Seq, span[len(span)-1].Seq, err)
	}
	from := span[0].Seq
	if span[0].Type == string(session.Compaction) {
		from = span[0].From
	}
	return Compaction{From: from, To: span[len(span)-1].Seq, Summary: resp.Text}, true, nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
