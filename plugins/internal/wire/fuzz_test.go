package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	gproto "google.golang.org/protobuf/proto"

	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/plugins/internal/proto"
)

// fuzzPoints are the standard points and a custom one.
var fuzzPoints = []string{"session:start", "context:prepare", "tool:before", "turn:end", "context:compact", "custom:point"}

// FuzzHookPayload feeds arbitrary requests to the plugin's decoder, as a
// kernel (or anything on the other end of the socket) could send them: the
// bytes as a protobuf HandleRequest, for each point. Decoding never panics,
// a failure names the point, a custom point's payload is the JSON as sent,
// and a standard point's has the point's type and crosses the wire again
// unchanged (text made valid UTF-8 once stays so).
func FuzzHookPayload(f *testing.F) {
	for i, req := range []*proto.HandleRequest{
		{Input: &proto.HandleRequest_SessionStart{SessionStart: &proto.SessionStart{SessionId: "s", WorkDir: "/home/me/proj"}}},
		{Input: &proto.HandleRequest_Prepare{Prepare: &proto.Prepare{SessionId: "s", Step: 3, Complete: true, Skills: []*proto.CatalogSkill{{Name: "changelog", Description: "Draft a changelog.", Source: "project"}}}}},
		{Input: &proto.HandleRequest_ToolBefore{ToolBefore: &proto.ToolBefore{SessionId: "s", Call: &proto.ToolCall{Id: "call_1", Name: "Bash", Arguments: []byte(`{"command":"git tag -d v1"}`)}}}},
		{Input: &proto.HandleRequest_TurnEnd{TurnEnd: &proto.TurnEnd{SessionId: "s", Step: 2, Text: "Done.", ToolCalls: []*proto.ToolCall{{Id: "c", Name: "Read"}}}}},
		{Input: &proto.HandleRequest_Compact{Compact: &proto.Compact{SessionId: "s", ViewBytes: 500000, Budget: 400000, Events: []*proto.Event{{Seq: 1, Type: "user", Text: "hi"}, {Seq: 9, Type: "compaction", Text: "earlier", From: 2, To: 8}}}}},
		{Input: &proto.HandleRequest_Payload{Payload: []byte(`{"any":["json",1,null]}`)}},
	} {
		data, err := gproto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		var req proto.HandleRequest
		if gproto.Unmarshal(data, &req) != nil {
			return
		}
		req.Point = fuzzPoints[int(which)%len(fuzzPoints)]
		in, err := input(&req)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "decode "+req.Point+" payload: ") {
				t.Fatalf("error %q does not name the point", err)
			}
			return
		}
		if raw, custom := in.(json.RawMessage); custom != !standard(req.Point) {
			t.Fatalf("%s payload decoded as %T", req.Point, in)
		} else if custom {
			if string(raw) != string(req.GetPayload()) {
				t.Fatalf("custom payload %q, want the bytes as sent", raw)
			}
			return // its JSON is the handler's to decode
		}
		again := &proto.HandleRequest{Point: req.Point}
		if err := setInput(again, in); err != nil {
			t.Fatalf("a decoded %s payload does not encode: %v", req.Point, err)
		}
		wire, err := gproto.Marshal(again)
		if err != nil {
			t.Fatalf("the re-encoded payload does not marshal: %v", err)
		}
		var back proto.HandleRequest
		if err := gproto.Unmarshal(wire, &back); err != nil {
			t.Fatal(err)
		}
		in2, err := input(&back)
		if err != nil {
			t.Fatalf("the re-encoded payload does not decode: %v", err)
		}
		if diff := cmp.Diff(validText(in), in2); diff != "" {
			t.Fatalf("a second crossing changed the payload (-first +second):\n%s", diff)
		}
	})
}

