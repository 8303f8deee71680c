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
package openai
