package plugins_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fake is a Capability answering from fixed values.
type fake struct {
	desc    plugins.Description
	hook    plugins.HookResult
	watch   func(ctx context.Context, changed func()) error
	lastArg json.RawMessage
}

func (f *fake) Describe(context.Context) (plugins.Description, error) { return f.desc, nil }
func (f *fake) LoadSkill(_ context.Context, name string) (plugins.SkillContent, error) {
	if name != "jot" {
		return plugins.SkillContent{}, errors.New("unknown skill " + name)
	}
	return plugins.SkillContent{Name: "jot", Body: "Body."}, nil
}
func (f *fake) CallTool(_ context.Context, name string, args json.RawMessage) (contract.ToolResult, error) {
	f.lastArg = args
	return contract.ToolResult{Content: name + " ran", IsError: true}, nil
}
func (f *fake) Handle(_ context.Context, point, mount string, payload json.RawMessage) (plugins.HookResult, error) {
	return f.hook, nil
}
func (f *fake) WatchSkills(ctx context.Context, changed func()) error { return f.watch(ctx, changed) }

// dial serves impl through GRPCServer and returns a GRPCClient to it, in
// memory.
func dial(t *testing.T, impl plugins.Capability) plugins.Capability {
	t.Helper()
	s := grpc.NewServer(plugins.ServerOptions()...)
	proto.RegisterCapabilityServer(s, &plugins.GRPCServer{Impl: impl})
	conn := testkit.ServeInMemory(t, s, plugins.DialOptions()...)
	c, err := (&plugins.GRPCPlugin{}).GRPCClient(context.Background(), nil, conn)
	require.NoError(t, err)
	return c.(plugins.Capability)
}

func TestRoundTrip(t *testing.T) {
	desc := plugins.Description{
		Name: "notes", Description: "Takes notes.",
		Mounts:           []plugins.Mount{{Point: "context:prepare"}, {Point: "tool:before", Name: "guard"}},
		Tools:            []plugins.Tool{{Name: "jot_down", Description: "Jot.", Schema: json.RawMessage(`{"type":"object"}`)}},
		Skills:           []plugins.Skill{{Name: "jot", Description: "Jot.", BaseDir: "/p/skills/jot", File: "/p/skills/jot/SKILL.md", DisableModelInvocation: true}},
		SkillsIncomplete: true,
		Warnings:         []contract.Warning{{Path: "/p/skills/x", Message: "skipped"}},
	}
	f := &fake{desc: desc}
	c := dial(t, f)
	ctx := context.Background()
	got, err := c.Describe(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(desc, got), "Describe (-want +got)")
	sc, err := c.LoadSkill(ctx, "jot")
	assert.NoError(t, err, "LoadSkill")
	assert.Equal(t, plugins.SkillContent{Name: "jot", Body: "Body."}, sc, "LoadSkill")
	_, err = c.LoadSkill(ctx, "nope")
	assert.ErrorContains(t, err, "unknown skill nope", "LoadSkill(nope)")
	r, err := c.CallTool(ctx, "jot_down", json.RawMessage(`{"a":1}`))
	assert.NoError(t, err, "CallTool")
	assert.Equal(t, contract.ToolResult{Content: "jot_down ran", IsError: true}, r, "CallTool")
	assert.Equal(t, `{"a":1}`, string(f.lastArg), "CallTool args")
}

// "Pass" is explicit on the wire: a result sent without handled is not a
// decision, and a handled empty result still is one.
func TestHandleHandledIsExplicit(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   plugins.HookResult
		want plugins.HookResult
	}{
		{"pass with a stray result", plugins.HookResult{Result: json.RawMessage(`"x"`)}, plugins.HookResult{}},
		{"handled", plugins.HookResult{Handled: true, Result: json.RawMessage(`"x"`)}, plugins.HookResult{Handled: true, Result: json.RawMessage(`"x"`)}},
		{"handled, zero value", plugins.HookResult{Handled: true, Result: json.RawMessage(`""`)}, plugins.HookResult{Handled: true, Result: json.RawMessage(`""`)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dial(t, &fake{hook: tt.in}).Handle(context.Background(), "context:prepare", "", json.RawMessage(`{}`))
			require.NoError(t, err)
			assert.Equal(t, tt.want.Handled, got.Handled, "Handle = %+v (%s), want %+v (%s)", got, got.Result, tt.want, tt.want.Result)
			assert.Equal(t, string(tt.want.Result), string(got.Result), "Handle = %+v (%s), want %+v (%s)", got, got.Result, tt.want, tt.want.Result)
		})
	}
}

