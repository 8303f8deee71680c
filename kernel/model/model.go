// Package model is the kernel's port to a language model: one request with
// the system prompt, the conversation and the tools; one response with text
// and tool calls. Adapters (package openai: any OpenAI-compatible Chat
// Completions endpoint) implement Model; modeltest serves a scripted model
// over HTTP so the real adapter runs in keyless tests.
package model

import (
	"context"
	"encoding/json"
)

// Role of a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries a tool result; ToolCallID names the call.
	RoleTool Role = "tool"
)

// Message is one message of the conversation (the system prompt travels in
// Request.System).
type Message struct {
	Role    Role
	Content string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID is set on RoleTool messages.
	ToolCallID string
}

// ToolCall is one call the model asked for.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is the JSON object the model wrote (it may be invalid JSON:
	// models make mistakes, and the tool reports them as results).
	Arguments json.RawMessage
}

// Tool describes a tool to the model.
type Tool struct {
	Name        string
	Description string
	// Parameters is a JSON Schema object.
	Parameters json.RawMessage
}

// Request is one model call.
type Request struct {
	System   string
	Messages []Message
	Tools    []Tool
	// OnText, when set, receives the answer's text as it streams.
	OnText func(delta string)
}

// Usage counts tokens, when the endpoint reports them.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Response is the model's reply.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	// FinishReason as reported ("stop", "tool_calls", "length", ...).
	FinishReason string
	Usage        Usage
	// Model is the model that answered, as the endpoint reports it; empty
	// when it does not.
	Model string
}

// Info names a model for telemetry: the provider (gen_ai.provider.name, ""
// when unknown), the model name asked for, and the server's host.
type Info struct {
	Provider, Name, Server string
}

// Describer is implemented by models that can name themselves; a model
// that does not is traced as "unknown".
type Describer interface {
	Info() Info
}

// Model is the port. Implementations must honour ctx cancellation.
type Model interface {
	Generate(ctx context.Context, req Request) (Response, error)
}
