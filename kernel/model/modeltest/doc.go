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
// The wire format is written here independently of package openai, so each
// checks the other.
package modeltest
