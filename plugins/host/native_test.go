package host

import (
	"context"
	"encoding/json"
	"strings"
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
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/hookwire"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/proto"
	"github.com/helios-agents/helios/plugins/sdk"
)

// memPlugin returns a Capability whose one process is srv, served in
// memory: the host's code from the hook handler down to the gRPC client
// runs as it does for a real plugin, which says NativeHooks or not in its
// Describe. The requests srv got are recorded.
func memPlugin(t *testing.T, srv proto.CapabilityServer) (*Capability, *recorder) {
	t.Helper()
	rec := &recorder{CapabilityServer: srv}
	s := grpc.NewServer(plugins.ServerOptions()...)
	proto.RegisterCapabilityServer(s, rec)
	conn := testkit.ServeInMemory(t, s, plugins.DialOptions()...)
	raw, err := (&plugins.GRPCPlugin{}).GRPCClient(context.Background(), nil, conn)
	require.NoError(t, err)
	rpc := raw.(wire)
	d, err := rpc.Describe(context.Background())
	require.NoError(t, err)
	c, err := newCapability(Config{Name: "mem", Command: "in-memory", Logger: testLogger(t)})
	require.NoError(t, err)
	inst := &instance{client: memClient{}, rpc: rpc, native: d.NativeHooks}
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

// last is the last request, and whether its payload was JSON.
func (r *recorder) last(t *testing.T) (*proto.HandleRequest, bool) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.reqs, "the plugin got no call")
	req := r.reqs[len(r.reqs)-1]
	_, isJSON := req.GetInput().(*proto.HandleRequest_Payload)
	return req, isJSON
}

