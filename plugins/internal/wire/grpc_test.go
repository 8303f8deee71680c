package wire_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/internal/proto"
	"github.com/helios-agents/helios/plugins/internal/wire"
)

// fake is a Capability answering from fixed values.
type fake struct {
	desc    plugins.Description
	hook    plugins.HookResult
	watch   func(ctx context.Context, changed func()) error
	lastArg json.RawMessage
	lastIn  any
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
func (f *fake) Handle(_ context.Context, point, mount string, in any) (plugins.HookResult, error) {
	f.lastIn = in
	return f.hook, nil
}
func (f *fake) WatchSkills(ctx context.Context, changed func()) error { return f.watch(ctx, changed) }

// dial serves impl through GRPCServer and returns the host's client of it,
// in memory, as go-plugin dispenses it.
func dial(t *testing.T, impl plugins.Capability) plugins.Capability {
	t.Helper()
	s := grpc.NewServer(wire.ServerOptions()...)
	proto.RegisterCapabilityServer(s, &wire.GRPCServer{Impl: impl})
	conn := testkit.ServeInMemory(t, s, wire.DialOptions()...)
	c, err := (&wire.GRPCPlugin{}).GRPCClient(context.Background(), nil, conn)
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
// decision, and a handled zero value still is one; on a standard point and
// on a custom one.
func TestHandleHandledIsExplicit(t *testing.T) {
	for _, tt := range []struct {
		name, point string
		in          any
		answer      plugins.HookResult
		want        plugins.HookResult
	}{
		{"pass with a stray result", "context:prepare", hookdata.PrepareIn{}, plugins.HookResult{Value: "x"}, plugins.HookResult{}},
		{"handled", "context:prepare", hookdata.PrepareIn{}, plugins.HookResult{Handled: true, Value: "x"}, plugins.HookResult{Handled: true, Value: "x"}},
		{"handled, zero value", "turn:end", hookdata.TurnEndIn{}, plugins.HookResult{Handled: true, Value: hookdata.TurnDecision{}}, plugins.HookResult{Handled: true, Value: hookdata.TurnDecision{}}},
		{"custom, pass", "custom:x", 1, plugins.HookResult{Value: "x"}, plugins.HookResult{}},
		{"custom, handled zero value", "custom:x", 1, plugins.HookResult{Handled: true, Value: ""}, plugins.HookResult{Handled: true, Value: json.RawMessage(`""`)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dial(t, &fake{hook: tt.answer}).Handle(context.Background(), tt.point, "", tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
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

// A plugin served by GRPCServer says native_hooks. A plugin that mounts
// handlers without saying it (one written for JSON payloads) is refused at
// Describe, naming what to do; one without handlers needs no payloads and
// is not.
func TestDescribeRefusesJSONHookPlugins(t *testing.T) {
	ctx := context.Background()
	r, err := (&wire.GRPCServer{Impl: &fake{desc: plugins.Description{Name: "new", Mounts: []plugins.Mount{{Point: "turn:end"}}}}}).Describe(ctx, &proto.DescribeRequest{})
	require.NoError(t, err)
	assert.True(t, r.GetNativeHooks(), "GRPCServer does not say native_hooks")

	_, err = dialRaw(t, &hostile{describe: "old", mounts: []*proto.Mount{{Point: "turn:end"}}}).Describe(ctx)
	require.ErrorIs(t, err, wire.ErrJSONHooks)
	assert.Contains(t, err.Error(), "build it again with the current plugins/sdk")

	d, err := dialRaw(t, &hostile{describe: "skills only"}).Describe(ctx)
	require.NoError(t, err)
	assert.Equal(t, "skills only", d.Description)
}