// The watch stream delivers the acknowledgement and the changes; the
// plugin's watch error ends it with that error; cancelling ends it quietly.
func TestWatchSkillsStream(t *testing.T) {
	release := make(chan struct{})
	f := &fake{watch: func(ctx context.Context, changed func()) error {
		changed() // acknowledgement
		<-release
		changed()
		<-ctx.Done()
		return nil
	}}
	c := dial(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan struct{}, 4)
	done := make(chan error, 1)
	go func() { done <- c.WatchSkills(ctx, func() { got <- struct{}{} }) }()
	for i := range 2 {
		if i == 1 {
			close(release)
		}
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			t.Fatalf("message %d never came", i)
		}
	}
	cancel()
	assert.NoError(t, (<-done), "after cancel")

	failing := dial(t, &fake{watch: func(_ context.Context, changed func()) error {
		changed()
		return errors.New("no inotify left")
	}})
	n := 0
	err := failing.WatchSkills(context.Background(), func() { n++ })
	assert.Equal(t, 1, n, "failing watch: %d messages, err %v", n, err)
	if assert.Error(t, err, "failing watch: %d messages, err %v", n, err) {
		assert.Contains(t, err.Error(), "no inotify left", "failing watch: %d messages, err %v", n, err)
	}
}

// native is a Capability that also takes hook calls as messages.
type native struct {
	*fake
	resp *proto.HandleResponse
	got  *proto.HandleRequest
}

func (n *native) HandleMessage(_ context.Context, req *proto.HandleRequest) (*proto.HandleResponse, error) {
	n.got = req
	return n.resp, nil
}

// A plugin says NativeHooks exactly when its implementation is a
// MessageHandler, whatever its Describe says; GRPCServer then hands it the
// request as it came, and "pass" stays explicit.
func TestNativeHooksSaidAndServed(t *testing.T) {
	ctx := context.Background()
	d, err := dial(t, &fake{desc: plugins.Description{Name: "old", NativeHooks: true}}).Describe(ctx)
	require.NoError(t, err)
	assert.False(t, d.NativeHooks, "a Capability without HandleMessage said NativeHooks")

	n := &native{fake: &fake{desc: plugins.Description{Name: "new"}}}
	c := dial(t, n)
	d, err = c.Describe(ctx)
	require.NoError(t, err)
	assert.True(t, d.NativeHooks, "a MessageHandler did not say NativeHooks")

	req := &proto.HandleRequest{Point: "turn:end", Mount: "m", Input: &proto.HandleRequest_TurnEnd{TurnEnd: &proto.TurnEnd{SessionId: "s", Step: 4}}}
	for _, tt := range []struct {
		name       string
		resp, want *proto.HandleResponse
	}{
		{"decision", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{End: true}}},
			&proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{End: true}}}},
		{"pass with a stray result", &proto.HandleResponse{Output: &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{End: true}}}, &proto.HandleResponse{}},
	} {
		n.resp = tt.resp
		var resp proto.HandleResponse
		require.NoError(t, c.(*plugins.GRPCClient).HandleMessage(ctx, req, &resp), tt.name)
		assert.Empty(t, cmp.Diff(req, n.got, protocmp.Transform()), "%s: the request the plugin got (-want +got)", tt.name)
		assert.Empty(t, cmp.Diff(tt.want, &resp, protocmp.Transform()), "%s: the answer (-want +got)", tt.name)
	}
}
