// Package model is the kernel's port to a language model: one request with
// the system prompt, the conversation and the tools; one response with text,
// tool calls and token usage. Adapters implement Model (package openai: any
// OpenAI-compatible Chat Completions endpoint; package anthropic: Anthropic's
// Messages API); modeltest serves a scripted model over HTTP in either wire
// format so the real adapters run in keyless tests.
//
// Every adapter reports failures in the same classes: *StatusError for an
// HTTP error status, ErrMalformed for an answer that is not the expected
// format, ErrTooLarge for an answer past a limit, and the context's error
// when ctx ends.
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
	// IsError marks a RoleTool result the tool reported as a failure
	// (sent as Anthropic's is_error; Chat Completions has no such field).
	IsError bool
	// CachePoint marks the end of a prefix that later requests repeat
	// unchanged (the kernel sets it on the newest skills catalog message):
	// an adapter with explicit prompt caching puts a cache breakpoint
	// there. Adapters whose provider caches on its own ignore it.
	CachePoint bool
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
	// CacheKey names the conversation the request belongs to (the kernel
	// passes the session ID), for providers that route requests sharing a
	// prefix to the same cache by a key (OpenAI's prompt_cache_key, when
	// the adapter is configured to send it).
	CacheKey string
}

// Usage counts the tokens of one request, when the endpoint reports them.
type Usage struct {
	// PromptTokens is the size of the request, the tokens read from and
	// written to the prompt cache included.
	PromptTokens int
	// CompletionTokens is the size of the answer.
	CompletionTokens int
	// CacheReadTokens are the prompt tokens served from the provider's
	// prompt cache (Anthropic's cache_read_input_tokens, OpenAI's
	// prompt_tokens_details.cached_tokens).
	CacheReadTokens int
	// CacheWriteTokens are the prompt tokens written to the cache
	// (Anthropic's cache_creation_input_tokens; OpenAI reports none).
	CacheWriteTokens int
}

// Response is the model's reply.
type Response struct {
	// Text is what the model said.
	Text string
	// ToolCalls are the calls it asked for, in order.
	ToolCalls []ToolCall
	// FinishReason as the provider reports it: "stop", "tool_calls",
	// "length" (Chat Completions); "end_turn", "tool_use", "max_tokens",
	// "refusal" (Messages).
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
