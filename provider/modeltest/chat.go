package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/helios-agents/helios/kernel/model"
)

// The Chat Completions side: the strict server's rule, the request's wire
// format and the response's (whole or streamed).

// checkToolMessages is the strict server's rule (see NewStrictServer), with
// the wording of OpenAI's refusals; "" when the messages keep it.
func checkToolMessages(msgs []model.Message) string {
	var open []string // calls of the last assistant message not answered yet
	var asked map[string]bool
	for i, m := range msgs {
		if m.Role == model.RoleTool {
			if !asked[m.ToolCallID] {
				return fmt.Sprintf("Invalid parameter: messages[%d] with role 'tool' must be a response to a preceding message with 'tool_calls' (no call has id %q).", i, m.ToolCallID)
			}
			delete(asked, m.ToolCallID)
			open = slices.DeleteFunc(open, func(id string) bool { return id == m.ToolCallID })
			continue
		}
		if len(open) > 0 {
			return fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
		}
		asked = map[string]bool{}
		for _, c := range m.ToolCalls {
			open = append(open, c.ID)
			asked[c.ID] = true
		}
	}
	if len(open) > 0 {
		return fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
	}
	return ""
}

// The request side of the wire format.

type wireRequest struct {
	Model         string        `json:"model"`
	Messages      []wireMessage `json:"messages"`
	Tools         []wireTool    `json:"tools"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	PromptCacheKey string `json:"prompt_cache_key"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []wireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func decode(body []byte) (Recorded, error) {
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Recorded{}, err
	}
	if req.Model == "" {
		return Recorded{}, fmt.Errorf("no model")
	}
	rec := Recorded{Model: req.Model, Stream: req.Stream, Body: json.RawMessage(body), CacheKey: req.PromptCacheKey}
	for i, m := range req.Messages {
		text, err := content(m.Content)
		if err != nil {
			return Recorded{}, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		if i == 0 && m.Role == "system" {
			rec.System = text
			continue
		}
		msg := model.Message{Role: model.Role(m.Role), Content: text, ToolCallID: m.ToolCallID}
		for j, c := range m.ToolCalls {
			if c.Type != "function" {
				return Recorded{}, fmt.Errorf("messages[%d].tool_calls[%d].type is %q, want \"function\"", i, j, c.Type)
			}
			msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
		}
		rec.Messages = append(rec.Messages, msg)
	}
	for i, t := range req.Tools {
		if t.Type != "function" {
			return Recorded{}, fmt.Errorf("tools[%d].type is %q, want \"function\"", i, t.Type)
		}
		rec.Tools = append(rec.Tools, model.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return rec, nil
}

// content reads a message content: a string, null, or text parts.
func content(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("neither a string nor text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// The response side.

// chatUsage is the Chat Completions usage object.
func (a answer) chatUsage() map[string]any {
	u := a.usage
	return map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
		"total_tokens": u.PromptTokens + u.CompletionTokens, "prompt_tokens_details": map[string]int{"cached_tokens": u.CacheReadTokens}}
}

func (a answer) finish() string {
	if len(a.calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (a answer) complete(w http.ResponseWriter) {
	msg := map[string]any{"role": "assistant", "content": nil}
	if a.text != "" || len(a.calls) == 0 {
		msg["content"] = a.text
	}
	if len(a.calls) > 0 {
		calls := make([]any, len(a.calls))
		for i, c := range a.calls {
			calls[i] = map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": string(c.Arguments)}}
		}
		msg["tool_calls"] = calls
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": a.id, "object": "chat.completion", "created": 0, "model": a.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": a.finish()}},
		"usage":   a.chatUsage(),
	})
}

func (a answer) stream(w http.ResponseWriter, chunked, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": a.id, "object": "chat.completion.chunk", "created": 0, "model": a.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, piece := range split(a.text, chunked, 3) {
		send(chunk(map[string]any{"content": piece}, nil))
	}
	for i, c := range a.calls {
		// As OpenAI does: id and name first, then the arguments in pieces.
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		for _, piece := range split(string(c.Arguments), chunked, 8) {
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": piece}}}}, nil))
		}
	}
	send(chunk(map[string]any{}, a.finish()))
	if includeUsage {
		send(map[string]any{"id": a.id, "object": "chat.completion.chunk", "created": 0, "model": a.model,
			"choices": []any{}, "usage": a.chatUsage()})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// split cuts s into pieces of n runes when chunked, else one piece; "" has
// none.
func split(s string, chunked bool, n int) []string {
	if s == "" {
		return nil
	}
	if !chunked {
		return []string{s}
	}
	var out []string
	for s != "" {
		i, k := 0, 0
		for k < n && i < len(s) {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func writeError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": "modeltest_error"}})
}
