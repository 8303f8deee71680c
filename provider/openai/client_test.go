package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newClient builds a client whose backoff is instant unless a test says
// otherwise.
func newClient(t testing.TB, baseURL string, edit ...func(*openai.Config)) *openai.Client {
	t.Helper()
	cfg := openai.Config{BaseURL: baseURL, Model: "test-model", Backoff: func(int) time.Duration { return time.Millisecond }}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := openai.New(cfg)
	require.NoError(t, err)
	return c
}

// rawServer serves handler and counts the requests; handler gets the
// attempt number from 1.
func rawServer(t testing.TB, handler func(w http.ResponseWriter, r *http.Request, attempt int)) (baseURL string, attempts *atomic.Int32) {
	t.Helper()
	attempts = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := attempts.Add(1)
		assert.Equal(t, "/v1/chat/completions", r.URL.Path, "path")
		handler(w, r, int(n))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", attempts
}

// sse writes body as an event stream.
func sse(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, body)
}

// events renders data lines the usual way, each followed by a blank line.
func events(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		fmt.Fprintf(&b, "data: %s\n\n", d)
	}
	return b.String()
}

func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return `{"choices":[{"index":0,"delta":{"content":` + string(b) + `},"finish_reason":null}]}`
}

const stopChunk = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     openai.Config
		wantErr []string // substrings; none means valid
	}{
		{"valid", openai.Config{BaseURL: "http://localhost:11434/v1", Model: "qwen3"}, nil},
		{"trailing slash", openai.Config{BaseURL: "https://api.deepseek.com/v1/", Model: "deepseek-chat"}, nil},
		{"no base URL", openai.Config{Model: "m"}, []string{"BaseURL is required"}},
		{"no model", openai.Config{BaseURL: "http://x/v1"}, []string{"Model is required"}},
		{"both missing", openai.Config{}, []string{"BaseURL is required", "Model is required"}},
		{"not http", openai.Config{BaseURL: "ftp://x/v1", Model: "m"}, []string{"not an http(s) URL"}},
		{"no host", openai.Config{BaseURL: "http:///v1", Model: "m"}, []string{"not an http(s) URL"}},
		{"endpoint instead of root", openai.Config{BaseURL: "http://x/v1/chat/completions", Model: "m"}, []string{"must be the API root"}},
		{"negative max tokens", openai.Config{BaseURL: "http://x/v1", Model: "m", MaxTokens: -1}, []string{"MaxTokens -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := openai.New(tt.cfg)
			if len(tt.wantErr) == 0 {
				require.NoError(t, err, "New(); want a client")
				require.NotNil(t, c, "New(); want a client")
				return
			}
			require.Error(t, err, "New() succeeded; want an error")
			for _, w := range tt.wantErr {
				assert.Contains(t, err.Error(), w, "error %q does not say %q", err, w)
			}
		})
	}
}

