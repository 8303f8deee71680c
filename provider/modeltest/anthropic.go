package modeltest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/helios-agents/helios/kernel/model"
)

// The Messages API side, written from Anthropic's public API reference
// independently of package anthropic (and of the SDK it uses), so each
// checks the other.

// NewAnthropicServer starts a server speaking Anthropic's Messages API
// (POST /v1/messages; SSE when the request streams: message_start,
// content_block_start/delta/stop with text_delta and input_json_delta,
// message_delta, message_stop) that answers the i-th request with
// steps[i]. The same Steps script either wire: Recorded.Messages decodes a
// tool_result block as a RoleTool message and each user text block as a
// RoleUser message, as the Chat Completions side sees them.
//
// It refuses, as the API does, what a strict provider refuses, and reports
// it as a test failure: a tool_result not paired with a tool_use of the
// assistant message right before it, a tool_use left without its result,
// a tool_result after other blocks, empty text blocks, more than four
// cache_control breakpoints, a missing max_tokens or anthropic-version.
//
// It simulates the prompt cache: each breakpoint writes the prefix of
// blocks up to it; a later request reads the longest written prefix that
// ends at one of its breakpoints or up to 20 blocks before one. Usage
// reports input, cache-read and cache-write tokens accordingly (four bytes
// of canonical block JSON a token; the provider's minimum cacheable length
// is not modelled).
func NewAnthropicServer(t testing.TB, steps ...Step) *Server {
	t.Helper()
	return newServer(t, t, true, steps)
}

// StartAnthropic is Start for the Messages API.
func StartAnthropic(steps ...Step) *Server {
	return newServer(stderr{}, nil, true, steps)
}

// lookback is how many blocks before a breakpoint the cache looks for an
// earlier entry.
const lookback = 20

type messagesRequest struct {
	Model     string            `json:"model"`
	MaxTokens *int              `json:"max_tokens"`
	Stream    bool              `json:"stream"`
	System    json.RawMessage   `json:"system"`
	Messages  []messagesMessage `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
}

type messagesMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is any content block; raw keeps every field for the cache's view.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Cache     json.RawMessage `json:"cache_control"`
	raw       json.RawMessage
}

func decodeAnthropic(body []byte) (Recorded, error) {
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Recorded{}, err
	}
	switch {
	case req.Model == "":
		return Recorded{}, fmt.Errorf("model: required")
	case req.MaxTokens == nil || *req.MaxTokens < 1:
		return Recorded{}, fmt.Errorf("max_tokens: required, at least 1")
	case len(req.Messages) == 0:
		return Recorded{}, fmt.Errorf("messages: at least one message is required")
	}
	d := &messagesDecoder{rec: Recorded{Model: req.Model, Stream: req.Stream, Body: json.RawMessage(body), MaxTokens: *req.MaxTokens}}
	if err := d.tools(req.Tools); err != nil {
		return Recorded{}, err
	}
	if err := d.system(req.System); err != nil {
		return Recorded{}, err
	}

	var calls []string // the tool_use ids of the last assistant message, awaiting results
	for i, m := range req.Messages {
		path := fmt.Sprintf("messages[%d]", i)
		if m.Role != "user" && m.Role != "assistant" {
			return Recorded{}, fmt.Errorf("%s.role: %q (want user or assistant)", path, m.Role)
		}
		blocks, err := blocksOf(m.Content)
		if err != nil {
			return Recorded{}, fmt.Errorf("%s.content: %w", path, err)
		}
		if len(blocks) == 0 {
			return Recorded{}, fmt.Errorf("%s.content: empty", path)
		}
		if m.Role == "user" {
			if err := d.user(path, blocks, calls); err != nil {
				return Recorded{}, err
			}
			calls = nil
			continue
		}
		if len(calls) > 0 {
			return Recorded{}, fmt.Errorf("%s: tool_use ids were found without tool_result blocks immediately after: %s", path, strings.Join(calls, ", "))
		}
		if calls, err = d.assistant(path, blocks); err != nil {
			return Recorded{}, err
		}
	}
	if len(calls) > 0 {
		return Recorded{}, fmt.Errorf("messages: the last message has tool_use ids without results: %s", strings.Join(calls, ", "))
	}
	if n := len(d.rec.Breakpoints); n > 4 {
		return Recorded{}, fmt.Errorf("a maximum of 4 blocks with cache_control may be provided. Found %d", n)
	}
	return d.rec, nil
}

// messagesDecoder builds the Recorded of one Messages API request, part by
// part, in the order the cache sees the blocks: tools, system, messages.
type messagesDecoder struct {
	rec Recorded
}

// cacheable records the block at path for the cache's view (its canonical
// JSON, after prefix), and a breakpoint where it carries cache_control.
func (d *messagesDecoder) cacheable(path string, raw json.RawMessage, cache json.RawMessage, prefix string) error {
	canon, err := canonical(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(cache) > 0 && string(cache) != "null" {
		var cc struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(cache, &cc) != nil || cc.Type != "ephemeral" {
			return fmt.Errorf("%s.cache_control: want {\"type\":\"ephemeral\"}, got %s", path, cache)
		}
		d.rec.Breakpoints = append(d.rec.Breakpoints, len(d.rec.Blocks))
	}
	d.rec.Blocks = append(d.rec.Blocks, prefix+canon)
	return nil
}

// tools decodes the request's tool definitions.
func (d *messagesDecoder) tools(tools []json.RawMessage) error {
	for i, raw := range tools {
		var t struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			Cache       json.RawMessage `json:"cache_control"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("tools[%d]: %w", i, err)
		}
		if t.Name == "" || !isObject(t.InputSchema) {
			return fmt.Errorf("tools[%d]: name and an input_schema object are required", i)
		}
		if err := d.cacheable(fmt.Sprintf("tools[%d]", i), raw, t.Cache, ""); err != nil {
			return err
		}
		d.rec.Tools = append(d.rec.Tools, model.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	return nil
}

