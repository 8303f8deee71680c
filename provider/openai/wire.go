package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/helios-agents/helios/kernel/model"
)

// The request side of the wire format.

type chatRequest struct {
	Model         string         `json:"model"`
	Messages      []wireMessage  `json:"messages"`
	Tools         []wireTool     `json:"tools,omitempty"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	// PromptCacheKey groups a session's requests on OpenAI's prompt cache.
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is null on an assistant message that only calls tools: some
	// servers reject "" there.
	Content    *string        `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name string `json:"name"`
	// Arguments is a string holding JSON, not a JSON object.
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string      `json:"type"`
	Function wireToolDef `json:"function"`
}

type wireToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema stands in for a tool without parameters: several servers
// require the key.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// encodeRequest renders req as the JSON body, once per Generate: retries
// resend the same bytes.
func encodeRequest(c *Client, req model.Request) ([]byte, error) {
	cr := chatRequest{
		Model:         c.model,
		Messages:      make([]wireMessage, 0, len(req.Messages)+1),
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		Temperature:   c.temperature,
		MaxTokens:     c.maxTokens,
	}
	if c.cacheKey {
		cr.PromptCacheKey = req.CacheKey
	}
	if req.System != "" {
		cr.Messages = append(cr.Messages, wireMessage{Role: "system", Content: &req.System})
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		wm := wireMessage{Role: string(m.Role), Content: &m.Content, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 {
			if m.Content == "" {
				wm.Content = nil
			}
			wm.ToolCalls = make([]wireToolCall, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				args := string(bytes.TrimSpace(tc.Arguments))
				if args == "" {
					args = "{}"
				}
				wm.ToolCalls[j] = wireToolCall{ID: tc.ID, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: args}}
			}
		}
		cr.Messages = append(cr.Messages, wm)
	}
	if len(req.Tools) > 0 {
		cr.Tools = make([]wireTool, len(req.Tools))
		for i, t := range req.Tools {
			params := t.Parameters
			if len(bytes.TrimSpace(params)) == 0 {
				params = emptySchema
			} else if !json.Valid(params) {
				return nil, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
			}
			cr.Tools[i] = wireTool{Type: "function", Function: wireToolDef{Name: t.Name, Description: t.Description, Parameters: params}}
		}
	}
	return json.Marshal(cr)
}

// The response side: one type serves stream chunks (choices[].delta) and
// plain completions (choices[].message).

type chatChunk struct {
	Choices []struct {
		Index        int        `json:"index"`
		Delta        *wireDelta `json:"delta"`
		Message      *wireDelta `json:"message"`
		FinishReason string     `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		// Details tell how much of the prompt the server's cache served.
		Details *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	// Error is how servers report a failure inside a 200 stream.
	Error json.RawMessage `json:"error"`
	// Model is the model that answered.
	Model string `json:"model"`
	// Type is absent from Chat Completions; Anthropic's Messages events
	// have one, which is how a server speaking the other API is told.
	Type string `json:"type"`
}

type wireDelta struct {
	Content   string          `json:"content"`
	ToolCalls []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	// Index is absent on some servers; see assembler.slot.
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string   `json:"name"`
		Arguments argsText `json:"arguments"`
	} `json:"function"`
}

// argsText is a fragment of a tool call's arguments. The format says a JSON
// string; a few servers send the object itself, which is kept as written.
type argsText []byte

func (a *argsText) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = append((*a)[:0], s...)
	case string(b) == "null":
		*a = (*a)[:0]
	default:
		*a = append((*a)[:0], b...)
	}
	return nil
}