func TestRequestBody(t *testing.T) {
	temp := 0.2
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	tests := []struct {
		name string
		edit func(*openai.Config)
		req  model.Request
		want string // the body, as JSON
	}{
		{
			name: "conversation with tools",
			edit: func(c *openai.Config) { c.Temperature = &temp; c.MaxTokens = 1000 },
			req: model.Request{
				System: "You are Helios.",
				Messages: []model.Message{
					{Role: model.RoleUser, Content: "read a.txt and b.txt"},
					{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
						{ID: "call_a", Name: "Read", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
						{ID: "call_b", Name: "Read", Arguments: json.RawMessage(`{"path":"b.txt"}`)},
					}},
					{Role: model.RoleTool, ToolCallID: "call_a", Content: "A"},
					{Role: model.RoleTool, ToolCallID: "call_b", Content: "B"},
					{Role: model.RoleAssistant, Content: "Both read. Listing.", ToolCalls: []model.ToolCall{
						{ID: "call_c", Name: "Glob"},
					}},
					{Role: model.RoleTool, ToolCallID: "call_c", Content: ""},
					{Role: model.RoleAssistant, Content: "Done."},
					{Role: model.RoleUser, Content: "thanks"},
				},
				Tools: []model.Tool{
					{Name: "Read", Description: "Read a file.", Parameters: schema},
					{Name: "Glob", Description: "List files."},
				},
			},
			want: `{
				"model": "test-model",
				"stream": true,
				"stream_options": {"include_usage": true},
				"temperature": 0.2,
				"max_tokens": 1000,
				"messages": [
					{"role": "system", "content": "You are Helios."},
					{"role": "user", "content": "read a.txt and b.txt"},
					{"role": "assistant", "content": null, "tool_calls": [
						{"id": "call_a", "type": "function", "function": {"name": "Read", "arguments": "{\"path\":\"a.txt\"}"}},
						{"id": "call_b", "type": "function", "function": {"name": "Read", "arguments": "{\"path\":\"b.txt\"}"}}
					]},
					{"role": "tool", "tool_call_id": "call_a", "content": "A"},
					{"role": "tool", "tool_call_id": "call_b", "content": "B"},
					{"role": "assistant", "content": "Both read. Listing.", "tool_calls": [
						{"id": "call_c", "type": "function", "function": {"name": "Glob", "arguments": "{}"}}
					]},
					{"role": "tool", "tool_call_id": "call_c", "content": ""},
					{"role": "assistant", "content": "Done."},
					{"role": "user", "content": "thanks"}
				],
				"tools": [
					{"type": "function", "function": {"name": "Read", "description": "Read a file.", "parameters": {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},
					{"type": "function", "function": {"name": "Glob", "description": "List files.", "parameters": {"type":"object","properties":{}}}}
				]
			}`,
		},
		{
			name: "no system, no tools: both keys absent",
			req:  model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}},
			want: `{
				"model": "test-model",
				"stream": true,
				"stream_options": {"include_usage": true},
				"messages": [{"role": "user", "content": "hi"}]
			}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			url, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				body, _ = io.ReadAll(r.Body)
				assert.Equal(t, "application/json", r.Header.Get("Content-Type"), "Content-Type")
				sse(w, events(stopChunk, "[DONE]"))
			})
			edits := []func(*openai.Config){}
			if tt.edit != nil {
				edits = append(edits, tt.edit)
			}
			_, err := newClient(t, url, edits...).Generate(t.Context(), tt.req)
			require.NoError(t, err)
			var got, want any
			require.NoError(t, json.Unmarshal(body, &got), "body is not JSON\n%s", body)
			require.NoError(t, json.Unmarshal([]byte(tt.want), &want))
			assert.Empty(t, cmp.Diff(want, got), "request body (-want +got)")
		})
	}
}

func TestAuthorizationHeader(t *testing.T) {
	tests := []struct {
		key, want string
	}{
		{"sk-test", "Bearer sk-test"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("key=%q", tt.key), func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Say("ok"))
			c := newClient(t, srv.URL(), func(c *openai.Config) { c.APIKey = tt.key })
			_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
			require.NoError(t, err)
			h := srv.Requests()[0].Header
			assert.Equal(t, tt.want, h.Get("Authorization"), "Authorization")
			if tt.key == "" {
				assert.NotContains(t, h, "Authorization", "Authorization header present with an empty key")
			}
		})
	}
}

// The adapter's encoding and modeltest's decoding agree: what Generate is
// given is what the server records.
func TestRoundTripThroughModeltest(t *testing.T) {
	req := model.Request{
		System: "sys",
		Messages: []model.Message{
			{Role: model.RoleUser, Content: "go"},
			{Role: model.RoleAssistant, Content: "calling", ToolCalls: []model.ToolCall{{ID: "c1", Name: "Bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)}}},
			{Role: model.RoleTool, ToolCallID: "c1", Content: "a.txt\n"},
		},
		Tools: []model.Tool{{Name: "Bash", Description: "Run a command.", Parameters: json.RawMessage(`{"type":"object"}`)}},
	}
	srv := modeltest.NewServer(t, modeltest.Say("done"))
	_, err := newClient(t, srv.URL()).Generate(t.Context(), req)
	require.NoError(t, err)
	got := srv.Requests()[0]
	assert.Equal(t, req.System, got.System, "recorded System %q, Model %q, Stream %v", got.System, got.Model, got.Stream)
	assert.Equal(t, "test-model", got.Model, "recorded System %q, Model %q, Stream %v", got.System, got.Model, got.Stream)
	assert.True(t, got.Stream, "recorded System %q, Model %q, Stream %v", got.System, got.Model, got.Stream)
	assert.Empty(t, cmp.Diff(req.Messages, got.Messages), "messages (-sent +recorded)")
	assert.Empty(t, cmp.Diff(req.Tools, got.Tools), "tools (-sent +recorded)")
}

func TestStreamedTextReachesOnTextInOrder(t *testing.T) {
	const text = "The quick brown fox — jumps over the lazy dog. ✓"
	srv := modeltest.NewServer(t, func(modeltest.Recorded) modeltest.Reply {
		return modeltest.Reply{Text: text, Chunked: true}
	})
	var deltas []string
	resp, err := newClient(t, srv.URL()).Generate(t.Context(), model.Request{
		Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}},
		OnText:   func(d string) { deltas = append(deltas, d) },
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(deltas), 10, "got %d deltas, want the text in many pieces: %q", len(deltas), deltas)
	assert.Equal(t, text, strings.Join(deltas, ""), "OnText deltas joined")
	assert.Equal(t, text, resp.Text, "Response.Text")
	assert.Equal(t, "stop", resp.FinishReason, "FinishReason %q, ToolCalls %v", resp.FinishReason, resp.ToolCalls)
	assert.Empty(t, resp.ToolCalls, "FinishReason %q, ToolCalls %v", resp.FinishReason, resp.ToolCalls)
	assert.NotZero(t, resp.Usage.PromptTokens, "Usage = %+v, want the counts of the final usage chunk", resp.Usage)
	assert.NotZero(t, resp.Usage.CompletionTokens, "Usage = %+v, want the counts of the final usage chunk", resp.Usage)
}

func TestParallelToolCallsThroughModeltest(t *testing.T) {
	want := []model.ToolCall{
		{ID: "call_x", Name: "Read", Arguments: json.RawMessage(`{"path":"a very long file name.txt"}`)},
		{Name: "Bash", Arguments: json.RawMessage(`{"cmd":"ls -la && echo done"}`)},
	}
	srv := modeltest.NewServer(t, func(modeltest.Recorded) modeltest.Reply {
		return modeltest.Reply{Text: "Let me look.", ToolCalls: want, Chunked: true}
	})
	resp, err := newClient(t, srv.URL()).Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	want[1].ID = "call_1_1" // modeltest's id for request 1, call 1
	assert.Empty(t, cmp.Diff(want, resp.ToolCalls), "tool calls (-want +got)")
	assert.Equal(t, "Let me look.", resp.Text, "Text %q, FinishReason %q", resp.Text, resp.FinishReason)
	assert.Equal(t, "tool_calls", resp.FinishReason, "Text %q, FinishReason %q", resp.Text, resp.FinishReason)
}

// Wire-level tool call streams as the servers send them.
func TestToolCallFragmentsAssembled(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []model.ToolCall
	}{
		{
			name: "OpenAI: two calls, id and name first, arguments in fragments, interleaved",
			stream: events(
				`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"Read","arguments":""}}]},"finish_reason":null}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]},"finish_reason":null}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"Glob","arguments":""}}]},"finish_reason":null}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a.txt\"}"}},{"index":1,"function":{"arguments":"{\"pattern\":"}}]},"finish_reason":null}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"*.go\"}"}}]},"finish_reason":null}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				`[DONE]`),
			want: []model.ToolCall{
				{ID: "call_a", Name: "Read", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
				{ID: "call_b", Name: "Glob", Arguments: json.RawMessage(`{"pattern":"*.go"}`)},
			},
		},
		{
			name: "whole call in one delta, arguments as an object, no index",
			stream: events(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":{"path":"x"}}}]},"finish_reason":"tool_calls"}]}`,
				`[DONE]`),
			want: []model.ToolCall{{ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"path":"x"}`)}},
		},
		{
			name: "every call numbered 0, told apart by id",
			stream: events(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"A","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c2","function":{"name":"B","arguments":"{\"n\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				`[DONE]`),
			want: []model.ToolCall{
				{ID: "c1", Name: "A", Arguments: json.RawMessage(`{}`)},
				{ID: "c2", Name: "B", Arguments: json.RawMessage(`{"n":1}`)},
			},
		},
		{
			name: "no arguments at all: an empty object",
			stream: events(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"Now"}}]},"finish_reason":"tool_calls"}]}`,
				`[DONE]`),
			want: []model.ToolCall{{ID: "c1", Name: "Now", Arguments: json.RawMessage(`{}`)}},
		},
		{
			name: "ids omitted by the server are synthesized, skipping ids in use",
			stream: events(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"A","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","function":{"name":"B","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"function":{"name":"C","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				`[DONE]`),
			want: []model.ToolCall{
				{ID: "call_0", Name: "A", Arguments: json.RawMessage(`{}`)},
				{ID: "call_1", Name: "B", Arguments: json.RawMessage(`{}`)},
				{ID: "call_2", Name: "C", Arguments: json.RawMessage(`{}`)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { sse(w, tt.stream) })
			resp, err := newClient(t, url).Generate(t.Context(), model.Request{})
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(tt.want, resp.ToolCalls), "tool calls (-want +got)")
		})
	}
}

