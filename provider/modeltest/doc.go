// Package modeltest serves a scripted model over HTTP for keyless tests.
//
// NewServer starts an httptest server speaking the OpenAI Chat Completions
// wire format (SSE when the request asks to stream, plain JSON otherwise), so
// a test points the real adapter (package openai) at Server.URL and
// everything above the model port runs as it does against a live endpoint.
// Each request consumes the next Step of the script; Server.Requests shows
// what the adapter sent, decoded. Scripts are exact: a request beyond the
// script, or a step never requested, fails the test.
//
// NewStrictServer also refuses, with the HTTP 400 OpenAI-compatible APIs
// give, a request whose assistant tool_calls are not each answered by a tool
// message right after them, or whose tool message answers no call: the
// shape a resumed session must never send.
//
// The wire format is written here independently of package openai, so each
// checks the other.
package modeltest
