package host

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	gproto "google.golang.org/protobuf/proto"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/plugins/internal/proto"
	"github.com/helios-agents/helios/plugins/internal/wire"
	"github.com/helios-agents/helios/plugins/sdk"
)

// memPlugin returns a Capability whose one process is srv, served in
// memory: the host's code from the hook handler down to the gRPC client
// runs as it does for a real plugin. The requests srv got are recorded.
func memPlugin(t *testing.T, srv proto.CapabilityServer) (*Capability, *recorder) {
	t.Helper()
	rec := &recorder{CapabilityServer: srv}
	s := grpc.NewServer(wire.ServerOptions()...)
	proto.RegisterCapabilityServer(s, rec)
	conn := testkit.ServeInMemory(t, s, wire.DialOptions()...)
	rpc := wire.NewClient(conn)
	d, err := rpc.Describe(context.Background())
	require.NoError(t, err)
	c, err := newCapability(Config{Name: "mem", Command: "in-memory", Logger: testLogger(t)})
	require.NoError(t, err)
	inst := &instance{client: memClient{}, rpc: rpc}
	inst.ctx, inst.cancel = context.WithCancel(context.Background())
	c.cur, c.desc, c.mounts = inst, d, d.Mounts
	t.Cleanup(func() { c.Close() })
	return c, rec
}

// memClient is the process of an in-memory plugin: it never exits.
type memClient struct{}

func (memClient) Exited() bool { return false }
func (memClient) Kill()        {}

// recorder keeps a copy of each Handle request a plugin got.
type recorder struct {
	proto.CapabilityServer
	mu   sync.Mutex
	reqs []*proto.HandleRequest
}

func (r *recorder) Handle(ctx context.Context, req *proto.HandleRequest) (*proto.HandleResponse, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, gproto.Clone(req).(*proto.HandleRequest))
	r.mu.Unlock()
	return r.CapabilityServer.Handle(ctx, req)
}

// last is the last request a plugin got, nil when none.
func (r *recorder) last() *proto.HandleRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		return nil
	}
	return r.reqs[len(r.reqs)-1]
}

