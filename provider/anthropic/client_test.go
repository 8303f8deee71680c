package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/anthropic"
	"github.com/helios-agents/helios/provider/modeltest"
)

const testKey = "sk-ant-test-0123456789abcdef"

func newClient(t *testing.T, baseURL string, mod func(*anthropic.Config)) *anthropic.Client {
	t.Helper()
	cfg := anthropic.Config{BaseURL: baseURL, APIKey: testKey, Model: "claude-sonnet-4-5", MaxRetries: -1}
	if mod != nil {
		mod(&cfg)
	}
	c, err := anthropic.New(cfg)
	require.NoError(t, err)
	return c
}

var bashTool = model.Tool{Name: "Bash", Description: "Run a command.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}

// Protects C24: text streams as it arrives, tool calls assemble from
// input_json_delta fragments, and the answer carries the stop reason, the
// model and the usage; the request carries the key as x-api-key, the API
// version, max_tokens and the tools.
func TestGenerateStreamsTextAndToolCalls(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, func(modeltest.Recorded) modeltest.Reply {
		return modeltest.Reply{Text: "Let me look — ünïcode too.", Chunked: true, ToolCalls: []model.ToolCall{
			{Name: "Bash", Arguments: json.RawMessage(`{"command":"ls -la \"a dir\""}`)},
			{ID: "toolu_x", Name: "skill", Arguments: json.RawMessage(`{"name":"pdf"}`)},
		}}
	})
	c := newClient(t, srv.URL(), nil)
	var shown []string
	resp, err := c.Generate(t.Context(), model.Request{
		System:   "You are a coding agent.",
		Messages: []model.Message{{Role: model.RoleUser, Content: "list files"}},
		Tools:    []model.Tool{bashTool},
		OnText:   func(d string) { shown = append(shown, d) },
	})
	require.NoError(t, err)
	assert.Equal(t, "Let me look — ünïcode too.", resp.Text)
	assert.Equal(t, resp.Text, strings.Join(shown, ""), "streamed deltas")
	assert.Greater(t, len(shown), 3, "the text arrived in one piece; want it streamed")
	want := []model.ToolCall{
		{ID: "toolu_1_0", Name: "Bash", Arguments: json.RawMessage(`{"command":"ls -la \"a dir\""}`)},
		{ID: "toolu_x", Name: "skill", Arguments: json.RawMessage(`{"name":"pdf"}`)},
	}
	assert.Empty(t, cmp.Diff(want, resp.ToolCalls), "tool calls (-want +got)")
	assert.Equal(t, "tool_use", resp.FinishReason)
	assert.Equal(t, "claude-sonnet-4-5", resp.Model)

	req := srv.Requests()[0]
	assert.Equal(t, testKey, req.Header.Get("X-Api-Key"), "x-api-key")
	assert.Empty(t, req.Header.Get("Authorization"), "the key must travel as x-api-key only")
	assert.NotEmpty(t, req.Header.Get("Anthropic-Version"))
	assert.True(t, req.Stream, "the request must stream")
	assert.Equal(t, anthropic.DefaultMaxTokens("claude-sonnet-4-5"), req.MaxTokens)
	assert.Equal(t, "You are a coding agent.", req.System)
	assert.Empty(t, cmp.Diff([]model.Tool{bashTool}, req.Tools), "tools (-want +got)")
	assert.Equal(t, req.Usage, resp.Usage, "usage: want what the server reported")
	assert.Positive(t, resp.Usage.PromptTokens)
	assert.Positive(t, resp.Usage.CompletionTokens)
}

func TestDefaultMaxTokens(t *testing.T) {
	for name, want := range map[string]int{
		"claude-3-haiku-20240307": 4096, "claude-3-opus-latest": 4096, "claude-3-5-haiku-latest": 8192,
		"claude-3-7-sonnet-latest": 32000, "claude-sonnet-4-5": 32000, "claude-opus-4-1": 32000, "Claude-Haiku-4-5": 32000,
		"my-gateway-alias": 8192,
	} {
		assert.Equal(t, want, anthropic.DefaultMaxTokens(name), "DefaultMaxTokens(%q)", name)
	}
	srv := modeltest.NewAnthropicServer(t, modeltest.Say("ok"))
	c := newClient(t, srv.URL(), func(c *anthropic.Config) { c.MaxTokens = 1234 })
	_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, 1234, srv.Requests()[0].MaxTokens, "max_tokens: want Config.MaxTokens")
}

func TestNewRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  anthropic.Config
		want string
	}{
		{"no model", anthropic.Config{}, "Model is required"},
		{"not a URL", anthropic.Config{Model: "m", BaseURL: "api.anthropic.com"}, "not an http(s) URL"},
		{"endpoint, not root", anthropic.Config{Model: "m", BaseURL: "https://api.anthropic.com/v1/messages"}, "must be the API root"},
		{"negative max tokens", anthropic.Config{Model: "m", MaxTokens: -1}, "MaxTokens -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := anthropic.New(tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	c, err := anthropic.New(anthropic.Config{Model: "m"})
	require.NoError(t, err)
	assert.Equal(t, model.Info{Provider: "anthropic", Name: "m", Server: "api.anthropic.com"}, c.Info())
}

// conversation is a turn of n steps, each a Bash call and its result (the
// last a failure), after a system prompt, tools and a catalog message.
func conversation(steps int) []model.Message {
	msgs := []model.Message{
		{Role: model.RoleUser, Content: "<available_skills>\npdf: Read PDFs.\n</available_skills>", CachePoint: true},
		{Role: model.RoleUser, Content: "Fix the build."},
	}
	for i := range steps {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			model.Message{Role: model.RoleAssistant, Content: "Step.", ToolCalls: []model.ToolCall{{ID: id, Name: "Bash", Arguments: json.RawMessage(`{"command":"make"}`)}}},
			model.Message{Role: model.RoleTool, ToolCallID: id, Content: fmt.Sprintf("output %d", i), IsError: i == steps-1})
	}
	return msgs
}

// Protects C24: tool results go back as tool_result blocks in the user
// message right after their call, paired by id, with is_error; the
// scripted server refuses any other pairing.
func TestToolResultsPairByID(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Say("done"))
	c := newClient(t, srv.URL(), nil)
	msgs := conversation(2)
	// Two calls at once, answered in order.
	msgs = append(msgs,
		model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "a", Name: "Bash", Arguments: json.RawMessage(`{"command":"x"}`)}, {ID: "b", Name: "Read", Arguments: json.RawMessage(`not json`)}}},
		model.Message{Role: model.RoleTool, ToolCallID: "a", Content: "A"},
		model.Message{Role: model.RoleTool, ToolCallID: "b", Content: ""},
	)
	_, err := c.Generate(t.Context(), model.Request{System: "s", Messages: msgs, Tools: []model.Tool{bashTool}})
	require.NoError(t, err)
	got := srv.Requests()[0].Messages
	var results []string
	for _, m := range got {
		if m.Role == model.RoleTool {
			results = append(results, fmt.Sprintf("%s=%q error=%v", m.ToolCallID, m.Content, m.IsError))
		}
	}
	assert.Equal(t, []string{`toolu_0="output 0" error=false`, `toolu_1="output 1" error=true`, `a="A" error=false`, `b="" error=false`}, results)
	last := got[len(got)-3]
	require.Len(t, last.ToolCalls, 2)
	assert.JSONEq(t, `{"invalid_json_arguments":"not json"}`, string(last.ToolCalls[1].Arguments), "invalid arguments: want them kept as text in an object the API accepts")
}

// Protects C24: a result whose call is not in the assistant message right
// before it (a compaction hid the call) reaches the model as text, never as
// a tool_result the API refuses.
func TestUnpairedResultBecomesText(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Say("ok"))
	c := newClient(t, srv.URL(), nil)
	_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{
		{Role: model.RoleUser, Content: "Summary of the earlier conversation:\nwe ran make"},
		{Role: model.RoleTool, ToolCallID: "toolu_gone", Content: "make: ok"},
	}})
	require.NoError(t, err)
	got := srv.Requests()[0].Messages
	require.Len(t, got, 2)
	assert.Equal(t, model.RoleUser, got[1].Role)
	assert.Contains(t, got[1].Content, "toolu_gone")
	assert.Contains(t, got[1].Content, "make: ok")
}

