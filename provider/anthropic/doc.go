// Package anthropic is the model port's adapter for Anthropic's Messages
// API, through the official SDK (github.com/anthropics/anthropic-sdk-go).
//
// Each attempt is one streaming POST to {BaseURL}/v1/messages. Tool calls
// arrive as tool_use blocks whose input streams as input_json_delta
// fragments; results go back as tool_result blocks paired with their call
// by id, in the user message right after the call. The key travels as
// x-api-key. Nothing is read from the environment: the SDK's own variables
// (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_CUSTOM_HEADERS, ...)
// are ignored, so the configuration alone says where requests go and with
// which key.
//
// Prompt caching. A request carries at most four cache_control breakpoints:
// on the last tool, on the system prompt, on the newest message marked
// model.Message.CachePoint (the kernel marks the skills catalog), and on the
// last block of the conversation. Rendering is a pure function of the
// request, so a conversation that only grew renders the previous step's
// blocks again byte for byte, and the provider serves that prefix from its
// cache; a compaction or a new catalog only moves the breakpoints to where
// the conversation now changes.
//
// Failures follow the model port's policy: 429, 529 and other 5xx
// statuses, connection failures and streams cut before any text are retried
// (Retry-After honoured up to a minute), never once text reached the caller;
// errors are the port's classes (model.StatusError, model.ErrMalformed,
// model.ErrTooLarge) with the key removed from any message a server sent. A
// server answering in OpenAI's Chat Completions format gets one error naming
// model.provider. What a server sends is bounded (the whole answer and its
// number of tool calls); past a limit, Generate fails with an error wrapping
// model.ErrTooLarge that names it.
package anthropic
