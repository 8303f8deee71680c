package plugins_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/proto"
)

var overLimit = strings.Repeat("x", plugins.MaxPayload+1)

// The host refuses to send a payload over MaxPayload, naming the limit;
// the plugin is not called.
func TestHostRefusesOversizedPayload(t *testing.T) {
	f := &fake{}
	c := dial(t, f)
	_, err := c.Handle(t.Context(), "context:prepare", "", json.RawMessage(`"`+overLimit+`"`))
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "hook payload of 33554435 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)")
	_, err = c.CallTool(t.Context(), "jot", json.RawMessage(`"`+overLimit+`"`))
	require.ErrorIs(t, err, plugins.ErrTooLarge)
	assert.Contains(t, err.Error(), "tool arguments of 33554435 bytes")
	assert.Nil(t, f.lastArg, "the plugin was called")
}

// A plugin built on GRPCServer (plugins/sdk) refuses to send a result over
// MaxPayload, with an error naming the limit.
func TestPluginRefusesOversizedResult(t *testing.T) {
	f := &fake{hook: plugins.HookResult{Handled: true, Result: json.RawMessage(`"` + overLimit + `"`)}}
	c := dial(t, f)
	_, err := c.Handle(t.Context(), "context:prepare", "", json.RawMessage(`{}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hook result of 33554435 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)")
	assert.NotErrorIs(t, err, plugins.ErrTooLarge, "the host refused it after the transfer; the plugin must refuse to send it")
}

// hostile is a plugin that ignores the limits: it answers with whatever
// it is told, past MaxPayload and past MaxMessageSize.
type hostile struct {
	proto.UnimplementedCapabilityServer
	result, content, body string
	describe              string
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
	return &proto.DescribeResponse{Name: "h", Description: h.describe}, nil
}

func dialRaw(t *testing.T, srv proto.CapabilityServer) plugins.Capability {
	t.Helper()
	s := grpc.NewServer(grpc.MaxSendMsgSize(1 << 30))
	proto.RegisterCapabilityServer(s, srv)
	conn := testkit.ServeInMemory(t, s, plugins.DialOptions()...)
	c, err := (&plugins.GRPCPlugin{}).GRPCClient(context.Background(), nil, conn)
	require.NoError(t, err)
	return c.(plugins.Capability)
}

// The host checks what a plugin sends, whoever wrote the plugin.
func TestHostRefusesOversizedAnswers(t *testing.T) {
	c := dialRaw(t, &hostile{result: overLimit, content: overLimit, body: overLimit, describe: strings.Repeat("d", plugins.MaxMessageSize)})
	_, err := c.Handle(t.Context(), "context:prepare", "", json.RawMessage(`{}`))
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

// A native answer is bounded like a JSON one, on both sides: the SDK's
// side refuses to send it, the host refuses what a plugin sent anyway.
func TestNativeAnswersBounded(t *testing.T) {
	req := &proto.HandleRequest{Point: "context:prepare", Input: &proto.HandleRequest_Prepare{Prepare: &proto.Prepare{}}}
	for _, tt := range []struct {
		name string
		resp *proto.HandleResponse
	}{
		{"text", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: overLimit}}},
		{"reason", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Reason: overLimit}}}},
		{"summary", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 1, To: 1, Summary: overLimit}}}},
	} {
		var resp proto.HandleResponse
		err := dial(t, &native{fake: &fake{}, resp: tt.resp}).(*plugins.GRPCClient).HandleMessage(t.Context(), req, &resp)
		require.Error(t, err, "plugin side, %s", tt.name)
		assert.Contains(t, err.Error(), "hook result of 33554433 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)", "plugin side, %s", tt.name)
		assert.NotErrorIs(t, err, plugins.ErrTooLarge, "plugin side, %s: the plugin must refuse to send it", tt.name)

		err = dialRaw(t, &hostile{native: tt.resp}).(*plugins.GRPCClient).HandleMessage(t.Context(), req, &resp)
		require.ErrorIs(t, err, plugins.ErrTooLarge, "host side, %s", tt.name)
		assert.Contains(t, err.Error(), "hook result of 33554433 bytes exceeds the limit of 32 MiB (plugins.MaxPayload)", "host side, %s", tt.name)
	}
}