// Protects C24: the breakpoints — on the last tool, the system prompt, the
// newest CachePoint message and the last block — never more than four, one
// when there is only a conversation.
func TestCacheBreakpoints(t *testing.T) {
	user := func(s string) model.Message { return model.Message{Role: model.RoleUser, Content: s} }
	catalog := model.Message{Role: model.RoleUser, Content: "<available_skills>x</available_skills>", CachePoint: true}
	tests := []struct {
		name   string
		req    model.Request
		want   int
		points []string // what carries them, in order
	}{
		{"conversation only", model.Request{Messages: []model.Message{user("hi")}}, 1, []string{"user hi"}},
		{"system and conversation", model.Request{System: "sys", Messages: []model.Message{user("hi")}}, 2, []string{"system", "user hi"}},
		{"tools, system, conversation", model.Request{System: "sys", Tools: []model.Tool{bashTool}, Messages: []model.Message{user("hi")}}, 3,
			[]string{"tool Bash", "system", "user hi"}},
		{"catalog is the last message", model.Request{System: "sys", Tools: []model.Tool{bashTool}, Messages: []model.Message{user("hi"), catalog}}, 3,
			[]string{"tool Bash", "system", "user <available_skills>x</available_skills>"}},
		{"catalog before the end", model.Request{System: "sys", Tools: []model.Tool{bashTool}, Messages: []model.Message{catalog, user("hi")}}, 4,
			[]string{"tool Bash", "system", "user <available_skills>x</available_skills>", "user hi"}},
		{"only the newest catalog", model.Request{System: "sys", Tools: []model.Tool{bashTool, bashTool}, Messages: append(conversation(3), catalog, user("go on"))}, 4,
			[]string{"tool Bash", "system", "user <available_skills>x</available_skills>", "user go on"}},
		{"a blank catalog is no point", model.Request{Messages: []model.Message{user("hi"), {Role: model.RoleUser, Content: " ", CachePoint: true}}}, 1, []string{"user hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewAnthropicServer(t, modeltest.Say("ok"))
			c := newClient(t, srv.URL(), nil)
			_, err := c.Generate(t.Context(), tt.req)
			require.NoError(t, err)
			rec := srv.Requests()[0]
			assert.Len(t, rec.Breakpoints, tt.want, "breakpoints in %v", rec.Blocks)
			var points []string
			for _, i := range rec.Breakpoints {
				points = append(points, describe(rec.Blocks[i]))
			}
			assert.Equal(t, tt.points, points)
		})
	}
}

// describe names a recorded block: "tool NAME", "system", "ROLE TEXT" or
// "ROLE TYPE".
func describe(blk string) string {
	role, js, ok := strings.Cut(blk, " ")
	if !ok || !strings.HasPrefix(js, "{") {
		role, js = "", blk
	}
	var b struct{ Type, Text, Name string }
	_ = json.Unmarshal([]byte(js), &b)
	switch {
	case role == "" && b.Name != "":
		return "tool " + b.Name
	case role == "":
		return "system"
	case b.Type == "text":
		return role + " " + b.Text
	}
	return role + " " + b.Type
}

