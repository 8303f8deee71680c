package host

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	gproto "google.golang.org/protobuf/proto"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/plugins/proto"
)

// wirePoints are the points decodeHookOutput knows, and a custom one.
var wirePoints = []string{"session:start", "context:prepare", "tool:before", "turn:end", "context:compact", "custom:point"}

// FuzzDecodeHookOutput feeds arbitrary plugin answers to the decoders of
// every standard point, in both forms: the bytes as a JSON result, and the
// bytes as a protobuf HandleResponse (whose output may be native or JSON).
// Decoding never panics, an error names the point, and a value it returns
// is what the point expects and keeps its rules (a compaction span is a
// valid range, replaced tool arguments are JSON).
func FuzzDecodeHookOutput(f *testing.F) {
	for i, seed := range []string{
		`"Release notes: load the release-notes skill first."`,
		`"Release notes: load the release-notes skill first."`,
		`{"deny":true,"reason":"tags are published"}`,
		`{"end":true}`,
		`{"from":2,"to":9,"summary":"The user asked for a changelog; three commits were read."}`,
		`{"any":["json",1,null]}`,
	} {
		f.Add(uint8(i), []byte(seed))
	}
	f.Add(uint8(2), []byte(`{"args":{"command":"ls"}}`))
	f.Add(uint8(4), []byte(`{"from":0,"to":-1}`))
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
	reversed, err := gproto.Marshal(&proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 0, To: -1}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(4), reversed)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		point := wirePoints[int(which)%len(wirePoints)]
		v, err := decodeHookOutput(point, data)
		checkDecoded(t, point, v, err, data)

		var r proto.HandleResponse
		if gproto.Unmarshal(data, &r) != nil {
			return
		}
		v, err = decodeHookAnswer(point, &r)
		checkDecoded(t, point, v, err, r.GetResult())
	})
}

// checkDecoded checks what a decoder of point returned: an error naming the
// point, or a value of the point's type that keeps its rules; a custom
// point's result is raw, the bytes as sent.
func checkDecoded(t *testing.T, point string, v any, err error, raw []byte) {
	t.Helper()
	if err != nil {
		if !strings.HasPrefix(err.Error(), "decode "+point+" result: ") {
			t.Fatalf("error %q does not name the point", err)
		}
		return
	}
	switch point {
	case "session:start", "context:prepare":
		s, ok := v.(string)
		if !ok {
			t.Fatalf("%s result is %T", point, v)
		}
		if !utf8.ValidString(s) {
			t.Fatalf("%s result %q is not UTF-8", point, s)
		}
	case "tool:before":
		d, ok := v.(kernel.ToolDecision)
		if !ok {
			t.Fatalf("%s result is %T", point, v)
		}
		if len(d.Args) > 0 && !json.Valid(d.Args) {
			t.Fatalf("replaced arguments %q are not JSON", d.Args)
		}
	case "turn:end":
		if _, ok := v.(kernel.TurnDecision); !ok {
			t.Fatalf("%s result is %T", point, v)
		}
	case "context:compact":
		c, ok := v.(kernel.Compaction)
		if !ok {
			t.Fatalf("%s result is %T", point, v)
		}
		if c.From < 1 || c.To < c.From {
			t.Fatalf("compaction span [%d, %d] accepted", c.From, c.To)
		}
	default:
		got, ok := v.(json.RawMessage)
		if !ok || !bytes.Equal(got, raw) {
			t.Fatalf("custom result %T %q, want the bytes as sent", v, v)
		}
	}
}
