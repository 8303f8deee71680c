package anthropic

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/provider/internal/httpcall"
)

// FuzzAssemble feeds arbitrary bytes, as a stream body, through the SDK's
// decoder and the assembler under small limits: nothing panics, an error
// is one of the adapter's classes, what was shown is the answer's text,
// and the limits hold.
func FuzzAssemble(f *testing.F) {
	for _, seed := range []string{
		"",
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":3,\"cache_read_input_tokens\":2}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"Bash\",\"input\":{}}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\":\"}}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":7,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"x\"}}\n\n",
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n",
		"event: message_start\ndata: {not json\n\n",
	} {
		f.Add([]byte(seed))
	}
	lim := limits{body: 2 << 10, errorBody: 512, calls: 3}
	f.Fuzz(func(t *testing.T, data []byte) {
		var shown strings.Builder
		a := newAssembler(func(s string) { shown.WriteString(s) }, lim)
		res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(bytes.NewReader(data))}
		res, _ = a.bound(nil, func(*http.Request) (*http.Response, error) { return res, nil })
		stream := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(res), nil)
		c := &Client{secrets: redact.New("key-k")}
		var err error
		for stream.Next() {
			if err = a.event(stream.Current()); err != nil || a.stopped {
				break
			}
		}
		if err == nil {
			if serr := stream.Err(); serr != nil {
				err = c.failure(serr, a)
			} else {
				err = a.end()
			}
		}
		if err != nil {
			var r *httpcall.Retryable
			if !errors.Is(err, model.ErrMalformed) && !errors.Is(err, model.ErrTooLarge) && !errors.Is(err, errInStream) && !errors.As(err, &r) {
				t.Fatalf("unexpected error %T: %v", err, err)
			}
		}
		resp := a.response()
		if resp.Text != shown.String() {
			t.Fatalf("text %q, shown %q", resp.Text, shown.String())
		}
		if len(resp.Text) > lim.body || len(resp.ToolCalls) > lim.calls {
			t.Fatalf("answer past the limits: %d bytes of text, %d calls", len(resp.Text), len(resp.ToolCalls))
		}
		for _, tc := range resp.ToolCalls {
			if len(tc.Arguments) > lim.body {
				t.Fatalf("arguments of %d bytes", len(tc.Arguments))
			}
		}
	})
}