// Protects C24: a conversation that grows renders the previous step's
// cached prefix again byte for byte, so every step after the first reads
// it from the cache; a new catalog message moves the catalog breakpoint
// and rewrites nothing before it.
func TestCachedPrefixIsStableAcrossSteps(t *testing.T) {
	const steps = 8
	var script []modeltest.Step
	for range steps {
		script = append(script, modeltest.Say("ok"))
	}
	srv := modeltest.NewAnthropicServer(t, script...)
	c := newClient(t, srv.URL(), nil)
	msgs := conversation(0)
	var got []model.Usage
	for i := range steps {
		if i == 4 { // the catalog changes: a full replacement is appended
			msgs = append(msgs, model.Message{Role: model.RoleUser, Content: "<available_skills>\npdf: Read PDFs.\nxlsx: Sheets.\n</available_skills>", CachePoint: true})
			for j := range msgs[:len(msgs)-1] {
				msgs[j].CachePoint = false // the kernel marks only the newest
			}
		}
		resp, err := c.Generate(t.Context(), model.Request{System: "sys", Tools: []model.Tool{bashTool}, Messages: msgs})
		require.NoError(t, err)
		got = append(got, resp.Usage)
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: id, Name: "Bash", Arguments: json.RawMessage(`{"command":"make"}`)}}},
			model.Message{Role: model.RoleTool, ToolCallID: id, Content: strings.Repeat("log line\n", 50)})
	}
	reqs := srv.Requests()
	for i, r := range reqs {
		assert.Equal(t, r.Usage, got[i], "step %d: usage, want what the server reported (cache tokens included)", i+1)
	}
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1], reqs[i]
		n := prev.Breakpoints[len(prev.Breakpoints)-1] + 1
		require.GreaterOrEqual(t, len(cur.Blocks), n)
		assert.Empty(t, cmp.Diff(prev.Blocks[:n], cur.Blocks[:n]), "step %d rewrote the prefix step %d cached (-before +after)", i+1, i)
		assert.Positive(t, cur.Usage.CacheReadTokens, "step %d read nothing from the cache", i+1)
		assert.Equal(t, len(strings.Join(prev.Blocks[:n], ""))/4, cur.Usage.CacheReadTokens, "step %d: want the whole previous prefix read", i+1)
	}
}

// Protects C24: 429 and 529 are retried, waiting what Retry-After says
// (not the backoff), and the answer after them is the one returned.
func TestRetriesRateLimitAndOverload(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t,
		func(modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Status: 429, ErrorMessage: "rate limited", Header: http.Header{"Retry-After": {"0"}}}
		},
		modeltest.Fail(529, "Overloaded"),
		modeltest.Say("finally"),
	)
	var backoffs atomic.Int32
	c := newClient(t, srv.URL(), func(c *anthropic.Config) {
		c.MaxRetries = 3
		c.Backoff = func(int) time.Duration { backoffs.Add(1); return time.Millisecond }
	})
	resp, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, "finally", resp.Text)
	assert.Len(t, srv.Requests(), 3)
	assert.Equal(t, int32(1), backoffs.Load(), "backoff used for the 529 only: the 429 said Retry-After")
}

func TestGivesUpAfterMaxRetries(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Fail(529, "Overloaded"), modeltest.Fail(529, "Overloaded"))
	c := newClient(t, srv.URL(), func(c *anthropic.Config) {
		c.MaxRetries = 1
		c.Backoff = func(int) time.Duration { return time.Millisecond }
	})
	_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.Error(t, err)
	var se *model.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 529, se.StatusCode)
	assert.Contains(t, err.Error(), "giving up after 2 attempts")
}

// Protects C24, C19: a refused key is a StatusError of class 401 whose
// message never holds the key, even when the server echoes it.
func TestUnauthorizedRedactsTheKey(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Fail(401, "invalid x-api-key: "+testKey))
	c := newClient(t, srv.URL(), func(c *anthropic.Config) { c.MaxRetries = 3 })
	_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.Error(t, err)
	var se *model.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusUnauthorized, se.StatusCode)
	assert.True(t, se.KeySent)
	assert.NotContains(t, err.Error(), testKey, "the key leaked into the error")
	assert.NotContains(t, fmt.Sprintf("%+v", se), testKey, "the key leaked into the error")
	assert.Contains(t, err.Error(), "[REDACTED]")
	assert.Contains(t, err.Error(), "the API key was refused")
	assert.Len(t, srv.Requests(), 1, "a 401 must not be retried")
}