// sdkPlugin serves p with the SDK, from an empty folder.
func sdkPlugin(t *testing.T, p sdk.Plugin) proto.CapabilityServer {
	t.Helper()
	s, err := sdk.New(p, sdk.Config{Dir: t.TempDir(), Logger: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return &wire.GRPCServer{Impl: s}
}

type hookList []sdk.Hook

func (h hookList) Hooks() []sdk.Hook { return h }

// echoes is a plugin with a typed handler on every standard point, which
// records the payload it got and answers with the point's result in out.
func echoes(seen map[string]any, out map[string]any) hookList {
	var mu sync.Mutex
	rec := func(point string, in any) {
		mu.Lock()
		seen[point] = in
		mu.Unlock()
	}
	return hookList{
		sdk.SessionStart("", func(_ context.Context, in sdk.SessionStartIn) (string, bool, error) {
			rec("session:start", in)
			return out["session:start"].(string), true, nil
		}),
		sdk.ContextPrepare("", func(_ context.Context, in sdk.PrepareIn) (string, bool, error) {
			rec("context:prepare", in)
			return out["context:prepare"].(string), true, nil
		}),
		sdk.ToolBefore("", func(_ context.Context, in sdk.ToolBeforeIn) (sdk.ToolDecision, bool, error) {
			rec("tool:before", in)
			return out["tool:before"].(sdk.ToolDecision), true, nil
		}),
		sdk.TurnEnd("", func(_ context.Context, in sdk.TurnEndIn) (sdk.TurnDecision, bool, error) {
			rec("turn:end", in)
			return out["turn:end"].(sdk.TurnDecision), true, nil
		}),
		sdk.ContextCompact("", func(_ context.Context, in sdk.CompactIn) (sdk.Compaction, bool, error) {
			rec("context:compact", in)
			return out["context:compact"].(sdk.Compaction), true, nil
		}),
	}
}

// standardCase is a kernel payload of a standard point, what a plugin must
// see of it (the same value, its text valid UTF-8), a plugin's answer and
// what the kernel must get back.
type standardCase struct {
	point  string
	in     any
	seen   any
	answer any
	want   any
}

func standardCases() []standardCase {
	calls := []hookdata.ToolCall{
		{ID: "c1", Name: "Bash", Arguments: json.RawMessage(`{"command":"git tag -d v1"}`)},
		{ID: "c2", Name: "Read", Arguments: json.RawMessage(`{"path":"README.md"}`)},
	}
	skills := []hookdata.Skill{
		{Name: "changelog", Description: "Draft a changelog.", Source: "project"},
		{Name: "技能", Description: "Ünïcode – fine.", Source: "capability:notes"},
	}
	events := []hookdata.Event{
		{Seq: 1, Type: "user", Text: "Draft the notes"},
		{Seq: 2, Type: "tool_use", ToolName: "Bash", Input: `{"command":"git log"}`},
		{Seq: 3, Type: "tool_result", ToolName: "Bash", Text: "abc123 fix: \xffbinary", IsError: true},
		{Seq: 9, Type: "compaction", Text: "Earlier work.", From: 4, To: 8},
		{Seq: 10, Type: "assistant", Text: "Here they are."},
	}
	seenEvents := append([]hookdata.Event(nil), events...)
	seenEvents[2].Text = "abc123 fix: \uFFFDbinary"
	return []standardCase{
		{
			point:  "session:start",
			in:     kernel.SessionStartIn{SessionID: "s1", WorkDir: "/home/me/proj\xfe"},
			seen:   sdk.SessionStartIn{SessionID: "s1", WorkDir: "/home/me/proj\uFFFD"},
			answer: "Welcome \xff back.",
			want:   "Welcome \uFFFD back.",
		},
		{
			point:  "context:prepare",
			in:     kernel.PrepareIn{SessionID: "s1", Step: 3, Complete: true, Skills: skills},
			seen:   sdk.PrepareIn{SessionID: "s1", Step: 3, Complete: true, Skills: skills},
			answer: "Load the changelog skill first.",
			want:   "Load the changelog skill first.",
		},
		{
			point:  "context:prepare",
			in:     kernel.PrepareIn{SessionID: "s2", Step: 1},
			seen:   sdk.PrepareIn{SessionID: "s2", Step: 1, Skills: []sdk.Skill{}},
			answer: "",
			want:   "",
		},
		{
			point:  "tool:before",
			in:     kernel.ToolBeforeIn{SessionID: "s1", Call: calls[0]},
			seen:   sdk.ToolBeforeIn{SessionID: "s1", Call: calls[0]},
			answer: sdk.ToolDecision{Reason: "rewritten", Args: json.RawMessage(`{"command":"git tag -l"}`)},
			want:   kernel.ToolDecision{Reason: "rewritten", Args: json.RawMessage(`{"command":"git tag -l"}`)},
		},
		{
			point:  "tool:before",
			in:     kernel.ToolBeforeIn{SessionID: "s1", Call: calls[1]},
			seen:   sdk.ToolBeforeIn{SessionID: "s1", Call: calls[1]},
			answer: sdk.ToolDecision{Deny: true, Reason: "no reading"},
			want:   kernel.ToolDecision{Deny: true, Reason: "no reading"},
		},
		{
			point:  "turn:end",
			in:     kernel.TurnEndIn{SessionID: "s1", Step: 2, Text: "Done.", ToolCalls: calls},
			seen:   sdk.TurnEndIn{SessionID: "s1", Step: 2, Text: "Done.", ToolCalls: calls},
			answer: sdk.TurnDecision{End: true},
			want:   kernel.TurnDecision{End: true},
		},
		{
			point: "turn:end",
			in:    kernel.TurnEndIn{SessionID: "s1", Step: 1},
			seen:  sdk.TurnEndIn{SessionID: "s1", Step: 1, ToolCalls: []sdk.ToolCall{}},
			// A zero decision is a decision: the handler said handled.
			answer: sdk.TurnDecision{},
			want:   kernel.TurnDecision{},
		},
		{
			point:  "context:compact",
			in:     kernel.CompactIn{SessionID: "s1", ViewBytes: 900, Budget: 500, Events: events},
			seen:   sdk.CompactIn{SessionID: "s1", ViewBytes: 900, Budget: 500, Events: seenEvents},
			answer: sdk.Compaction{From: 1, To: 3, Summary: "The user asked for notes; git log ran."},
			want:   kernel.Compaction{From: 1, To: 3, Summary: "The user asked for notes; git log ran."},
		},
	}
}

// Every standard point's payload reaches a plugin's typed handler in the
// point's message, as the value the kernel dispatched (the same type on
// both sides), text made valid UTF-8; the plugin's answer comes back as the
// kernel's value.
func TestNativeRoundTrip(t *testing.T) {
	for _, tt := range standardCases() {
		t.Run(tt.point, func(t *testing.T) {
			seen := map[string]any{}
			c, rec := memPlugin(t, sdkPlugin(t, echoes(seen, map[string]any{tt.point: tt.answer})))
			res, err := mountOn(t, c, tt.point)(context.Background(), tt.in)
			require.NoError(t, err)
			req := rec.last()
			require.NotNil(t, req, "the plugin got no call")
			assert.Nil(t, req.GetPayload(), "a standard point's payload went as JSON")
			assert.Empty(t, cmp.Diff(tt.seen, seen[tt.point]), "the plugin saw (-want +got)")
			assert.True(t, res.Handled, "handled")
			assert.Empty(t, cmp.Diff(tt.want, res.Value), "the kernel got (-want +got)")
		})
	}
}

// A custom point's payload is JSON, and so is its result.
func TestNativeCustomPointStaysJSON(t *testing.T) {
	type ping struct {
		N int `json:"n"`
	}
	var got ping
	c, rec := memPlugin(t, sdkPlugin(t, hookList{sdk.On("custom:ping", "", func(_ context.Context, in ping) (ping, bool, error) {
		got = in
		return ping{N: in.N + 1}, true, nil
	})}))
	res, err := mountOn(t, c, "custom:ping")(context.Background(), ping{N: 41})
	require.NoError(t, err)
	req := rec.last()
	require.NotNil(t, req)
	assert.Equal(t, `{"n":41}`, string(req.GetPayload()), "custom payload sent as %T", req.GetInput())
	assert.Equal(t, ping{N: 41}, got)
	assert.True(t, res.Handled)
	assert.Equal(t, json.RawMessage(`{"n":42}`), res.Value)
}

// answering is a plugin that answers every Handle with resp, whatever the
// payload: the answers a plugin written without the SDK could give.
type answering struct {
	proto.UnimplementedCapabilityServer
	resp *proto.HandleResponse
}

func (a *answering) Describe(context.Context, *proto.DescribeRequest) (*proto.DescribeResponse, error) {
	return &proto.DescribeResponse{Name: "raw", NativeHooks: true, Mounts: []*proto.Mount{
		{Point: "session:start"}, {Point: "context:prepare"}, {Point: "tool:before"}, {Point: "turn:end"}, {Point: "context:compact"}, {Point: "custom:x"},
	}}, nil
}

func (a *answering) Handle(context.Context, *proto.HandleRequest) (*proto.HandleResponse, error) {
	return a.resp, nil
}

// An answer the kernel cannot use is an error naming the plugin and the
// point: a dispatch logs it as the handler's failure and goes on with the
// builtin's result. Nothing panics. (Each rule of the decoder is tested
// beside it, in plugins/internal/wire; these are the rules seen end to end.)
func TestNativeInvalidAnswers(t *testing.T) {
	for _, tt := range []struct {
		name, point string
		resp        *proto.HandleResponse
		want        string
	}{
		{"another point's result", "context:prepare", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Deny: true}}}, "a tool decision is not a result of this point"},
		{"a typed result on a custom point", "custom:x", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: "x"}}, "a text is not a result of this point"},
		{"span reversed", "context:compact", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 5, To: 3}}}, "span [5, 3] is not a valid range of events"},
		{"JSON for a standard point", "turn:end", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Result{Result: []byte(`{"end":true}`)}}, "a JSON result is not a result of this point"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := memPlugin(t, &answering{resp: tt.resp})
			in := map[string]any{"context:prepare": kernel.PrepareIn{}, "tool:before": kernel.ToolBeforeIn{}, "context:compact": kernel.CompactIn{}, "turn:end": kernel.TurnEndIn{}, "custom:x": 1}[tt.point]
			_, err := mountOn(t, c, tt.point)(context.Background(), in)
			require.Error(t, err)
			for _, part := range []string{`plugin "mem"`, "decode " + tt.point + " result", tt.want} {
				assert.Contains(t, err.Error(), part)
			}

			if tt.point != "context:prepare" {
				return
			}
			// Through the registry: a warning, and the builtin's answer.
			var warnings []contract.Warning
			r := hooks.New(hooks.Config{OnWarning: func(w contract.Warning) { warnings = append(warnings, w) }})
			require.NoError(t, hooks.ContextPrepare.Mount(r, "builtin", hooks.Builtin, func(context.Context, kernel.PrepareIn) (string, bool, error) {
				return "builtin", true, nil
			}))
			m := c.Mounts()[1] // context:prepare
			require.Equal(t, tt.point, m.Point)
			m.Origin = hooks.Plugin
			require.NoError(t, r.Mount(m))
			out, err := hooks.ContextPrepare.Dispatch(context.Background(), r, kernel.PrepareIn{})
			require.NoError(t, err)
			assert.Equal(t, []string{"builtin"}, out)
			if assert.Len(t, warnings, 1) {
				assert.Contains(t, warnings[0].Message, tt.want)
			}
		})
	}
}

