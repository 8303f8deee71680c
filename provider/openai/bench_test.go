package openai_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/openai"
	"github.com/stretchr/testify/require"
)

// BenchmarkStream500Chunks: one Generate over a loopback httptest server
// answering with 500 text deltas, a finish chunk, a usage chunk and [DONE].
func BenchmarkStream500Chunks(b *testing.B) {
	var body strings.Builder
	for i := range 500 {
		fmt.Fprintf(&body, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%03d \"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
	}
	body.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	body.WriteString("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":500}}\n\n")
	body.WriteString("data: [DONE]\n\n")
	payload := body.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, payload)
	}))
	defer srv.Close()
	c, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m"})
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