// sdkPlugin serves p with the SDK, from an empty folder.
func sdkPlugin(t *testing.T, p sdk.Plugin) proto.CapabilityServer {
	t.Helper()
	s, err := sdk.New(p, sdk.Config{Dir: t.TempDir(), Logger: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return &plugins.GRPCServer{Impl: s}
}

// jsonOnly hides the SDK server's MessageHandler: a plugin built before
// native payloads, which takes and answers JSON only.
type jsonOnly struct{ plugins.Capability }

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
// see of it, a plugin's answer and what the kernel must get back.
type standardCase struct {
	point  string
	in     any
	seen   any
	answer any
	want   any
}

func standardCases(t *testing.T) []standardCase {
	log, err := session.NewLog("s1", []session.Event{
		{Seq: 1, Type: session.User, Text: "Draft the notes"},
		{Seq: 2, Type: session.ToolUse, ToolUseID: "c1", ToolName: "Bash", Input: json.RawMessage(`{"command":"git log"}`)},
		{Seq: 3, Type: session.ToolResult, ToolUseID: "c1", ToolName: "Bash", Text: "abc123 fix: \xffbinary", IsError: true},
		{Seq: 4, Type: session.Assistant, Text: "Here they are."},
	}, session.LogConfig{Commit: func(_ context.Context, evs []session.Event) ([]session.Event, error) { return evs, nil }})
	require.NoError(t, err)
	calls := []model.ToolCall{
		{ID: "c1", Name: "Bash", Arguments: json.RawMessage(`{"command":"git tag -d v1"}`)},
		{ID: "c2", Name: "Read", Arguments: json.RawMessage(`{"path":"README.md"}`)},
	}
	return []standardCase{
		{
			point:  "session:start",
			in:     kernel.SessionStartIn{SessionID: "s1", WorkDir: "/home/me/proj\xfe"},
			seen:   hookwire.SessionStart{SessionID: "s1", WorkDir: "/home/me/proj\uFFFD"},
			answer: "Welcome \xff back.",
			want:   "Welcome \uFFFD back.",
		},
		{
			point: "context:prepare",
			in: kernel.PrepareIn{SessionID: "s1", Step: 3, Catalog: skills.Catalog{Complete: true, Skills: []skills.Skill{
				{Name: "changelog", Description: "Draft a changelog.", Source: "project"},
				{Name: "hidden", Description: "Never shown.", Source: "user", DisableModelInvocation: true},
				{Name: "技能", Description: "Ünïcode – fine.", Source: "capability:notes"},
			}}},
			seen: hookwire.Prepare{SessionID: "s1", Step: 3, Complete: true, Skills: []hookwire.Skill{
				{Name: "changelog", Description: "Draft a changelog.", Source: "project"},
				{Name: "技能", Description: "Ünïcode – fine.", Source: "capability:notes"},
			}},
			answer: "Load the changelog skill first.",
			want:   "Load the changelog skill first.",
		},
		{
			point:  "context:prepare",
			in:     kernel.PrepareIn{SessionID: "s2", Step: 1},
			seen:   hookwire.Prepare{SessionID: "s2", Step: 1, Skills: []hookwire.Skill{}},
			answer: "",
			want:   "",
		},
		{
			point:  "tool:before",
			in:     kernel.ToolBeforeIn{SessionID: "s1", Call: calls[0]},
			seen:   hookwire.ToolBefore{SessionID: "s1", Call: hookwire.ToolCall{ID: "c1", Name: "Bash", Arguments: json.RawMessage(`{"command":"git tag -d v1"}`)}},
			answer: hookwire.ToolDecision{Reason: "rewritten", Args: json.RawMessage(`{"command":"git tag -l"}`)},
			want:   kernel.ToolDecision{Reason: "rewritten", Args: json.RawMessage(`{"command":"git tag -l"}`)},
		},
		{
			point:  "tool:before",
			in:     kernel.ToolBeforeIn{SessionID: "s1", Call: calls[1]},
			seen:   hookwire.ToolBefore{SessionID: "s1", Call: hookwire.ToolCall{ID: "c2", Name: "Read", Arguments: json.RawMessage(`{"path":"README.md"}`)}},
			answer: hookwire.ToolDecision{Deny: true, Reason: "no reading"},
			want:   kernel.ToolDecision{Deny: true, Reason: "no reading"},
		},
		{
			point: "turn:end",
			in:    kernel.TurnEndIn{SessionID: "s1", Step: 2, Response: model.Response{Text: "Done.", ToolCalls: calls}},
			seen: hookwire.TurnEnd{SessionID: "s1", Step: 2, Text: "Done.", ToolCalls: []hookwire.ToolCall{
				{ID: "c1", Name: "Bash", Arguments: json.RawMessage(`{"command":"git tag -d v1"}`)},
				{ID: "c2", Name: "Read", Arguments: json.RawMessage(`{"path":"README.md"}`)},
			}},
			answer: hookwire.TurnDecision{End: true},
			want:   kernel.TurnDecision{End: true},
		},
		{
			point: "turn:end",
			in:    kernel.TurnEndIn{SessionID: "s1", Step: 1},
			seen:  hookwire.TurnEnd{SessionID: "s1", Step: 1, ToolCalls: []hookwire.ToolCall{}},
			// A zero decision is a decision: the handler said handled.
			answer: hookwire.TurnDecision{},
			want:   kernel.TurnDecision{},
		},
		{
			point: "context:compact",
			in:    kernel.CompactIn{SessionID: "s1", Log: log, ViewBytes: 900, Budget: 500},
			seen: hookwire.Compact{SessionID: "s1", ViewBytes: 900, Budget: 500, Events: []hookwire.Event{
				{Seq: 1, Type: "user", Text: "Draft the notes"},
				{Seq: 2, Type: "tool_use", ToolName: "Bash", Input: `{"command":"git log"}`},
				{Seq: 3, Type: "tool_result", ToolName: "Bash", Text: "abc123 fix: \uFFFDbinary", IsError: true},
				{Seq: 4, Type: "assistant", Text: "Here they are."},
			}},
			answer: hookwire.Compaction{From: 1, To: 3, Summary: "The user asked for notes; git log ran."},
			want:   kernel.Compaction{From: 1, To: 3, Summary: "The user asked for notes; git log ran."},
		},
	}
}

// Every standard point's payload reaches a plugin's typed handler natively
// with the values it has over JSON, text made valid UTF-8 alike and hidden
// skills left out alike; the plugin's answer comes back natively as the
// same kernel value as over JSON.
func TestNativeRoundTrip(t *testing.T) {
	for _, tt := range standardCases(t) {
		t.Run(tt.point, func(t *testing.T) {
			seen := map[string]any{}
			out := map[string]any{tt.point: tt.answer}
			p := echoes(seen, out)
			native, nrec := memPlugin(t, sdkPlugin(t, p))
			jsonSrv := sdkPlugin(t, p)
			viaJSON, jrec := memPlugin(t, &plugins.GRPCServer{Impl: jsonOnly{jsonSrv.(*plugins.GRPCServer).Impl}})
			require.True(t, native.cur.native, "the SDK's plugin says NativeHooks")
			require.False(t, viaJSON.cur.native, "a JSON-only plugin says NativeHooks")

			for _, side := range []struct {
				name   string
				c      *Capability
				rec    *recorder
				isJSON bool
			}{{"native", native, nrec, false}, {"JSON", viaJSON, jrec, true}} {
				delete(seen, tt.point)
				res, err := mountOn(t, side.c, tt.point)(context.Background(), tt.in)
				require.NoError(t, err, side.name)
				_, isJSON := side.rec.last(t)
				assert.Equal(t, side.isJSON, isJSON, "%s: the payload went as JSON", side.name)
				assert.Empty(t, cmp.Diff(tt.seen, seen[tt.point]), "%s: the plugin saw (-want +got)", side.name)
				assert.True(t, res.Handled, "%s: handled", side.name)
				assert.Empty(t, cmp.Diff(tt.want, res.Value), "%s: the kernel got (-want +got)", side.name)
			}
		})
	}
}

// A custom point's payload is JSON, even for a plugin that takes the
// standard points natively, and so is its result.
func TestNativeCustomPointStaysJSON(t *testing.T) {
	type ping struct {
		N int `json:"n"`
	}
	var got ping
	c, rec := memPlugin(t, sdkPlugin(t, hookList{sdk.On("custom:ping", "", func(_ context.Context, in ping) (ping, bool, error) {
		got = in
		return ping{N: in.N + 1}, true, nil
	})}))
	require.True(t, c.cur.native)
	res, err := mountOn(t, c, "custom:ping")(context.Background(), ping{N: 41})
	require.NoError(t, err)
	req, isJSON := rec.last(t)
	assert.True(t, isJSON, "custom payload sent as %T", req.GetInput())
	assert.Equal(t, `{"n":41}`, string(req.GetPayload()))
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

func handledJSON(s string) *proto.HandleResponse {
	return &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Result{Result: []byte(s)}}
}

// A plugin may answer a native payload natively or in JSON: both decode to
// the same value.
func TestNativeAnswerEitherForm(t *testing.T) {
	in := map[string]any{
		"session:start":   kernel.SessionStartIn{SessionID: "s"},
		"context:prepare": kernel.PrepareIn{SessionID: "s"},
		"tool:before":     kernel.ToolBeforeIn{SessionID: "s"},
		"turn:end":        kernel.TurnEndIn{SessionID: "s"},
		"context:compact": kernel.CompactIn{SessionID: "s"},
	}
	for _, tt := range []struct {
		point        string
		native, json *proto.HandleResponse
		want         any
	}{
		{"session:start", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: "hi"}}, handledJSON(`"hi"`), "hi"},
		{"context:prepare", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: "hint"}}, handledJSON(`"hint"`), "hint"},
		{"tool:before", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Deny: true, Reason: "no", Args: []byte(`{"a":1}`)}}},
			handledJSON(`{"deny":true,"reason":"no","args":{"a":1}}`), kernel.ToolDecision{Deny: true, Reason: "no", Args: json.RawMessage(`{"a":1}`)}},
		{"turn:end", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{End: true}}}, handledJSON(`{"end":true}`), kernel.TurnDecision{End: true}},
		{"context:compact", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 2, To: 5, Summary: "sum"}}},
			handledJSON(`{"from":2,"to":5,"summary":"sum"}`), kernel.Compaction{From: 2, To: 5, Summary: "sum"}},
	} {
		t.Run(tt.point, func(t *testing.T) {
			for name, resp := range map[string]*proto.HandleResponse{"native": tt.native, "JSON": tt.json} {
				c, rec := memPlugin(t, &answering{resp: resp})
				res, err := mountOn(t, c, tt.point)(context.Background(), in[tt.point])
				require.NoError(t, err, name)
				_, isJSON := rec.last(t)
				assert.False(t, isJSON, "%s: the payload of a standard point went as JSON to a native plugin", name)
				assert.True(t, res.Handled, name)
				assert.Empty(t, cmp.Diff(tt.want, res.Value), "%s answer (-want +got)", name)
			}
		})
	}
}