// Protects C19: the key never leaves the client in an error or a log line,
// whatever part of the answer repeats it: an error body with or without a
// message, a retried overload (the retry warning), an "error" event inside
// the stream, an event that is not JSON.
func TestKeyRedactedFromErrorsAndWarnings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request, attempt int32)
		status  bool // a *model.StatusError is returned
		quoted  bool // the error quotes what the server sent
	}{
		{"error body", func(w http.ResponseWriter, r *http.Request, _ int32) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"permission_error","message":"key %s lacks access"}}`, r.Header.Get("x-api-key"))
		}, true, true},
		{"body without a message", func(w http.ResponseWriter, r *http.Request, _ int32) {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "proxy refused x-api-key=%s", r.Header.Get("x-api-key"))
		}, true, true},
		{"overloaded, retried, then refused", func(w http.ResponseWriter, r *http.Request, attempt int32) {
			w.Header().Set("Content-Type", "application/json")
			if attempt == 1 {
				w.WriteHeader(529)
				fmt.Fprintf(w, `{"type":"error","error":{"type":"overloaded_error","message":"overloaded for %s"}}`, r.Header.Get("x-api-key"))
				return
			}
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid %s"}}`, r.Header.Get("x-api-key"))
		}, true, true},
		{"error event in the stream", func(w http.ResponseWriter, r *http.Request, _ int32) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad key %s\"}}\n\n", r.Header.Get("x-api-key"))
		}, false, true},
		{"stream event not JSON", func(w http.ResponseWriter, r *http.Request, _ int32) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message_start\ndata: echo %s\n\n", r.Header.Get("x-api-key"))
		}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tc.handler(w, r, n.Add(1)) }))
			defer srv.Close()
			var logs strings.Builder
			c := newClient(t, srv.URL, func(c *anthropic.Config) {
				c.MaxRetries = 1
				c.Backoff = func(int) time.Duration { return time.Millisecond }
				c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
			require.Error(t, err)
			assert.NotContains(t, err.Error(), testKey, "the key leaked into the error")
			if tc.quoted {
				assert.Contains(t, err.Error(), "[REDACTED]")
			}
			assert.NotContains(t, logs.String(), testKey, "the key leaked into a warning")
			var se *model.StatusError
			if assert.Equal(t, tc.status, errors.As(err, &se)) && tc.status {
				assert.NotContains(t, se.Message, testKey)
			}
		})
	}
}

// Protects C24, C11: a stream cut in the middle of an event is an error,
// never a hang and never a silently short answer; cut before any text it
// is retried, after text it is not (the user saw it) and the partial
// answer comes back.
func TestStreamCutMidEvent(t *testing.T) {
	// The answer is about 2 KB: message_start and ping take the first
	// 400 bytes, then come 3-rune text deltas of about 100 bytes each.
	cutAt := func(n int) modeltest.Step {
		return func(modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Text: "Hello there, partial words.", Chunked: true, Cut: n}
		}
	}
	const inMessageStart = 40
	t.Run("after text: error with what arrived", func(t *testing.T) {
		srv := modeltest.NewAnthropicServer(t, cutAt(1111))
		c := newClient(t, srv.URL(), func(c *anthropic.Config) { c.MaxRetries = 3 })
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		var shown strings.Builder
		resp, err := c.Generate(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}, OnText: func(s string) { shown.WriteString(s) }})
		require.Error(t, err)
		require.NoError(t, ctx.Err(), "Generate hung until the deadline")
		assert.Contains(t, err.Error(), "message_stop")
		assert.Contains(t, err.Error(), "not retried")
		assert.NotEmpty(t, shown.String(), "the cut should come after some text")
		assert.Equal(t, shown.String(), resp.Text, "the partial answer is what was shown")
		assert.Len(t, srv.Requests(), 1)
	})
	t.Run("before text: retried", func(t *testing.T) {
		srv := modeltest.NewAnthropicServer(t, cutAt(inMessageStart), modeltest.Say("whole"))
		c := newClient(t, srv.URL(), func(c *anthropic.Config) {
			c.MaxRetries = 1
			c.Backoff = func(int) time.Duration { return time.Millisecond }
		})
		resp, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
		require.NoError(t, err)
		assert.Equal(t, "whole", resp.Text)
	})
	t.Run("before text, no retries: an error", func(t *testing.T) {
		srv := modeltest.NewAnthropicServer(t, cutAt(inMessageStart))
		c := newClient(t, srv.URL(), nil)
		_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "stream ended before message_stop")
	})
}