// system decodes the system prompt: a string, or a list of text blocks.
func (d *messagesDecoder) system(system json.RawMessage) error {
	if len(system) == 0 || string(system) == "null" {
		return nil
	}
	var text string
	if json.Unmarshal(system, &text) == nil {
		d.rec.System = text
		d.rec.Blocks = append(d.rec.Blocks, mustCanonical(system))
		return nil
	}
	blocks, err := blocksOf(system)
	if err != nil {
		return fmt.Errorf("system: %w", err)
	}
	var parts []string
	for j, b := range blocks {
		if b.Type != "text" || strings.TrimSpace(b.Text) == "" {
			return fmt.Errorf("system[%d]: want a non-empty text block", j)
		}
		if err := d.cacheable(fmt.Sprintf("system[%d]", j), b.raw, b.Cache, ""); err != nil {
			return err
		}
		parts = append(parts, b.Text)
	}
	d.rec.System = strings.Join(parts, "\n")
	return nil
}

// user decodes a user message at path: the results of pending (the calls
// of the assistant message before), first and each once, then text.
func (d *messagesDecoder) user(path string, blocks []block, pending []string) error {
	pending = slices.Clone(pending)
	for j, b := range blocks {
		bp := fmt.Sprintf("%s.content[%d]", path, j)
		switch b.Type {
		case "tool_result":
			k := indexOf(pending, b.ToolUseID)
			if k < 0 {
				return fmt.Errorf("%s: tool_result for %q, which is not a tool_use of the assistant message right before (or is answered twice)", bp, b.ToolUseID)
			}
			if j > 0 && blocks[j-1].Type != "tool_result" {
				return fmt.Errorf("%s: a tool_result must come before any other block of the message", bp)
			}
			pending = append(pending[:k], pending[k+1:]...)
			text, err := resultText(b.Content)
			if err != nil {
				return fmt.Errorf("%s.content: %w", bp, err)
			}
			d.rec.Messages = append(d.rec.Messages, model.Message{Role: model.RoleTool, ToolCallID: b.ToolUseID, Content: text, IsError: b.IsError, CachePoint: hasCache(b)})
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				return fmt.Errorf("%s: text content blocks must contain non-whitespace text", bp)
			}
			d.rec.Messages = append(d.rec.Messages, model.Message{Role: model.RoleUser, Content: b.Text, CachePoint: hasCache(b)})
		default:
			return fmt.Errorf("%s: unexpected %q block in a user message", bp, b.Type)
		}
		if err := d.cacheable(bp, b.raw, b.Cache, "user "); err != nil {
			return err
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("%s: tool_use ids were found without tool_result blocks immediately after: %s", path, strings.Join(pending, ", "))
	}
	return nil
}