// An answer the kernel cannot use is an error naming the plugin and the
// point: a dispatch logs it as the handler's failure and goes on with the
// builtin's result. Nothing panics.
func TestNativeInvalidAnswers(t *testing.T) {
	for _, tt := range []struct {
		name, point string
		resp        *proto.HandleResponse
		want        string
	}{
		{"another point's result", "context:prepare", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Deny: true}}}, "a native tool decision is not a result of this point"},
		{"text for a decision", "tool:before", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: "deny"}}, "a native text is not a result of this point"},
		{"a native result on a custom point", "custom:x", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: "x"}}, "a native text is not a result of this point"},
		{"replaced arguments not JSON", "tool:before", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Args: []byte(`{"a":`)}}}, "the replaced arguments are not JSON"},
		{"span from 0", "context:compact", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 0, To: 3}}}, "span [0, 3] is not a valid range of events"},
		{"span reversed", "context:compact", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 5, To: 3}}}, "span [5, 3] is not a valid range of events"},
		{"handled without a result", "turn:end", &proto.HandleResponse{Handled: true}, "the plugin handled the call but sent no result"},
		{"JSON of the wrong shape", "turn:end", handledJSON(`["end"]`), "decode turn:end result"},
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
			require.NoError(t, kernel.ContextPrepare.Mount(r, "builtin", hooks.Builtin, func(context.Context, kernel.PrepareIn) (string, bool, error) {
				return "builtin", true, nil
			}))
			m := c.Mounts()[1] // context:prepare
			require.Equal(t, tt.point, m.Point)
			m.Origin = hooks.Plugin
			require.NoError(t, r.Mount(m))
			out, err := kernel.ContextPrepare.Dispatch(context.Background(), r, kernel.PrepareIn{})
			require.NoError(t, err)
			assert.Equal(t, []string{"builtin"}, out)
			if assert.Len(t, warnings, 1) {
				assert.Contains(t, warnings[0].Message, tt.want)
			}
		})
	}
}

// The SDK's plugin refuses a payload of another point than the call's, with
// an error naming both; the host is not taken down by it.
func TestNativePayloadOfAnotherPoint(t *testing.T) {
	c, _ := memPlugin(t, sdkPlugin(t, echoes(map[string]any{}, map[string]any{"tool:before": sdk.ToolDecision{}})))
	hc := getCall("tool:before", "")
	defer hc.release()
	require.True(t, hc.setNative(kernel.PrepareIn{SessionID: "s"}))
	err := c.cur.rpc.HandleMessage(context.Background(), &hc.req, &hc.resp)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tool:before: decode payload: the kernel sent a context:prepare payload")
	assert.False(t, strings.Contains(err.Error(), "panicked"), "error %q", err)
}
