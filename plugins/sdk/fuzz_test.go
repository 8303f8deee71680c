package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gproto "google.golang.org/protobuf/proto"

	"github.com/helios-agents/helios/kernel/hookwire"
	"github.com/helios-agents/helios/plugins/proto"
	"github.com/helios-agents/helios/plugins/sdk"
)

// echo returns a handler that hands its decoded payload back as the result.
func echo[In any](seen *any) func(context.Context, In) (In, bool, error) {
	return func(_ context.Context, in In) (In, bool, error) {
		*seen = in
		return in, true, nil
	}
}

// fuzzHooks are typed hooks on every standard point that record what they
// got in *seen.
func fuzzHooks(seen *any) []sdk.Hook {
	return []sdk.Hook{
		sdk.SessionStart("", func(ctx context.Context, in hookwire.SessionStart) (string, bool, error) {
			*seen = in
			return in.WorkDir, true, nil
		}),
		sdk.On("context:prepare", "", echo[hookwire.Prepare](seen)),
		sdk.On("tool:before", "", echo[hookwire.ToolBefore](seen)),
		sdk.On("turn:end", "", echo[hookwire.TurnEnd](seen)),
		sdk.On("context:compact", "", echo[hookwire.Compact](seen)),
	}
}

type fuzzPlugin []sdk.Hook

func (p fuzzPlugin) Hooks() []sdk.Hook { return p }

