package kernel_test

// Resuming an interrupted session (DESIGN.md C19): the kernel answers each
// call the log holds without a result, so a strict provider accepts the
// request. The resume of a killed helios process is in test/unit.

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/session/sessiontest"
	"github.com/helios-agents/helios/provider/anthropic"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/provider/openai"
)

// A resumed session always makes a request a strict provider accepts
// (C19): each tool call the log holds without a result is answered, once,
// as interrupted with an unknown outcome, and the answer follows its call
// in the request even when the log holds later messages (a session resumed
// before Helios repaired logs). Both wires: Anthropic's Messages API
// refuses a tool_use without its tool_result as OpenAI-compatible APIs do.
func TestResumeAnswersInterruptedCalls(t *testing.T) {
	call := func(id, cmd string) session.Event {
		return session.Event{Type: session.ToolUse, ToolUseID: id, ToolName: "Bash", Input: json.RawMessage(`{"command":"` + cmd + `"}`)}
	}
	result := func(id string) session.Event {
		return session.Event{Type: session.ToolResult, ToolUseID: id, ToolName: "Bash", Text: "ok"}
	}
	for _, tc := range []struct {
		name        string
		log         []session.Event
		interrupted []string // the calls answered as interrupted
	}{
		{"killed during the only call", []session.Event{
			{Type: session.User, Text: "build it"}, {Type: session.Assistant}, call("a", "make"),
		}, []string{"a"}},
		{"killed during the second of three calls", []session.Event{
			{Type: session.User, Text: "build it"}, {Type: session.Assistant, Text: "on it"},
			call("a", "true"), call("b", "make"), call("c", "make test"), result("a"),
		}, []string{"b", "c"}},
		{"resumed before, by a Helios that did not repair", []session.Event{
			{Type: session.User, Text: "build it"}, {Type: session.Assistant}, call("a", "make"),
			{Type: session.User, Text: "again"}, {Type: session.User, Text: "and again"},
		}, []string{"a"}},
		{"nothing interrupted", []session.Event{
			{Type: session.User, Text: "build it"}, {Type: session.Assistant}, call("a", "make"), result("a"),
			{Type: session.Assistant, Text: "built"},
		}, nil},
	} {
		for _, provider := range []string{"openai", "anthropic"} {
			t.Run(provider+"/"+tc.name, func(t *testing.T) {
				store := session.NewMemoryStore()
				l, err := store.Create(t.Context())
				require.NoError(t, err)
				_, err = l.Append(t.Context(), tc.log...)
				require.NoError(t, err)
				id := l.ID()
				require.NoError(t, l.Close())

				var srv *modeltest.Server
				var client model.Model
				if provider == "anthropic" {
					// The Messages API server refuses an unpaired tool_use (or a
					// tool_result answering no call) as a test failure.
					srv = modeltest.NewAnthropicServer(t, modeltest.Say("resumed"), modeltest.Say("resumed again"))
					client, err = anthropic.New(anthropic.Config{BaseURL: srv.URL(), Model: "claude-strict", MaxRetries: -1})
				} else {
					srv = modeltest.NewStrictServer(t, modeltest.Say("resumed"), modeltest.Say("resumed again"))
					client, err = openai.New(openai.Config{BaseURL: srv.URL(), Model: "strict", MaxRetries: -1})
				}
				require.NoError(t, err)
				k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Model: client, Store: store})
				require.NoError(t, err)
				defer k.Close()

				for _, prompt := range []string{"go on", "and now?"} {
					s, err := k.OpenSession(t.Context(), kernel.SessionConfig{Resume: id})
					require.NoError(t, err)
					_, err = s.Run(t.Context(), prompt)
					require.NoError(t, err, "the strict server refused the resumed request")
					require.NoError(t, s.Close())
				}
				for i, req := range srv.Requests() {
					assert.Empty(t, req.Refused, "request %d", i+1)
					modeltest.CheckToolPairs(t, "request", req.Messages)
					if provider == "anthropic" {
						for _, m := range req.Messages {
							if m.Role == model.RoleTool && slices.Contains(tc.interrupted, m.ToolCallID) {
								assert.True(t, m.IsError, "request %d: the interrupted call %s's tool_result has is_error", i+1, m.ToolCallID)
							}
						}
					}
				}

				r, err := store.Open(t.Context(), id)
				require.NoError(t, err)
				defer r.Close()
				var got []string
				for _, e := range sessiontest.Events(r) {
					if e.Type == session.ToolResult && e.Meta[session.InterruptedKey] == "true" {
						got = append(got, e.ToolUseID)
						assert.True(t, e.IsError)
						assert.Contains(t, e.Text, "outcome is unknown")
					}
				}
				assert.Equal(t, tc.interrupted, got, "each interrupted call answered once, over two resumes")
				sessiontest.CheckToolPairs(t, r)
			})
		}
	}
}

// An embedder stepping a resumed session itself (Step, without Run, which
// repairs the log) still sends a request a strict provider accepts: a call
// the log holds no result for is answered in the request as interrupted.
func TestStepAnswersUnrepairedCalls(t *testing.T) {
	store := session.NewMemoryStore()
	l, err := store.Create(t.Context())
	require.NoError(t, err)
	_, err = l.Append(t.Context(),
		session.Event{Type: session.User, Text: "build it"},
		session.Event{Type: session.Assistant},
		session.Event{Type: session.ToolUse, ToolUseID: "a", ToolName: "Bash", Input: json.RawMessage(`{"command":"make"}`)},
	)
	require.NoError(t, err)
	id := l.ID()
	require.NoError(t, l.Close())

	srv := modeltest.NewStrictServer(t, modeltest.Say("stepped"))
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "strict", MaxRetries: -1})
	require.NoError(t, err)
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Model: client, Store: store})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{Resume: id})
	require.NoError(t, err)
	defer s.Close()
	resp, _, err := s.Step(t.Context(), 1)
	require.NoError(t, err, "the strict server refused the step's request")
	assert.Equal(t, "stepped", resp.Text)
	req := srv.Requests()[0]
	require.Empty(t, req.Refused)
	var answer string
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == "a" {
			answer = m.Content
		}
	}
	assert.Contains(t, answer, "interrupted")
	assert.Contains(t, answer, "outcome is unknown")
}
