package kernel

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
)

// summarizer answers every request with its text and keeps what it was
// asked.
type summarizer struct {
	text string
	got  []model.Request
}

func (s *summarizer) Generate(_ context.Context, req model.Request) (model.Response, error) {
	s.got = append(s.got, req)
	return model.Response{Text: s.text}, nil
}

// The builtin compactor works on the context:compact payload alone, as a
// plugin's would: the model view's events, carried from the log with the
// span an earlier compaction hid. A new compaction that starts at an
// earlier summary hides from where that summary's span began, so the
// earlier events are not shown again (M290).
func TestCompactorHidesAnEarlierSummaryWhole(t *testing.T) {
	big := strings.Repeat("x", 400)
	log, err := session.NewLog("s1", []session.Event{
		{Seq: 1, Type: session.User, Text: "first question"},
		{Seq: 2, Type: session.Assistant, Text: "first answer"},
		{Seq: 3, Type: session.Compaction, From: 1, To: 2, Text: "EARLIER SUMMARY"},
		{Seq: 4, Type: session.User, Text: "second question " + big},
		{Seq: 5, Type: session.ToolUse, ToolUseID: "c1", ToolName: "Bash", Input: []byte(`{"command":"ls"}`)},
		{Seq: 6, Type: session.ToolResult, ToolUseID: "c1", ToolName: "Bash", Text: big},
		{Seq: 7, Type: session.Assistant, Text: "second answer"},
		{Seq: 8, Type: session.User, Text: "third question"},
		{Seq: 9, Type: session.Assistant, Text: "third answer"},
	}, session.LogConfig{Commit: func(_ context.Context, evs []session.Event) ([]session.Event, error) { return evs, nil }})
	require.NoError(t, err)

	in := compactIn("s1", log, 1200, 400)
	require.Len(t, in.Events, 7, "the model view: the summary, then events 4 to 9")
	assert.Equal(t, int64(3), in.Events[0].Seq)
	assert.Equal(t, [2]int64{1, 2}, [2]int64{in.Events[0].From, in.Events[0].To}, "the summary's span")

	m := &summarizer{text: "NEW SUMMARY"}
	c, handled, err := compactor(m)(context.Background(), in)
	require.NoError(t, err)
	require.True(t, handled)
	assert.Equal(t, Compaction{From: 1, To: 6, Summary: "NEW SUMMARY"}, c, "hides the earlier span too, up to the kept tail (events 7 to 9)")
	require.Len(t, m.got, 1)
	assert.Contains(t, m.got[0].Messages[0].Content, "EARLIER SUMMARY", "the earlier summary is summarized again")
	assert.Contains(t, m.got[0].Messages[0].Content, `Bash {"command":"ls"}`, "a tool call with its input")
}