func TestSynthesizedToolCallIDsAreStable(t *testing.T) {
	stream := events(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"A","arguments":"{}"}},{"index":1,"function":{"name":"B","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`)
	url, _ := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { sse(w, stream) })
	c := newClient(t, url)
	for range 2 {
		resp, err := c.Generate(t.Context(), model.Request{})
		require.NoError(t, err)
		var ids []string
		for _, tc := range resp.ToolCalls {
			ids = append(ids, tc.ID)
		}
		assert.Empty(t, cmp.Diff([]string{"call_0", "call_1"}, ids), "ids (-want +got)")
	}
}

// What the servers do differently in the event stream itself.
func TestSSETolerance(t *testing.T) {
	hello, world := textChunk("Hello"), textChunk(" world")
	usage := `{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}`
	tests := []struct {
		name, stream string
		wantUsage    bool
		then         string // after the stream: "hold" the connection open or "reset" it
	}{
		{"LF, usage chunk, [DONE]", events(hello, world, stopChunk, usage, "[DONE]"), true, ""},
		{"CRLF", strings.ReplaceAll(events(hello, world, stopChunk, "[DONE]"), "\n", "\r\n"), false, ""},
		{"comments and keep-alives", ": OPENROUTER PROCESSING\n\n" + events(hello) + ":\n\n: ping\n\n" + events(world, stopChunk, "[DONE]"), false, ""},
		{"event and id fields ignored", "event: message\nid: 1\n" + events(hello) + "retry: 10\n" + events(world, stopChunk, "[DONE]"), false, ""},
		{"no space after data:", "data:" + hello + "\n\ndata:" + world + "\n\ndata:" + stopChunk + "\n\ndata:[DONE]\n\n", false, ""},
		{"no blank lines between events", "data: " + hello + "\ndata: " + world + "\ndata: " + stopChunk + "\ndata: [DONE]\n", false, ""},
		{"event split over data lines", "data: {\"choices\":[{\"index\":0,\n" + "data: \"delta\":{\"content\":\"Hello world\"}}]}\n\n" + events(stopChunk, "[DONE]"), false, ""},
		{"no [DONE] after finish_reason", events(hello, world, stopChunk, usage), true, ""},
		{"usage inside the final chunk", events(hello, world, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":2}}`, "[DONE]"), true, ""},
		{"[DONE] then a connection left open", events(hello, world, stopChunk, "[DONE]"), false, "hold"},
		{"connection reset after finish_reason", events(hello, world, stopChunk), false, "reset"},
		{"second choice ignored", events(hello, `{"choices":[{"index":1,"delta":{"content":"XX"}}]}`, world, stopChunk, "[DONE]"), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				sse(w, tt.stream)
				w.(http.Flusher).Flush()
				switch tt.then {
				case "hold":
					<-r.Context().Done()
				case "reset":
					abort()
				}
			})
			var streamed strings.Builder
			resp, err := newClient(t, url).Generate(t.Context(), model.Request{OnText: func(d string) { streamed.WriteString(d) }})
			require.NoError(t, err)
			assert.Equal(t, "Hello world", resp.Text, "Text %q, streamed %q; want %q", resp.Text, streamed.String(), "Hello world")
			assert.Equal(t, "Hello world", streamed.String(), "Text %q, streamed %q; want %q", resp.Text, streamed.String(), "Hello world")
			assert.Equal(t, "stop", resp.FinishReason, "FinishReason")
			wantUsage := model.Usage{}
			if tt.wantUsage {
				wantUsage = model.Usage{PromptTokens: 7, CompletionTokens: 2}
			}
			assert.Equal(t, wantUsage, resp.Usage, "Usage")
		})
	}
}

