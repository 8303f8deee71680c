package anthropic_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/anthropic"
)

// BenchmarkStream500Deltas: one Generate over a loopback httptest server
// answering with 500 text deltas between message_start and message_stop
// (the Chat Completions adapter's BenchmarkStream500Chunks, on this wire).
func BenchmarkStream500Deltas(b *testing.B) {
	var body strings.Builder
	body.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":100,\"cache_read_input_tokens\":900,\"output_tokens\":1}}}\n\n")
	body.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range 500 {
		fmt.Fprintf(&body, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"tok%03d \"}}\n\n", i)
	}
	body.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	body.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":500}}\n\n")
	body.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	payload := body.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, payload)
	}))
	defer srv.Close()
	c, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, Model: "m"})
	require.NoError(b, err)
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}, OnText: func(string) {}}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Generate(b.Context(), req)
		require.NoError(b, err)
		require.Len(b, resp.Text, 500*7, "text length")
	}
}
