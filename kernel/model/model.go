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
	// RoleUser is the person's side, and messages injected on it.
	RoleUser Role = "user"
	// RoleAssistant is the model's side.
	RoleAssistant Role = "assistant"
	// RoleTool carries a tool result; ToolCallID names the call.
	RoleTool Role = "tool"
)

// Message is one message of the conversation (the system prompt travels in
// Request.System).
type Message struct {
	// Role says whose message it is.
	Role Role
	// Content is its text (a tool result's content for RoleTool).
	Content string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID is set on RoleTool messages.
	ToolCallID string
}

// ToolCall is one call the model asked for.
type ToolCall struct {
	// ID pairs the call with its result; unique within a session.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the JSON object the model wrote (it may be invalid JSON:
	// models make mistakes, and the tool reports them as results).
	Arguments json.RawMessage
}

// Tool describes a tool to the model.
type Tool struct {
	// Name is what the model calls the tool by.
	Name string
	// Description tells the model when and how to use it.
	Description string
	// Parameters is a JSON Schema object.
	Parameters json.RawMessage
}

// Request is one model call.
type Request struct {
	// System is the system prompt.
	System string
	// Messages is the conversation, oldest first.
	Messages []Message
	// Tools are the tools the model may call.
	Tools []Tool
	// OnText, when set, receives the answer's text as it streams.
	OnText func(delta string)
}

// Usage counts tokens, when the endpoint reports them.
type Usage struct {
	// PromptTokens is the size of the request.
	PromptTokens int
	// CompletionTokens is the size of the answer.
	CompletionTokens int
}

// Response is the model's reply.
type Response struct {
	// Text is what the model said.
	Text string
	// ToolCalls are the calls it asked for, in order.
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
