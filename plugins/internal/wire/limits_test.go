package wire_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/internal/proto"
	"github.com/helios-agents/helios/plugins/internal/wire"
)

var overLimit = strings.Repeat("x", plugins.MaxPayload+1)

// The host refuses to send a payload over MaxPayload, naming the limit, a
// custom point's JSON as a standard point's message; the plugin is not
// called.
func TestHostRefusesOversizedPayload(t *testing.T) {
	f := &fake{}
	c := dial(t, f)
	_, err := c.Handle(t.Context(), "custom:x", "", json.RawMessage(`"`+overLimit+`"`))
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "hook payload of 33554435 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)")
	_, err = c.Handle(t.Context(), "context:prepare", "", hookdata.PrepareIn{Skills: []hookdata.Skill{{Description: overLimit}}})
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "exceeds the limit of 32 MiB (plugins.MaxPayload)")
	_, err = c.CallTool(t.Context(), "jot", json.RawMessage(`"`+overLimit+`"`))
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "tool arguments of 33554435 bytes")
	assert.Nil(t, f.lastArg, "the plugin was called")
	assert.Nil(t, f.lastIn, "the plugin was called")
}

// A plugin built on GRPCServer (plugins/sdk) refuses to send a result over
// MaxPayload, with an error naming the limit.
func TestPluginRefusesOversizedResult(t *testing.T) {
	f := &fake{hook: plugins.HookResult{Handled: true, Value: json.RawMessage(`"` + overLimit + `"`)}}
	c := dial(t, f)
	_, err := c.Handle(t.Context(), "custom:x", "", json.RawMessage(`{}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hook result of 33554435 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)")
	assert.NotErrorIs(t, err, plugins.ErrTooLarge, "the host refused it after the transfer; the plugin must refuse to send it")
}

// hostile is a plugin that ignores the limits and the protocol: it answers
// with whatever it is told, past MaxPayload and past MaxMessageSize.
type hostile struct {
	proto.UnimplementedCapabilityServer
	result, content, body string
	describe              string
	mounts                []*proto.Mount
	native                *proto.HandleResponse // answers Handle when set
}

func (h *hostile) Handle(context.Context, *proto.HandleRequest) (*proto.HandleResponse, error) {
	if h.native != nil {
		return h.native, nil
	}
	return &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Result{Result: []byte(h.result)}}, nil
}

func (h *hostile) CallTool(context.Context, *proto.CallToolRequest) (*proto.CallToolResponse, error) {
	return &proto.CallToolResponse{Content: h.content}, nil
}

func (h *hostile) LoadSkill(context.Context, *proto.LoadSkillRequest) (*proto.LoadSkillResponse, error) {
	return &proto.LoadSkillResponse{Name: "jot", Body: h.body}, nil
}

func (h *hostile) Describe(context.Context, *proto.DescribeRequest) (*proto.DescribeResponse, error) {
	return &proto.DescribeResponse{Name: "h", Description: h.describe, Mounts: h.mounts}, nil
}

func dialRaw(t *testing.T, srv proto.CapabilityServer) plugins.Capability {
	t.Helper()
	s := grpc.NewServer(grpc.MaxSendMsgSize(1 << 30))
	proto.RegisterCapabilityServer(s, srv)
	conn := testkit.ServeInMemory(t, s, wire.DialOptions()...)
	return wire.NewClient(conn)
}

// The host checks what a plugin sends, whoever wrote the plugin.
func TestHostRefusesOversizedAnswers(t *testing.T) {
	c := dialRaw(t, &hostile{result: overLimit, content: overLimit, body: overLimit, describe: strings.Repeat("d", plugins.MaxMessageSize)})
	_, err := c.Handle(t.Context(), "custom:x", "", json.RawMessage(`{}`))
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "hook result of 33554433 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)")
	_, err = c.CallTool(t.Context(), "jot", json.RawMessage(`{}`))
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "tool result of 33554433 bytes")
	_, err = c.LoadSkill(t.Context(), "jot")
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "skill body of 33554433 bytes")
	_, err = c.Describe(t.Context())
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "a message exceeds the limit of 64 MiB (plugins.MaxMessageSize)")
}

// A standard point's answer is bounded like a custom one, on both sides:
// GRPCServer refuses to send it, the host refuses what a plugin sent
// anyway.
func TestNativeAnswersBounded(t *testing.T) {
	for _, tt := range []struct {
		name, point string
		in, answer  any
		resp        *proto.HandleResponse
	}{
		{"text", "context:prepare", hookdata.PrepareIn{}, overLimit,
			&proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: overLimit}}},
		{"reason", "tool:before", hookdata.ToolBeforeIn{}, hookdata.ToolDecision{Reason: overLimit},
			&proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Reason: overLimit}}}},
		{"summary", "context:compact", hookdata.CompactIn{}, hookdata.Compaction{From: 1, To: 1, Summary: overLimit},
			&proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 1, To: 1, Summary: overLimit}}}},
	} {
		_, err := dial(t, &fake{hook: plugins.HookResult{Handled: true, Value: tt.answer}}).Handle(t.Context(), tt.point, "", tt.in)
		require.Error(t, err, "plugin side, %s", tt.name)
		assert.Contains(t, err.Error(), "hook result of 33554433 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)", "plugin side, %s", tt.name)
		assert.NotErrorIs(t, err, plugins.ErrTooLarge, "plugin side, %s: the plugin must refuse to send it", tt.name)

		_, err = dialRaw(t, &hostile{native: tt.resp}).Handle(t.Context(), tt.point, "", tt.in)
		require.ErrorIs(t, err, plugins.ErrTooLarge, "host side, %s", tt.name)
		assert.Contains(t, err.Error(), "hook result of 33554433 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)", "host side, %s", tt.name)
	}
}