// assistant decodes an assistant message at path and returns the ids of
// its tool calls, which the next message must answer.
func (d *messagesDecoder) assistant(path string, blocks []block) ([]string, error) {
	var calls []string
	msg := model.Message{Role: model.RoleAssistant}
	for j, b := range blocks {
		bp := fmt.Sprintf("%s.content[%d]", path, j)
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				return nil, fmt.Errorf("%s: text content blocks must contain non-whitespace text", bp)
			}
			msg.Content += b.Text
		case "tool_use":
			if b.ID == "" || b.Name == "" || !isObject(b.Input) {
				return nil, fmt.Errorf("%s: a tool_use needs an id, a name and an input object", bp)
			}
			if indexOf(calls, b.ID) >= 0 {
				return nil, fmt.Errorf("%s: tool_use id %q used twice", bp, b.ID)
			}
			calls = append(calls, b.ID)
			msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
		default:
			return nil, fmt.Errorf("%s: unexpected %q block in an assistant message", bp, b.Type)
		}
		msg.CachePoint = msg.CachePoint || hasCache(b)
		if err := d.cacheable(bp, b.raw, b.Cache, "assistant "); err != nil {
			return nil, err
		}
	}
	d.rec.Messages = append(d.rec.Messages, msg)
	return calls, nil
}

// blocksOf reads a content: a string (one text block) or a list of blocks.
func blocksOf(raw json.RawMessage) ([]block, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return []block{{Type: "text", Text: s, raw: b}}, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return nil, fmt.Errorf("neither a string nor a list of blocks")
	}
	out := make([]block, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i].raw = r
	}
	return out, nil
}

// resultText reads a tool_result's content: absent, a string or text
// blocks.
func resultText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	blocks, err := blocksOf(raw)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type != "text" {
			return "", fmt.Errorf("unexpected %q block", bl.Type)
		}
		b.WriteString(bl.Text)
	}
	return b.String(), nil
}

func hasCache(b block) bool { return len(b.Cache) > 0 && string(b.Cache) != "null" }

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// canonical is a block's JSON with its keys sorted and cache_control
// removed: what the prompt cache compares.
func canonical(raw json.RawMessage) (string, error) {
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	delete(v, "cache_control")
	b, err := json.Marshal(v)
	return string(b), err
}

func mustCanonical(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	b, _ := json.Marshal(v)
	return string(b)
}

// cacheBlocks simulates the prompt cache for one request: it returns the
// bytes read from the cache, written to it, and neither.
func (s *Server) cacheBlocks(blocks []string, breakpoints []int) (read, write, rest int) {
	keys := make([][32]byte, len(blocks)+1) // keys[k]: the prefix of k blocks
	size := make([]int, len(blocks)+1)
	h := sha256.New()
	for k, b := range blocks {
		h.Write([]byte(b))
		h.Write([]byte{0})
		copy(keys[k+1][:], h.Sum(nil))
		size[k+1] = size[k] + len(b)
	}
	hit := 0
	for _, bp := range breakpoints {
		for j := bp + 1; j >= max(1, bp+1-lookback); j-- {
			if s.cache[keys[j]] {
				hit = max(hit, j)
				break
			}
		}
	}
	last := 0
	for _, bp := range breakpoints {
		s.cache[keys[bp+1]] = true
		last = bp + 1
	}
	read = size[hit]
	if last > hit {
		write = size[last] - size[hit]
	}
	return read, write, size[len(blocks)] - read - write
}

// The answer side.

func (a answer) stopReason() string {
	if len(a.calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func (a answer) messagesUsage() map[string]int {
	u := a.usage
	return map[string]int{"input_tokens": u.PromptTokens - u.CacheReadTokens - u.CacheWriteTokens,
		"cache_read_input_tokens": u.CacheReadTokens, "cache_creation_input_tokens": u.CacheWriteTokens, "output_tokens": u.CompletionTokens}
}

// message answers a request that did not ask to stream.
func (a answer) message(w http.ResponseWriter) {
	content := []any{}
	if a.text != "" {
		content = append(content, map[string]any{"type": "text", "text": a.text})
	}
	for _, c := range a.calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Arguments)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": a.id, "type": "message", "role": "assistant", "model": a.model,
		"content": content, "stop_reason": a.stopReason(), "stop_sequence": nil, "usage": a.messagesUsage()})
}

// messagesStream answers with the Messages API's server-sent events.
func (a answer) messagesStream(w http.ResponseWriter, chunked bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(event string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	start := a.messagesUsage()
	start["output_tokens"] = 1
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": start}})
	send("ping", map[string]any{"type": "ping"})
	index := 0
	if a.text != "" {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, piece := range split(a.text, chunked, 3) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": piece}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	for _, c := range a.calls {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		for _, piece := range split(string(c.Arguments), chunked, 8) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": a.stopReason(), "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": a.usage.CompletionTokens}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// writeAnthropicError answers with the Messages API's error shape.
func writeAnthropicError(w http.ResponseWriter, status int, message string) {
	types := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
		413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
	typ, ok := types[status]
	if !ok {
		typ = "api_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_modeltest")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message}})
}