// Protects C24: a server answering a Messages request in OpenAI's Chat
// Completions format gets one error naming model.provider, not retries.
func TestOpenAIFormatNamesTheProviderSetting(t *testing.T) {
	chunk := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"gpt","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}`
	bodies := map[string]struct{ ctype, body string }{
		"stream":     {"text/event-stream", "data: " + chunk + "\n\ndata: [DONE]\n\n"},
		"completion": {"application/json", `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`},
	}
	for name, b := range bodies {
		t.Run(name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				w.Header().Set("Content-Type", b.ctype)
				fmt.Fprint(w, b.body)
			}))
			defer srv.Close()
			c := newClient(t, srv.URL, func(c *anthropic.Config) { c.MaxRetries = 3 })
			_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
			require.Error(t, err)
			assert.ErrorIs(t, err, model.ErrMalformed)
			assert.Contains(t, err.Error(), "model.provider")
			assert.Contains(t, err.Error(), "OpenAI's Chat Completions")
			assert.Equal(t, int32(1), n.Load(), "retried a format mismatch")
		})
	}
}

// Protects C24: an answer that came whole as JSON (a gateway ignoring
// "stream") is read as the same answer.
func TestPlainJSONAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","stop_reason":"tool_use",
			"content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"ls"}}],
			"usage":{"input_tokens":10,"cache_read_input_tokens":90,"cache_creation_input_tokens":5,"output_tokens":7}}`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, nil)
	resp, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, "Looking.", resp.Text)
	assert.Equal(t, []model.ToolCall{{ID: "toolu_9", Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}, resp.ToolCalls)
	assert.Equal(t, model.Usage{PromptTokens: 105, CompletionTokens: 7, CacheReadTokens: 90, CacheWriteTokens: 5}, resp.Usage)
}

// Protects C24, C19: the SDK's environment variables never steer the
// adapter: no key, base URL or header comes from ANTHROPIC_*.
func TestEnvironmentIsIgnored(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("request went to ANTHROPIC_BASE_URL") }))
	defer other.Close()
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env-aaaaaaaa")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "token-from-env-aaaaaaaa")
	t.Setenv("ANTHROPIC_BASE_URL", other.URL)
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Leak: yes")
	srv := modeltest.NewAnthropicServer(t, modeltest.Say("ok"))
	c := newClient(t, srv.URL(), func(c *anthropic.Config) { c.APIKey = "" })
	_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	h := srv.Requests()[0].Header
	assert.Empty(t, h.Get("X-Api-Key"))
	assert.Empty(t, h.Get("Authorization"))
	assert.Empty(t, h.Get("X-Leak"))
}

func TestTemperatureIsSent(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Say("ok"))
	temp := 0.25
	c := newClient(t, srv.URL(), func(c *anthropic.Config) { c.Temperature = &temp })
	_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	var body struct{ Temperature *float64 }
	require.NoError(t, json.Unmarshal(srv.Requests()[0].Body, &body))
	require.NotNil(t, body.Temperature)
	assert.Equal(t, 0.25, *body.Temperature)
}

// Protects C24: an "error" event inside the stream fails the request
// with the server's message; overloaded is retried before any text.
func TestErrorEventInStream(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if n.Add(1) == 1 {
			fmt.Fprint(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
			return
		}
		fmt.Fprint(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long\"}}\n\n")
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, func(c *anthropic.Config) {
		c.MaxRetries = 3
		c.Backoff = func(int) time.Duration { return time.Millisecond }
	})
	_, err := c.Generate(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "prompt is too long")
	assert.Equal(t, int32(2), n.Load(), "overloaded retried once, the invalid request not")
}

func TestCancelEndsGenerate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Generate(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "err %v does not wrap context.Canceled", err)
}