// Some servers ignore "stream": true and answer with a plain completion.
func TestPlainJSONCompletion(t *testing.T) {
	url, _ := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Reading it.",
			"tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a\"}"}}]},"finish_reason":"tool_calls"}],
			"usage":{"prompt_tokens":11,"completion_tokens":5,"total_tokens":16}}`)
	})
	var streamed []string
	resp, err := newClient(t, url).Generate(t.Context(), model.Request{OnText: func(d string) { streamed = append(streamed, d) }})
	require.NoError(t, err)
	want := model.Response{
		Text:         "Reading it.",
		ToolCalls:    []model.ToolCall{{ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"path":"a"}`)}},
		FinishReason: "tool_calls",
		Usage:        model.Usage{PromptTokens: 11, CompletionTokens: 5},
	}
	assert.Empty(t, cmp.Diff(want, resp), "response (-want +got)")
	assert.Empty(t, cmp.Diff([]string{"Reading it."}, streamed), "OnText (-want +got)")
}

// A whole message's tool calls carry no index; without ids they must not
// be merged into one.
func TestPlainJSONToolCallsWithoutIDs(t *testing.T) {
	url, _ := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
			{"type":"function","function":{"name":"A","arguments":"{\"x\":1}"}},
			{"type":"function","function":{"name":"B","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`)
	})
	resp, err := newClient(t, url).Generate(t.Context(), model.Request{})
	require.NoError(t, err)
	want := []model.ToolCall{
		{ID: "call_0", Name: "A", Arguments: json.RawMessage(`{"x":1}`)},
		{ID: "call_1", Name: "B", Arguments: json.RawMessage(`{}`)},
	}
	assert.Empty(t, cmp.Diff(want, resp.ToolCalls), "tool calls (-want +got)")
}

