// Package mcpclient makes MCP servers capabilities of the kernel: each
// configured server (a command spoken to over stdio, or a streamable HTTP
// endpoint) is one kernel.Capability named "mcp:<server>", started with the
// kernel and stopped with it, through the official client of
// github.com/modelcontextprotocol/go-sdk.
//
// Its tools reach the model as mcp__<server>__<tool>, with the server's
// input schema and annotations; the tool list is read again when the server
// says it changed (notifications/tools/list_changed), so the next step sees
// the change. A server that offers the Agent Skills extension
// (io.modelcontextprotocol/skills, SEP-2640) is also a skills source named
// "mcp:<server>": skills/list feeds the kernel's merge, each load fetches the
// skill's manifest and files, verifies every digest and writes them to a
// folder of the server's own, so the skill's scripts and references resolve
// like a local skill's; the server's list_changed notifications invalidate
// exactly its registration.
//
// A server that fails to start, exits, hangs or answers garbage costs only
// itself: one warning naming it, its tools and skills gone until a restart
// (with a doubling backoff) succeeds. Every message read from a server is
// bounded (MaxMessage); a call that gets no answer within the server's
// timeout, or an answer over the bound, is an error result the model reads.
package mcpclient
