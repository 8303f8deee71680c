package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
)

// Protects C11 for the Messages API: what one answer makes the client read
// and hold is bounded, and the error names the limit; an answer at the
// limits still arrives whole.
func TestAnswerLimits(t *testing.T) {
	lim := limits{body: 4 << 10, errorBody: 1 << 10, calls: 2}
	call := func(n int) []model.ToolCall {
		var out []model.ToolCall
		for range n {
			out = append(out, model.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)})
		}
		return out
	}
	tests := []struct {
		name  string
		reply modeltest.Reply
		want  string // "" for success
	}{
		{"within the limits", modeltest.Reply{Text: "short", ToolCalls: call(2)}, ""},
		{"a long answer", modeltest.Reply{Text: strings.Repeat("word ", 2000)}, "the answer exceeds the limit of 4 KiB"},
		{"a long answer in many events", modeltest.Reply{Text: strings.Repeat("word ", 400), Chunked: true}, "the answer exceeds the limit of 4 KiB"},
		{"a long tool input", modeltest.Reply{ToolCalls: []model.ToolCall{{Name: "Write", Arguments: json.RawMessage(`{"content":"` + strings.Repeat("x", 8000) + `"}`)}}}, "the answer exceeds the limit"},
		{"too many tool calls", modeltest.Reply{ToolCalls: call(3)}, "more than 2 tool calls (the limit)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewAnthropicServer(t, func(modeltest.Recorded) modeltest.Reply { return tt.reply })
			c, err := New(Config{BaseURL: srv.URL(), Model: "claude-x", MaxRetries: 3})
			require.NoError(t, err)
			c.lim = lim
			resp, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
			if tt.want == "" {
				require.NoError(t, err)
				assert.Len(t, resp.ToolCalls, len(tt.reply.ToolCalls))
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, model.ErrTooLarge)
			assert.Contains(t, err.Error(), tt.want)
			assert.Len(t, srv.Requests(), 1, "a limit is not retried")
		})
	}
}

// Protects C11: an error status's body is read only up to its limit (an
// endless one too), and the status still comes back.
func TestErrorBodyIsBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		chunk := []byte(strings.Repeat("x", 1024))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, Model: "claude-x", MaxRetries: -1})
	require.NoError(t, err)
	c.lim.errorBody = 512
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = c.Generate(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.NoError(t, ctx.Err(), "reading the error body never ended")
	var se *model.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 400, se.StatusCode)
}