// A base URL pointing at a web page rather than the API says so.
func TestHTMLAnswerNamesTheBaseURL(t *testing.T) {
	url, attempts := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html><body>Open WebUI</body></html>")
	})
	_, err := newClient(t, url).Generate(t.Context(), model.Request{})
	assert.ErrorIs(t, err, openai.ErrMalformed, "err; want ErrMalformed naming the base URL")
	assert.Contains(t, err.Error(), "base URL", "err; want ErrMalformed naming the base URL")
	assert.Equal(t, int32(1), attempts.Load(), "attempts")
}

func TestEmptyResponseIsValid(t *testing.T) {
	url, _ := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		sse(w, events(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`, stopChunk, "[DONE]"))
	})
	called := false
	resp, err := newClient(t, url).Generate(t.Context(), model.Request{OnText: func(string) { called = true }})
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(model.Response{FinishReason: "stop"}, resp), "response (-want +got)")
	assert.False(t, called, "OnText called for an empty answer")
}

// abort breaks the connection, as a reset would.
func abort() { panic(http.ErrAbortHandler) }

func TestRetries(t *testing.T) {
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, attempt int)
		// backoff the client uses; long ones prove Retry-After was used.
		backoff      time.Duration
		wantAttempts int32
	}{
		{
			name: "429 with Retry-After: 0 then success",
			handler: func(w http.ResponseWriter, attempt int) {
				if attempt == 1 {
					w.Header().Set("Retry-After", "0")
					http.Error(w, `{"error":{"message":"Rate limit reached","type":"requests"}}`, http.StatusTooManyRequests)
					return
				}
				sse(w, events(textChunk("ok"), stopChunk, "[DONE]"))
			},
			backoff:      time.Hour,
			wantAttempts: 2,
		},
		{
			name: "503 twice then success",
			handler: func(w http.ResponseWriter, attempt int) {
				if attempt <= 2 {
					http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
					return
				}
				sse(w, events(textChunk("ok"), stopChunk, "[DONE]"))
			},
			wantAttempts: 3,
		},
		{
			name: "connection reset before the response, then success",
			handler: func(w http.ResponseWriter, attempt int) {
				if attempt == 1 {
					abort()
				}
				sse(w, events(textChunk("ok"), stopChunk, "[DONE]"))
			},
			wantAttempts: 2,
		},
		{
			name: "stream broken before any text, then success",
			handler: func(w http.ResponseWriter, attempt int) {
				if attempt == 1 {
					sse(w, events(`{"choices":[{"index":0,"delta":{"role":"assistant"}}]}`))
					w.(http.Flusher).Flush()
					abort()
				}
				sse(w, events(textChunk("ok"), stopChunk, "[DONE]"))
			},
			wantAttempts: 2,
		},
		{
			name: "stream ended early before any text, then success",
			handler: func(w http.ResponseWriter, attempt int) {
				if attempt == 1 {
					sse(w, events(`{"choices":[{"index":0,"delta":{"role":"assistant"}}]}`))
					return
				}
				sse(w, events(textChunk("ok"), stopChunk, "[DONE]"))
			},
			wantAttempts: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, attempts := rawServer(t, func(w http.ResponseWriter, _ *http.Request, n int) { tt.handler(w, n) })
			backoff := tt.backoff
			if backoff == 0 {
				backoff = time.Millisecond
			}
			c := newClient(t, url, func(c *openai.Config) { c.Backoff = func(int) time.Duration { return backoff } })
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			var streamed strings.Builder
			resp, err := c.Generate(ctx, model.Request{OnText: func(d string) { streamed.WriteString(d) }})
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Text, "Text %q, streamed %q; want %q once", resp.Text, streamed.String(), "ok")
			assert.Equal(t, "ok", streamed.String(), "Text %q, streamed %q; want %q once", resp.Text, streamed.String(), "ok")
			assert.Equal(t, tt.wantAttempts, attempts.Load(), "attempts")
		})
	}
}

func TestRetriesGiveUp(t *testing.T) {
	url, attempts := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		http.Error(w, `{"error":{"message":"upstream timed out"}}`, http.StatusBadGateway)
	})
	var backoffs []int
	c := newClient(t, url, func(c *openai.Config) {
		c.MaxRetries = 2
		c.Backoff = func(n int) time.Duration { backoffs = append(backoffs, n); return time.Millisecond }
	})
	_, err := c.Generate(t.Context(), model.Request{})
	require.Error(t, err, "Generate succeeded against a failing server")
	assert.Equal(t, int32(3), attempts.Load(), "attempts, want 1 + MaxRetries = 3")
	assert.Empty(t, cmp.Diff([]int{1, 2}, backoffs), "Backoff attempts (-want +got)")
	var se *openai.StatusError
	require.ErrorAs(t, err, &se, "error %v is not a *StatusError with 502", err)
	require.Equal(t, http.StatusBadGateway, se.StatusCode, "error %v is not a *StatusError with 502", err)
	for _, w := range []string{"502", "upstream timed out", "3 attempts"} {
		assert.Contains(t, err.Error(), w, "error %q does not say %q", err, w)
	}
}

func TestNegativeMaxRetriesDisablesRetries(t *testing.T) {
	url, attempts := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		http.Error(w, `{"error":{"message":"busy"}}`, http.StatusServiceUnavailable)
	})
	_, err := newClient(t, url, func(c *openai.Config) { c.MaxRetries = -1 }).Generate(t.Context(), model.Request{})
	assert.Error(t, err)
	assert.Equal(t, int32(1), attempts.Load(), "attempts, want 1")
}

func TestNoRetryOnClientErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		key    string
		want   []string
	}{
		{"400", 400, `{"error":{"message":"Invalid schema for function 'Read'","type":"invalid_request_error"}}`, "k",
			[]string{"400", "Bad Request", "Invalid schema for function 'Read'"}},
		{"401 refused key", 401, `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`, "sk-bad",
			[]string{"401", "Incorrect API key provided", "the API key was refused"}},
		{"401 without key", 401, `{"error":"unauthorized"}`, "",
			[]string{"401", "unauthorized", "no API key was sent"}},
		{"404 unknown model (vLLM shape)", 404, `{"object":"error","message":"The model 'x' does not exist.","type":"NotFoundError"}`, "",
			[]string{"404", "The model 'x' does not exist.", "check the base URL and the model name"}},
		{"422 FastAPI detail", 422, `{"detail":"messages: field required"}`, "",
			[]string{"422", "messages: field required"}},
		{"plain text body", 400, `bad things happened`, "",
			[]string{"400", "bad things happened"}},
		{"429 quota exhausted", 429, `{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}`, "k",
			[]string{"429", "exceeded your current quota"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, attempts := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := newClient(t, url, func(c *openai.Config) { c.APIKey = tt.key }).Generate(t.Context(), model.Request{})
			require.Error(t, err, "Generate succeeded")
			assert.Equal(t, int32(1), attempts.Load(), "attempts, want 1 (no retry)")
			var se *openai.StatusError
			assert.ErrorAs(t, err, &se, "error %v is not a *StatusError with %d", err, tt.status)
			assert.Equal(t, tt.status, se.StatusCode, "error %v is not a *StatusError with %d", err, tt.status)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w, "error %q does not say %q", err, w)
			}
			if len(tt.key) >= 8 {
				assert.NotContains(t, err.Error(), tt.key, "the key leaked into the error")
			}
		})
	}
}

func TestNoRetryAfterPartialOutput(t *testing.T) {
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter)
		want    string
	}{
		{
			name: "connection reset mid-stream",
			handler: func(w http.ResponseWriter) {
				sse(w, events(textChunk("Hel")))
				w.(http.Flusher).Flush()
				abort()
			},
			want: "after output began",
		},
		{
			name:    "stream ends without finish_reason or [DONE]",
			handler: func(w http.ResponseWriter) { sse(w, events(textChunk("Hel"))) },
			want:    "stream ended before [DONE]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, attempts := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { tt.handler(w) })
			var streamed strings.Builder
			resp, err := newClient(t, url).Generate(t.Context(), model.Request{OnText: func(d string) { streamed.WriteString(d) }})
			require.Error(t, err, "Generate succeeded on a broken stream")
			assert.Contains(t, err.Error(), tt.want, "error %q does not say %q", err, tt.want)
			assert.Equal(t, int32(1), attempts.Load(), "attempts, want 1: a retry would repeat the streamed text")
			assert.Equal(t, "Hel", streamed.String(), "streamed %q, partial Response.Text %q; want %q", streamed.String(), resp.Text, "Hel")
			assert.Equal(t, "Hel", resp.Text, "streamed %q, partial Response.Text %q; want %q", streamed.String(), resp.Text, "Hel")
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	url, attempts := rawServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		sse(w, events(textChunk("first")))
		w.(http.Flusher).Flush()
		select { // a server that keeps thinking
		case <-r.Context().Done():
		case <-release:
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelled time.Time
	_, err := newClient(t, url).Generate(ctx, model.Request{OnText: func(string) {
		cancelled = time.Now()
		cancel()
	}})
	elapsed := time.Since(cancelled)
	require.ErrorIs(t, err, context.Canceled)
	assert.LessOrEqual(t, elapsed, time.Second, "Generate returned %v after cancel, want < 1s", elapsed)
	assert.Equal(t, int32(1), attempts.Load(), "attempts")
}

func TestCancelDuringBackoff(t *testing.T) {
	url, _ := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		http.Error(w, `{"error":{"message":"busy"}}`, http.StatusServiceUnavailable)
	})
	c := newClient(t, url, func(c *openai.Config) { c.Backoff = func(int) time.Duration { return time.Hour } })
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Generate(ctx, model.Request{})
	require.ErrorIs(t, err, context.Canceled)
	elapsed := time.Since(start)
	assert.LessOrEqual(t, elapsed, time.Second, "Generate returned after %v, want < 1s", elapsed)
}

func TestMalformedStream(t *testing.T) {
	tests := []struct {
		name, stream string
		want         []string
		malformed    bool
	}{
		{"truncated JSON", events(`{"choices":[{"index":0,"delta":{"content":"Hi"}}`, "[DONE]"),
			[]string{"not JSON", `{\"choices\"`}, true},
		{"not JSON at all", events("hello there", "[DONE]"), []string{"not JSON", "hello there"}, true},
		{"error object in the stream", events(`{"error":{"message":"context length exceeded","type":"invalid_request_error"}}`),
			[]string{"server error in stream", "context length exceeded"}, false},
		{"error field (older llama.cpp)", "error: {\"code\":500,\"message\":\"slot unavailable\"}\n\n",
			[]string{"server error in stream", "slot unavailable"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, attempts := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { sse(w, tt.stream) })
			_, err := newClient(t, url).Generate(t.Context(), model.Request{})
			require.Error(t, err, "Generate succeeded")
			assert.Equal(t, tt.malformed, errors.Is(err, openai.ErrMalformed), "errors.Is(%v, ErrMalformed) = %v", err, !tt.malformed)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w, "error %q does not say %q", err, w)
			}
			assert.Equal(t, int32(1), attempts.Load(), "attempts")
		})
	}
}

// A scripted conversation: the step sees the tool result and answers it.
func TestScriptedToolLoop(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.Call("Read", `{"path":"notes.txt"}`),
		func(r modeltest.Recorded) modeltest.Reply {
			last := r.Last()
			if last.Role != model.RoleTool {
				return modeltest.Reply{Status: 400, ErrorMessage: "expected a tool result"}
			}
			return modeltest.Reply{Text: "The notes say: " + last.Content}
		},
	)
	c := newClient(t, srv.URL())
	msgs := []model.Message{{Role: model.RoleUser, Content: "what do the notes say?"}}
	resp, err := c.Generate(t.Context(), model.Request{Messages: msgs})
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls, 1, "ToolCalls, want one Read")
	require.Equal(t, "Read", resp.ToolCalls[0].Name, "ToolCalls, want one Read")
	call := resp.ToolCalls[0]
	msgs = append(msgs,
		model.Message{Role: model.RoleAssistant, ToolCalls: resp.ToolCalls},
		model.Message{Role: model.RoleTool, ToolCallID: call.ID, Content: "buy milk"})
	resp, err = c.Generate(t.Context(), model.Request{Messages: msgs})
	require.NoError(t, err)
	assert.Equal(t, "The notes say: buy milk", resp.Text, "Text")
	got := srv.Requests()[1].Last().ToolCallID
	assert.Equal(t, call.ID, got, "tool result sent for %q, want %q", got, call.ID)
}

