package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/helios-agents/helios/kernel/model"
)

// MaxBreakpoints is how many cache_control breakpoints the API accepts in
// one request.
const MaxBreakpoints = 4

// emptySchema stands in for a tool without parameters: the API requires an
// object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// params renders req as a Messages request. It is a pure function of req,
// and each message renders the same wherever it sits, so a conversation
// that only grew renders every earlier block again byte for byte: that
// prefix is what the provider's cache serves.
//
// The cache breakpoints, at most MaxBreakpoints, go on the last tool, the
// system prompt, the newest message marked CachePoint and the last block of
// the conversation (see the package documentation).
func (c *Client) params(req model.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(c.model), MaxTokens: int64(c.maxTokens)}
	cache := sdk.NewCacheControlEphemeralParam()

	for _, t := range req.Tools {
		schema := bytes.TrimSpace(t.Parameters)
		if len(schema) == 0 {
			schema = emptySchema
		} else if !json.Valid(schema) {
			return p, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
		}
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: param.Override[sdk.ToolInputSchemaParam](json.RawMessage(schema))}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	if n := len(p.Tools); n > 0 {
		p.Tools[n-1].OfTool.CacheControl = cache
	}
	if strings.TrimSpace(req.System) != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: cache}}
	}

	msgs, anchor := conversation(req.Messages)
	if anchor != nil {
		setCache(anchor)
	}
	if n := len(msgs); n > 0 {
		blocks := msgContent(&msgs[n-1])
		setCache(&(*blocks)[len(*blocks)-1])
	}
	p.Messages = msgs
	return p, nil
}

// conversation renders the messages: consecutive messages on one side join
// into one message (tool results and the text injected after them are one
// user turn, as the API wants), a tool result becomes a tool_result block
// paired with its call by id, and blank text is left out (the API refuses
// an empty text block). It returns the block rendered from the newest
// CachePoint message, nil when there is none.
func conversation(in []model.Message) ([]sdk.MessageParam, *sdk.ContentBlockParamUnion) {
	var out []sdk.MessageParam
	anchorMsg, anchorBlock := -1, -1
	total := 0 // blocks rendered so far
	// calls are the tool_use ids of the last assistant message: a result
	// pairs only with a call of the message right before it.
	calls := map[string]bool{}
	add := func(assistant bool, b sdk.ContentBlockParamUnion) {
		if n := len(out); n == 0 || (out[n-1].OfAssistant != nil) != assistant {
			if assistant {
				out = append(out, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{}})
			} else {
				out = append(out, sdk.MessageParam{OfUser: &sdk.UserMessageParam{}})
			}
		}
		blocks := msgContent(&out[len(out)-1])
		*blocks = append(*blocks, b)
		total++
	}
	for i := range in {
		m := &in[i]
		before := total
		switch m.Role {
		case model.RoleAssistant:
			if n := len(out); n == 0 || out[n-1].OfAssistant == nil {
				clear(calls)
			}
			if strings.TrimSpace(m.Content) != "" {
				add(true, sdk.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				calls[tc.ID] = true
				add(true, sdk.NewToolUseBlock(tc.ID, toolInput(tc.Arguments), tc.Name))
			}
		case model.RoleTool:
			if !calls[m.ToolCallID] {
				// A result whose call is not in the message before it (a
				// compaction hid the call): the API refuses an unpaired
				// tool_result, so the model reads it as text.
				add(false, sdk.NewTextBlock(fmt.Sprintf("[result of tool call %s]\n%s", m.ToolCallID, orNone(m.Content))))
				break
			}
			r := &sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID}
			if strings.TrimSpace(m.Content) != "" {
				r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Content}}}
			}
			if m.IsError {
				r.IsError = param.NewOpt(true)
			}
			add(false, sdk.ContentBlockParamUnion{OfToolResult: r})
		default: // user, and anything else speaks on the user's side
			if strings.TrimSpace(m.Content) != "" {
				add(false, sdk.NewTextBlock(m.Content))
			}
		}
		if m.CachePoint && total > before {
			anchorMsg, anchorBlock = len(out)-1, len(*msgContent(&out[len(out)-1]))-1
		}
	}
	if anchorMsg < 0 {
		return out, nil
	}
	return out, &(*msgContent(&out[anchorMsg]))[anchorBlock]
}

// msgContent is the block list of a user or assistant message.
func msgContent(m *sdk.MessageParam) *[]sdk.ContentBlockParamUnion {
	if m.OfAssistant != nil {
		return &m.OfAssistant.Content
	}
	return &m.OfUser.Content
}

// setCache puts a cache breakpoint on a block of one of the kinds params
// renders.
func setCache(b *sdk.ContentBlockParamUnion) {
	cache := sdk.NewCacheControlEphemeralParam()
	switch {
	case b.OfText != nil:
		b.OfText.CacheControl = cache
	case b.OfToolUse != nil:
		b.OfToolUse.CacheControl = cache
	case b.OfToolResult != nil:
		b.OfToolResult.CacheControl = cache
	}
}

// toolInput is a tool_use block's input: the arguments the model wrote
// when they are a JSON object; otherwise (a model's mistake, or an answer
// cut at max_tokens) the API would refuse the whole request, so the text
// is kept under one key the model can read back.
func toolInput(args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return json.RawMessage("{}")
	}
	if trimmed[0] == '{' && json.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	wrapped, _ := json.Marshal(map[string]string{"invalid_json_arguments": string(args)})
	return wrapped
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(no output)"
	}
	return s
}
