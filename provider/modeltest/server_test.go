package modeltest_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder stands in for the test a Server reports to, so failures the
// server should report can be asserted instead of failing this test.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errs) > 0
}

func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// end runs the cleanups as the testing package would and returns the
// errors reported.
func (r *recorder) end() []string {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errs
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	res, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	return res
}

const hello = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

func TestExhaustedScriptFailsTheTest(t *testing.T) {
	rec := &recorder{TB: t}
	srv := modeltest.NewServer(rec, modeltest.Say("one"))
	post(t, srv.URL(), hello)
	res := post(t, srv.URL(), hello)
	body, _ := io.ReadAll(res.Body)
	assert.Equal(t, http.StatusInternalServerError, res.StatusCode, "second request: %d %s; want 500 saying the script is exhausted", res.StatusCode, body)
	assert.Contains(t, string(body), "script exhausted: request 2 has no step (1 scripted)", "second request: %d %s; want 500 saying the script is exhausted", res.StatusCode, body)
	errs := rec.end()
	if assert.Len(t, errs, 1, "reported %q; want one error saying the script is exhausted", errs) {
		assert.Contains(t, errs[0], "script exhausted")
	}
}

func TestUnfinishedScriptFailsTheTest(t *testing.T) {
	rec := &recorder{TB: t}
	srv := modeltest.NewServer(rec, modeltest.Say("one"), modeltest.Say("two"), modeltest.Say("three"))
	post(t, srv.URL(), hello)
	errs := rec.end()
	if assert.Len(t, errs, 1, "reported %q; want one error about 2 unused steps", errs) {
		assert.Contains(t, errs[0], "2 of 3 steps were never requested")
	}
}

func TestUnexpectedRequestsFailTheTest(t *testing.T) {
	tests := []struct{ name, method, path, body string }{
		{"wrong path", http.MethodPost, "/v1/completions", hello},
		{"wrong method", http.MethodGet, "/v1/chat/completions", ""},
		{"not a chat request", http.MethodPost, "/v1/chat/completions", `{"prompt":"hi"}`},
		{"tool without type", http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[],"tools":[{"function":{"name":"x"}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			srv := modeltest.NewServer(rec)
			req, _ := http.NewRequest(tt.method, strings.TrimSuffix(srv.URL(), "/v1")+tt.path, strings.NewReader(tt.body))
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			assert.GreaterOrEqual(t, res.StatusCode, 400, "status %d, want an error", res.StatusCode)
			errs := rec.end()
			assert.Len(t, errs, 1, "reported %q; want one error", errs)
		})
	}
}

func TestRecordsRequests(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Say("ok"))
	body := `{"model":"m","stream":false,"messages":[
		{"role":"system","content":"sys"},
		{"role":"user","content":[{"type":"text","text":"part one, "},{"type":"text","text":"part two"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"A"},
		{"role":"system","content":"late note"}],
		"tools":[{"type":"function","function":{"name":"Read","description":"Read a file.","parameters":{"type":"object"}}}]}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	got := srv.Requests()
	require.Len(t, got, 1, "requests recorded")
	want := modeltest.Recorded{
		Model:  "m",
		System: "sys",
		Messages: []model.Message{
			{Role: model.RoleUser, Content: "part one, part two"},
			{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"path":"a"}`)}}},
			{Role: model.RoleTool, ToolCallID: "c1", Content: "A"},
			{Role: "system", Content: "late note"},
		},
		Tools: []model.Tool{{Name: "Read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Body:  json.RawMessage(body),
		Usage: model.Usage{PromptTokens: len(body) / 4, CompletionTokens: 0},
	}
	assert.Equal(t, "Bearer k", got[0].Header.Get("Authorization"), "Header %v lacks the Authorization sent", got[0].Header)
	got[0].Header = nil
	assert.Empty(t, cmp.Diff(want, got[0]), "recorded (-want +got)")
	assert.Equal(t, "late note", got[0].Last().Content, "Last()")
}

func TestPlainJSONWhenNotStreaming(t *testing.T) {
	srv := modeltest.NewServer(t, func(modeltest.Recorded) modeltest.Reply {
		return modeltest.Reply{ToolCalls: []model.ToolCall{{Name: "Glob", Arguments: json.RawMessage(`{"pattern":"*"}`)}}}
	})
	res := post(t, srv.URL(), hello)
	assert.Equal(t, "application/json", res.Header.Get("Content-Type"), "Content-Type")
	var got any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&got))
	var want any
	json.Unmarshal([]byte(`{"id":"chatcmpl-modeltest-1","object":"chat.completion","created":0,"model":"m",
		"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"call_1_0","type":"function","function":{"name":"Glob","arguments":"{\"pattern\":\"*\"}"}}]}}],
		"usage":{"prompt_tokens":14,"completion_tokens":4,"total_tokens":18,"prompt_tokens_details":{"cached_tokens":0}}}`), &want)
	assert.Empty(t, cmp.Diff(want, got), "completion (-want +got)")
}