// validText is in as it reads once its text crossed the wire: each string
// valid UTF-8 (bytes, like tool arguments, stay as they are).
func validText(in any) any {
	switch v := in.(type) {
	case hookdata.SessionStartIn:
		v.SessionID, v.WorkDir = text(v.SessionID), text(v.WorkDir)
		return v
	case hookdata.PrepareIn:
		v.SessionID = text(v.SessionID)
		for i, s := range v.Skills {
			v.Skills[i] = hookdata.Skill{Name: text(s.Name), Description: text(s.Description), Source: text(s.Source)}
		}
		return v
	case hookdata.ToolBeforeIn:
		v.SessionID, v.Call = text(v.SessionID), validCall(v.Call)
		return v
	case hookdata.TurnEndIn:
		v.SessionID, v.Text = text(v.SessionID), text(v.Text)
		for i, c := range v.ToolCalls {
			v.ToolCalls[i] = validCall(c)
		}
		return v
	case hookdata.CompactIn:
		v.SessionID = text(v.SessionID)
		for i, e := range v.Events {
			e.Type, e.Text, e.ToolName, e.Input = text(e.Type), text(e.Text), text(e.ToolName), text(e.Input)
			v.Events[i] = e
		}
		return v
	}
	return in
}

func validCall(c hookdata.ToolCall) hookdata.ToolCall {
	c.ID, c.Name = text(c.ID), text(c.Name)
	return c
}

// FuzzDecodeHookOutput feeds arbitrary plugin answers to the host's decoder
// of every point: the bytes as a protobuf HandleResponse. Decoding never
// panics, an error names the point, and a value it returns is what the
// point expects and keeps its rules (a compaction span is a valid range,
// replaced tool arguments are JSON, text is UTF-8); a custom point's result
// is the JSON as sent.
func FuzzDecodeHookOutput(f *testing.F) {
	// Each seed is the answer of the point at its index in fuzzPoints; the
	// last ones are answers the host must refuse.
	for i, r := range []*proto.HandleResponse{
		{Handled: true, Output: &proto.HandleResponse_Text{Text: "Welcome back."}},
		{Handled: true, Output: &proto.HandleResponse_Text{Text: "Release notes: load the release-notes skill first."}},
		{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Deny: true, Reason: "no", Args: []byte(`{"command":"ls"}`)}}},
		{Handled: true, Output: &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{End: true}}},
		{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 2, To: 9, Summary: "s"}}},
		{Handled: true, Output: &proto.HandleResponse_Result{Result: []byte(`{"any":1}`)}},
	} {
		data, err := gproto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	for which, r := range map[uint8]*proto.HandleResponse{
		2: {Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Args: []byte(`{"command":`)}}},
		4: {Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 0, To: -1}}},
	} {
		data, err := gproto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(which, data)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		var r proto.HandleResponse
		if gproto.Unmarshal(data, &r) != nil {
			return
		}
		point := fuzzPoints[int(which)%len(fuzzPoints)]
		v, err := output(point, &r)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "decode "+point+" result: ") {
				t.Fatalf("error %q does not name the point", err)
			}
			return
		}
		checkResult(t, point, v, r.GetResult())
	})
}

// checkResult checks a decoded result of point: the point's type, keeping
// its rules.
func checkResult(t *testing.T, point string, v any, raw []byte) {
	t.Helper()
	switch point {
	case "session:start", "context:prepare":
		s, ok := v.(string)
		if !ok || !utf8.ValidString(s) {
			t.Fatalf("%s result %T %q", point, v, v)
		}
	case "tool:before":
		d, ok := v.(hookdata.ToolDecision)
		if !ok || (len(d.Args) > 0 && !json.Valid(d.Args)) {
			t.Fatalf("%s result %T %+v", point, v, v)
		}
	case "turn:end":
		if _, ok := v.(hookdata.TurnDecision); !ok {
			t.Fatalf("%s result is %T", point, v)
		}
	case "context:compact":
		c, ok := v.(hookdata.Compaction)
		if !ok || c.From < 1 || c.To < c.From {
			t.Fatalf("%s result %T %+v", point, v, v)
		}
	default:
		if got, ok := v.(json.RawMessage); !ok || string(got) != string(raw) {
			t.Fatalf("custom result %T %q, want the bytes as sent", v, v)
		}
	}
}