// A payload of another type than the point's is refused by the host,
// naming the point, before anything is sent; the plugin is not called.
func TestNativePayloadOfAnotherPoint(t *testing.T) {
	c, rec := memPlugin(t, sdkPlugin(t, echoes(map[string]any{}, map[string]any{"tool:before": sdk.ToolDecision{}})))
	_, err := mountOn(t, c, "tool:before")(context.Background(), kernel.PrepareIn{SessionID: "s"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `plugin "mem": hook tool:before: encode tool:before payload: got the payload of context:prepare`)
	assert.Nil(t, rec.last(), "the plugin was called")
}

// Protects M288, M289: a plugin's handler takes the kernel's own payload
// and result types (package hookdata, aliased on both sides), so a handler
// written for the kernel is a plugin's handler as it is: mounted in process
// and served by a plugin, one guard decides alike.
func TestOneHandlerInProcessAndInAPlugin(t *testing.T) {
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeFor[sdk.SessionStartIn](), reflect.TypeFor[kernel.SessionStartIn]()},
		{reflect.TypeFor[sdk.PrepareIn](), reflect.TypeFor[kernel.PrepareIn]()},
		{reflect.TypeFor[sdk.CompactIn](), reflect.TypeFor[kernel.CompactIn]()},
		{reflect.TypeFor[sdk.Compaction](), reflect.TypeFor[kernel.Compaction]()},
		{reflect.TypeFor[sdk.ToolBeforeIn](), reflect.TypeFor[kernel.ToolBeforeIn]()},
		{reflect.TypeFor[sdk.ToolDecision](), reflect.TypeFor[kernel.ToolDecision]()},
		{reflect.TypeFor[sdk.TurnEndIn](), reflect.TypeFor[kernel.TurnEndIn]()},
		{reflect.TypeFor[sdk.TurnDecision](), reflect.TypeFor[kernel.TurnDecision]()},
	} {
		assert.Equal(t, pair[1], pair[0], "the SDK's type is not the kernel's")
	}

	var guard any = func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
		if in.Call.Name != "Bash" {
			return kernel.ToolDecision{}, false, nil
		}
		return kernel.ToolDecision{Deny: true, Reason: "no shell in " + in.SessionID}, true, nil
	}
	asPlugin, ok := guard.(func(context.Context, sdk.ToolBeforeIn) (sdk.ToolDecision, bool, error))
	require.True(t, ok, "a kernel handler is not a plugin handler")
	inProcess := hooks.New(hooks.Config{})
	require.NoError(t, inProcess.Mount(hooks.ToolBefore.Bind("guard", guard.(func(context.Context, kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error)))))
	c, _ := memPlugin(t, sdkPlugin(t, hookList{sdk.ToolBefore("guard", asPlugin)}))
	remote := hooks.New(hooks.Config{})
	for _, m := range c.Mounts() {
		m.Origin = hooks.Plugin
		require.NoError(t, remote.Mount(m))
	}
	for _, call := range []hookdata.ToolCall{{ID: "1", Name: "Bash"}, {ID: "2", Name: "Read"}} {
		in := kernel.ToolBeforeIn{SessionID: "s1", Call: call}
		want, wantOK, err := hooks.ToolBefore.Dispatch(context.Background(), inProcess, in)
		require.NoError(t, err)
		got, gotOK, err := hooks.ToolBefore.Dispatch(context.Background(), remote, in)
		require.NoError(t, err)
		assert.Equal(t, wantOK, gotOK, "%s: decided", call.Name)
		assert.Equal(t, want, got, "%s: decision", call.Name)
	}
}