// Generate is safe for concurrent use.
func TestConcurrentGenerate(t *testing.T) {
	const n = 8
	steps := make([]modeltest.Step, n)
	for i := range steps {
		steps[i] = func(r modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Text: "echo " + r.Last().Content, Chunked: true}
		}
	}
	srv := modeltest.NewServer(t, steps...)
	c := newClient(t, srv.URL())
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			msg := fmt.Sprint("m", i)
			resp, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: msg}}})
			if !assert.NoError(t, err) {
				return
			}
			assert.Equal(t, "echo "+msg, resp.Text, "Text")
		})
	}
	wg.Wait()
}

// The key never leaves the client in an error or a log line (C19): a
// server or proxy that repeats the Authorization header in an error body,
// a plain-text body or a stream error gets it replaced by [REDACTED], and a
// *StatusError found with errors.As holds it no more than the text.
func TestKeyRedactedFromErrors(t *testing.T) {
	const key = "sk-proj-0123456789abcdefghij"
	echo := func(r *http.Request) string { return r.Header.Get("Authorization") }
	for _, tc := range []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request, attempt int)
		status  bool // a *StatusError is returned
	}{
		{"JSON error body", func(w http.ResponseWriter, r *http.Request, _ int) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"invalid header %s"}}`, echo(r))
		}, true},
		{"plain-text body", func(w http.ResponseWriter, r *http.Request, _ int) {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "proxy refused: %s", echo(r))
		}, true},
		{"retried, then refused", func(w http.ResponseWriter, r *http.Request, attempt int) {
			if attempt == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintf(w, `{"error":{"message":"overloaded for %s"}}`, echo(r))
				return
			}
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"invalid %s"}}`, echo(r))
		}, true},
		{"error in the stream", func(w http.ResponseWriter, r *http.Request, _ int) {
			sse(w, events(fmt.Sprintf(`{"error":{"message":"bad key %s"}}`, echo(r))))
		}, false},
		{"stream event not JSON", func(w http.ResponseWriter, r *http.Request, _ int) {
			sse(w, events("echo "+echo(r)))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, _ := rawServer(t, tc.handler)
			var logs strings.Builder
			c := newClient(t, url, func(c *openai.Config) {
				c.APIKey = key
				c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			_, err := c.Generate(t.Context(), model.Request{})
			require.Error(t, err)
			assert.NotContains(t, err.Error(), key)
			assert.Contains(t, err.Error(), "Bearer [REDACTED]")
			assert.NotContains(t, logs.String(), key)
			var se *openai.StatusError
			if assert.Equal(t, tc.status, errors.As(err, &se)) && tc.status {
				assert.NotContains(t, se.Message, key)
			}
		})
	}
}