// FuzzHookPayload feeds arbitrary payloads to the SDK's typed hooks, as a
// kernel (or anything on the other end of the socket) could send them, in
// both forms: the bytes as a JSON payload, and the bytes as a protobuf
// HandleRequest carrying a native payload. Decoding never panics, a failure
// names the point, a payload that decodes reaches the handler and survives
// a JSON round trip unchanged, and a native payload reaches the handler as
// the same value its JSON would.
func FuzzHookPayload(f *testing.F) {
	for i, seed := range []string{
		`{"sessionId":"20261201-100000-ab12","workDir":"/home/me/proj"}`,
		`{"sessionId":"s","step":3,"skills":[{"name":"changelog","description":"Draft a changelog.","source":"project"}],"complete":true}`,
		`{"sessionId":"s","call":{"id":"call_1","name":"Bash","arguments":{"command":"git tag -d v1"}}}`,
		`{"sessionId":"s","step":2,"text":"Done.","toolCalls":[]}`,
		`{"sessionId":"s","viewBytes":500000,"budget":400000,"events":[{"seq":1,"type":"user","text":"hi"},{"seq":2,"type":"tool_use","toolName":"Bash","input":"{\"command\":\"ls\"}"}]}`,
	} {
		f.Add(uint8(i), []byte(seed))
	}
	for i, req := range nativeSeeds() {
		data, err := gproto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	var seen any
	s, err := sdk.New(fuzzPlugin(fuzzHooks(&seen)), sdk.Config{Dir: f.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, which uint8, payload []byte) {
		seen = nil
		hooks := fuzzHooks(&seen)
		h := hooks[int(which)%len(hooks)]
		out, handled, err := h.Handle(context.Background(), payload)
		if err != nil {
			if !strings.HasPrefix(err.Error(), h.Point+": decode payload: ") || handled || seen != nil {
				t.Fatalf("error %q (handled %v, handler called %v)", err, handled, seen != nil)
			}
		} else {
			if !handled || seen == nil {
				t.Fatal("a payload that decodes did not reach the handler")
			}
			b, err := json.Marshal(out)
			if err != nil {
				t.Fatalf("the decoded payload does not encode: %v", err)
			}
			again := reflect.New(reflect.TypeOf(out))
			if err := json.Unmarshal(b, again.Interface()); err != nil {
				t.Fatalf("the re-encoded payload does not decode: %v\n%s", err, b)
			}
			b2, _ := json.Marshal(again.Elem().Interface())
			if string(b) != string(b2) {
				t.Fatalf("round trip changed the payload:\n%s\n%s", b, b2)
			}
		}

		var req proto.HandleRequest
		if gproto.Unmarshal(payload, &req) != nil {
			return
		}
		req.Point, req.Mount = h.Point, ""
		_, isJSON := req.GetInput().(*proto.HandleRequest_Payload)
		seen = nil
		resp, err := s.HandleMessage(context.Background(), &req)
		switch {
		case err != nil && strings.Contains(err.Error(), "panicked"):
			t.Fatalf("a native payload made the handler panic: %v", err)
		case isJSON || req.GetInput() == nil:
			return // the JSON form, fuzzed above
		case err != nil && seen != nil && strings.HasPrefix(err.Error(), h.Point+": encode result: "):
			return // the echo of tool arguments that are not JSON cannot be JSON
		case err != nil:
			if !strings.HasPrefix(err.Error(), h.Point+": decode payload: the kernel sent a ") || seen != nil {
				t.Fatalf("error %q (handler called %v)", err, seen != nil)
			}
			return
		case !resp.GetHandled() || seen == nil:
			t.Fatal("a native payload of the point did not reach the handler")
		}
		// The same payload as JSON reaches the handler as the same value.
		native := seen
		data, err := json.Marshal(native)
		if err != nil {
			return // arguments that are not JSON cannot travel as JSON at all
		}
		seen = nil
		if _, _, err := h.Handle(context.Background(), data); err != nil {
			t.Fatalf("the JSON of a native payload does not decode: %v\n%s", err, data)
		}
		if diff := cmp.Diff(nullArgs(native), nullArgs(seen)); diff != "" {
			t.Fatalf("native and JSON payloads differ (-native +JSON):\n%s", diff)
		}
	})
}

// nullArgs makes tool arguments comparable across the two forms: absent
// ones are what JSON writes for them (null), and JSON ones compare as JSON
// values, since encoding/json compacts them and escapes <, > and &.
func nullArgs(v any) any {
	fix := func(c *hookwire.ToolCall) {
		var x any
		switch {
		case len(c.Arguments) == 0 || bytes.Equal(c.Arguments, []byte("null")):
			c.Arguments = nil
		case json.Unmarshal(c.Arguments, &x) == nil:
			c.Arguments, _ = json.Marshal(x)
		}
	}
	switch p := v.(type) {
	case hookwire.ToolBefore:
		fix(&p.Call)
		return p
	case hookwire.TurnEnd:
		calls := append([]hookwire.ToolCall(nil), p.ToolCalls...)
		for i := range calls {
			fix(&calls[i])
		}
		if calls == nil {
			calls = []hookwire.ToolCall{}
		}
		p.ToolCalls = calls
		return p
	}
	return v
}

// nativeSeeds are a native request of each standard point, in the order of
// fuzzHooks.
func nativeSeeds() []*proto.HandleRequest {
	return []*proto.HandleRequest{
		{Input: &proto.HandleRequest_SessionStart{SessionStart: &proto.SessionStart{SessionId: "s", WorkDir: "/home/me/proj"}}},
		{Input: &proto.HandleRequest_Prepare{Prepare: &proto.Prepare{SessionId: "s", Step: 3, Complete: true, Skills: []*proto.CatalogSkill{{Name: "changelog", Description: "Draft a changelog.", Source: "project"}}}}},
		{Input: &proto.HandleRequest_ToolBefore{ToolBefore: &proto.ToolBefore{SessionId: "s", Call: &proto.ToolCall{Id: "call_1", Name: "Bash", Arguments: []byte(`{"command":"git tag -d v1"}`)}}}},
		{Input: &proto.HandleRequest_TurnEnd{TurnEnd: &proto.TurnEnd{SessionId: "s", Step: 2, Text: "Done.", ToolCalls: []*proto.ToolCall{{Id: "c", Name: "Read"}}}}},
		{Input: &proto.HandleRequest_Compact{Compact: &proto.Compact{SessionId: "s", ViewBytes: 500000, Budget: 400000, Events: []*proto.Event{{Seq: 1, Type: "user", Text: "hi"}, {Seq: 2, Type: "tool_use", ToolName: "Bash", Input: `{"command":"ls"}`, IsError: true}}}}},
	}
}