func TestStreamWireFormat(t *testing.T) {
	srv := modeltest.NewServer(t, func(modeltest.Recorded) modeltest.Reply {
		return modeltest.Reply{Text: "héllo!", Chunked: true,
			ToolCalls: []model.ToolCall{{ID: "x", Name: "Bash", Arguments: json.RawMessage(`{"cmd":"echo hi"}`)}}}
	})
	res := post(t, srv.URL(), `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`)
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"), "Content-Type")
	var data []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		d, ok := strings.CutPrefix(line, "data: ")
		require.True(t, ok, "line %q is not a data line", line)
		// The fields every chunk repeats are checked once, then dropped.
		var m map[string]any
		if d != "[DONE]" {
			require.NoError(t, json.Unmarshal([]byte(d), &m))
			assert.Equal(t, "chatcmpl-modeltest-1", m["id"], "chunk %s lacks id, object or model", d)
			assert.Equal(t, "chat.completion.chunk", m["object"], "chunk %s lacks id, object or model", d)
			assert.Equal(t, "m", m["model"], "chunk %s lacks id, object or model", d)
			delete(m, "id")
			delete(m, "object")
			delete(m, "model")
			delete(m, "created")
			b, _ := json.Marshal(m)
			d = string(b)
		}
		data = append(data, d)
	}
	want := []string{
		`{"choices":[{"delta":{"content":"","role":"assistant"},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"content":"hél"},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"content":"lo!"},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"","name":"Bash"},"id":"x","index":0,"type":"function"}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"cmd\":\""},"index":0}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"echo hi\""},"index":0}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"},"index":0}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{},"finish_reason":"tool_calls","index":0}]}`,
		`{"choices":[],"usage":{"completion_tokens":7,"prompt_tokens":20,"prompt_tokens_details":{"cached_tokens":0},"total_tokens":27}}`,
		`[DONE]`,
	}
	assert.Empty(t, cmp.Diff(want, data), "events (-want +got)")
}

func TestFail(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Fail(http.StatusTooManyRequests, "slow down"))
	res := post(t, srv.URL(), hello)
	body, _ := io.ReadAll(res.Body)
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode, "status %d, want 429", res.StatusCode)
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	assert.NoError(t, json.Unmarshal(body, &e), "body %s; want {\"error\":{\"message\":\"slow down\"}}", body)
	assert.Equal(t, "slow down", e.Error.Message, "body %s; want {\"error\":{\"message\":\"slow down\"}}", body)
}

func TestConcurrentRequests(t *testing.T) {
	const n = 16
	steps := make([]modeltest.Step, n)
	for i := range steps {
		steps[i] = modeltest.Say("ok")
	}
	srv := modeltest.NewServer(t, steps...)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(hello))
			if !assert.NoError(t, err) {
				return
			}
			res.Body.Close()
			assert.Equal(t, http.StatusOK, res.StatusCode, "status")
		})
	}
	wg.Wait()
	got := len(srv.Requests())
	assert.Equal(t, n, got, "%d requests recorded, want %d", got, n)
}

// A strict server refuses, as OpenAI-compatible APIs do, a request whose
// assistant tool_calls are not each answered by a tool message before the
// next message, or whose tool message answers no call before it; the
// refusal consumes no step.
func TestStrictServer(t *testing.T) {
	const (
		user      = `{"role":"user","content":"hi"}`
		callsAB   = `{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"Bash","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"Bash","arguments":"{}"}}]}`
		answerA   = `{"role":"tool","tool_call_id":"a","content":"ok"}`
		answerB   = `{"role":"tool","tool_call_id":"b","content":"ok"}`
		answerX   = `{"role":"tool","tool_call_id":"x","content":"ok"}`
		assistant = `{"role":"assistant","content":"done"}`
	)
	for _, tc := range []struct {
		name     string
		messages []string
		refused  string // "" when accepted
	}{
		{"every call answered", []string{user, callsAB, answerA, answerB, user}, ""},
		{"answered in another order", []string{user, callsAB, answerB, answerA}, ""},
		{"the last call unanswered", []string{user, callsAB, answerA}, "did not have response messages: b"},
		{"unanswered before a user message", []string{user, callsAB, answerA, user}, "did not have response messages: b"},
		{"answered after another message", []string{user, callsAB, answerA, user, answerB}, "did not have response messages: b"},
		{"an answer to no call", []string{user, answerX}, "with role 'tool' must be a response"},
		{"an answer to an earlier message's call", []string{user, callsAB, answerA, answerB, assistant, answerA}, "with role 'tool' must be a response"},
		{"a call answered twice", []string{user, callsAB, answerA, answerB, answerA}, "with role 'tool' must be a response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.NewStrictServer(t, modeltest.Say("fine"))
			res := post(t, srv.URL(), `{"model":"m","messages":[`+strings.Join(tc.messages, ",")+`]}`)
			body, _ := io.ReadAll(res.Body)
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			if tc.refused == "" {
				assert.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
				assert.Empty(t, reqs[0].Refused)
				return
			}
			assert.Equal(t, http.StatusBadRequest, res.StatusCode)
			assert.Contains(t, string(body), tc.refused)
			assert.Contains(t, reqs[0].Refused, tc.refused)
			// The step was not consumed: the next, valid request gets it.
			res = post(t, srv.URL(), hello)
			assert.Equal(t, http.StatusOK, res.StatusCode)
		})
	}
}
