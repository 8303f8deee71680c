// Package openai is the model port's adapter for OpenAI-compatible Chat
// Completions endpoints: DeepSeek, OpenAI, vLLM, Ollama and the llama.cpp
// server.
//
// It speaks the wire format directly over net/http: one POST to
// {BaseURL}/chat/completions with "stream": true, an SSE parser that
// tolerates the servers' differences (CRLF, comments, missing blank lines,
// plain JSON answers to a streaming request, missing tool call ids, arguments
// sent as objects), and a retry loop that never repeats output the caller has
// already seen.
//
// What a server sends is bounded (an SSE line or event, one tool call's
// arguments, the number of tool calls, the whole answer); past a limit,
// Generate fails with an error wrapping ErrTooLarge that names the limit.
package openai
