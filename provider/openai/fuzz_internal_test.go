package openai

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/helios-agents/helios/provider/internal/httpcall"
)

// FuzzReadStream feeds arbitrary bytes to the SSE parser and the plain JSON
// reader under small limits: neither panics, an error is one the client
// knows, and what is assembled stays inside every limit.
func FuzzReadStream(f *testing.F) {
	for _, seed := range []string{
		"",
		"data: [DONE]\n\n",
		"data: " + `{"choices":[{"index":0,"delta":{"content":"Hi"}}]}` + "\r\n\r\ndata: [DONE]\r\n\r\n",
		": keep-alive\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"Bash\",\"arguments\":\"{\\\"command\\\":\"}}]}}]}\n" +
			"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"ls\\\"}\"}}]}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"Read\",\"arguments\":{\"path\":\"a\"}}}]}}]}\n\n",
		"data: {\"error\":{\"message\":\"overloaded\"}}\n\n",
		"error: {\"code\":500}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n",
		"data: line one\ndata: line two\n\n",
		`{"choices":[{"index":0,"message":{"content":"plain","tool_calls":[{"function":{"name":"Glob","arguments":"{}"}}]}}]}`,
	} {
		f.Add([]byte(seed))
	}
	lim := limits{event: 4 << 10, args: 1 << 10, answer: 2 << 10, calls: 4}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, read := range []func([]byte, *assembler) error{
			func(d []byte, a *assembler) error { return readStream(bytes.NewReader(d), a) },
			func(d []byte, a *assembler) error { return readCompletion(bytes.NewReader(d), a) },
		} {
			var shown strings.Builder
			a := newAssembler(func(s string) { shown.WriteString(s) }, lim)
			err := read(data, a)
			if err != nil {
				var r *httpcall.Retryable
				if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, errInStream) && !errors.As(err, &r) {
					t.Fatalf("unexpected error %T: %v", err, err)
				}
			}
			if a.size > lim.answer+lim.event {
				t.Fatalf("assembled %d bytes, limit %d", a.size, lim.answer)
			}
			resp := a.response()
			if resp.Text != shown.String() {
				t.Fatalf("text %q, shown %q", resp.Text, shown.String())
			}
			if len(resp.ToolCalls) > lim.calls {
				t.Fatalf("%d tool calls, limit %d", len(resp.ToolCalls), lim.calls)
			}
			for _, c := range resp.ToolCalls {
				if len(c.Arguments) > lim.args {
					t.Fatalf("arguments of %d bytes, limit %d", len(c.Arguments), lim.args)
				}
				if c.ID == "" {
					t.Fatal("tool call without an id")
				}
			}
		}
	})
}
