package openai

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/bytesize"
	"github.com/helios-agents/helios/provider/internal/httpcall"
)

// small are limits a test can reach with a few kilobytes.
var small = limits{event: 4 << 10, args: 1 << 10, answer: 2 << 10, calls: 4}

func chunkEvent(delta string) string {
	return "data: {\"choices\":[{\"index\":0,\"delta\":" + delta + "}]}\n\n"
}

func argsDelta(index int, id, args string) string {
	return fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"function":{"name":"Write","arguments":%q}}]}`, index, id, args)
}

// Every limit of one answer is enforced, and the error names it.
func TestStreamLimits(t *testing.T) {
	for _, tc := range []struct {
		name, stream, want string
	}{
		{"one line longer than the event limit",
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + strings.Repeat("x", 20<<10) + "\"}}]}\n\n",
			"a stream line exceeds the limit of 4 KiB"},
		{"an event of many data lines",
			strings.Repeat("data: "+strings.Repeat("y", 1000)+"\n", 5) + "\n",
			"a stream event exceeds the limit of 4 KiB"},
		{"one call's arguments in small fragments",
			strings.Repeat(chunkEvent(argsDelta(0, "", strings.Repeat("a", 100))), 11),
			`tool call "Write"'s arguments exceeds the limit of 1 KiB`},
		{"the text of the answer",
			strings.Repeat(chunkEvent(`{"content":"`+strings.Repeat("t", 500)+`"}`), 5),
			"the answer exceeds the limit of 2 KiB"},
		{"text and arguments together",
			strings.Repeat(chunkEvent(`{"content":"`+strings.Repeat("t", 500)+`"}`), 3) +
				strings.Repeat(chunkEvent(argsDelta(0, "c1", strings.Repeat("a", 200))), 3),
			"the answer exceeds the limit of 2 KiB"},
		{"too many tool calls",
			chunkEvent(argsDelta(0, "c0", "{}")) + chunkEvent(argsDelta(1, "c1", "{}")) + chunkEvent(argsDelta(2, "c2", "{}")) +
				chunkEvent(argsDelta(3, "c3", "{}")) + chunkEvent(argsDelta(4, "c4", "{}")),
			"more than 4 tool calls (the limit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAssembler(nil, small)
			err := readStream(strings.NewReader(tc.stream+"data: [DONE]\n\n"), a)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrTooLarge)
			assert.Contains(t, err.Error(), tc.want)
			var r *httpcall.Retryable
			assert.NotErrorAs(t, err, &r, "a limit is not retried")
		})
	}
}

// Answers right at the limits pass: the bounds are not off by one.
func TestStreamLimitsAreInclusive(t *testing.T) {
	var s strings.Builder
	for i := range small.calls {
		s.WriteString(chunkEvent(argsDelta(i, fmt.Sprint("c", i), "")))
	}
	s.WriteString(chunkEvent(argsDelta(0, "", strings.Repeat("a", small.args))))
	s.WriteString("data: [DONE]\n\n")
	a := newAssembler(nil, small)
	require.NoError(t, readStream(strings.NewReader(s.String()), a))
	r := a.response()
	require.Len(t, r.ToolCalls, small.calls)
	assert.Len(t, r.ToolCalls[0].Arguments, small.args)
}

// A plain JSON completion (a server ignoring "stream": true) is bounded by
// the answer limit too.
func TestCompletionLimit(t *testing.T) {
	body := `{"choices":[{"index":0,"message":{"content":"` + strings.Repeat("x", 3<<10) + `"}}]}`
	err := readCompletion(strings.NewReader(body), newAssembler(nil, small))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "the completion exceeds the limit of 2 KiB")

	ok := `{"choices":[{"index":0,"message":{"content":"hi"}}]}`
	assert.NoError(t, readCompletion(strings.NewReader(ok), newAssembler(nil, small)))
}

func TestSizeText(t *testing.T) {
	assert.Equal(t, "32 MiB", bytesize.Text(32<<20))
	assert.Equal(t, "64 KiB", bytesize.Text(64<<10))
	assert.Equal(t, "1000 bytes", bytesize.Text(1000))
}
