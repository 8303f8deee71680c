package plugins

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/helios-agents/helios/plugins/proto"
)

// marshal is the reference: what package proto writes.
func marshal(t testing.TB, req *proto.HandleRequest) []byte {
	data, err := gproto.MarshalOptions{Deterministic: true}.Marshal(req)
	require.NoError(t, err)
	return data
}

// encodeCases are requests of every input, with the edges of the wire
// format: empty and zero values, negative and large numbers, lengths of
// more than one byte, an empty oneof payload, nil messages.
func encodeCases() map[string]*proto.HandleRequest {
	long := strings.Repeat("ü", 200)
	return map[string]*proto.HandleRequest{
		"empty":            {},
		"no input":         {Point: "custom:x", Mount: "m"},
		"JSON":             {Point: "custom:x", Input: &proto.HandleRequest_Payload{Payload: []byte(`{"n":1}`)}},
		"empty JSON":       {Point: "custom:x", Input: &proto.HandleRequest_Payload{}},
		"session:start":    {Point: "session:start", Input: &proto.HandleRequest_SessionStart{SessionStart: &proto.SessionStart{SessionId: "s", WorkDir: long}}},
		"empty start":      {Input: &proto.HandleRequest_SessionStart{SessionStart: &proto.SessionStart{}}},
		"context:prepare":  {Point: "context:prepare", Input: &proto.HandleRequest_Prepare{Prepare: &proto.Prepare{SessionId: "s", Step: 300, Complete: true, Skills: []*proto.CatalogSkill{{Name: "a", Description: long, Source: "project"}, {}, {Name: "技能"}}}}},
		"negative step":    {Input: &proto.HandleRequest_Prepare{Prepare: &proto.Prepare{Step: -1}}},
		"tool:before":      {Point: "tool:before", Mount: "guard", Input: &proto.HandleRequest_ToolBefore{ToolBefore: &proto.ToolBefore{SessionId: "s", Call: &proto.ToolCall{Id: "c", Name: "Bash", Arguments: []byte(`{"command":"` + long + `"}`)}}}},
		"no call":          {Input: &proto.HandleRequest_ToolBefore{ToolBefore: &proto.ToolBefore{SessionId: "s"}}},
		"empty call":       {Input: &proto.HandleRequest_ToolBefore{ToolBefore: &proto.ToolBefore{Call: &proto.ToolCall{}}}},
		"turn:end":         {Point: "turn:end", Input: &proto.HandleRequest_TurnEnd{TurnEnd: &proto.TurnEnd{SessionId: "s", Step: 2, Text: "Done.", ToolCalls: []*proto.ToolCall{{Id: "1", Arguments: []byte("not json")}, {}}}}},
		"context:compact":  {Point: "context:compact", Input: &proto.HandleRequest_Compact{Compact: &proto.Compact{SessionId: "s", ViewBytes: 1 << 40, Budget: 400000, Events: []*proto.Event{{Seq: 1, Type: "user", Text: long}, {Seq: 2, Type: "tool_use", ToolName: "Bash", Input: "{}", IsError: true}, {}}}}},
		"max int":          {Input: &proto.HandleRequest_Compact{Compact: &proto.Compact{ViewBytes: 1<<63 - 1, Budget: -1 << 63}}},
		"nil native input": {Input: &proto.HandleRequest_Prepare{}},
	}
}

// The hand-written encoder writes the bytes package proto writes.
func TestEncodeMatchesProto(t *testing.T) {
	for name, req := range encodeCases() {
		e, err := encode(req)
		require.NoError(t, err, name)
		assert.Equal(t, string(marshal(t, req)), string(e.buf), name)
		e.release()
	}
}

// Every field of every message of the request is encoded: each input is
// filled, through reflection, with a value in every field the proto file
// declares, so a field added there and not to the encoder fails here.
func TestEncodeCoversEveryField(t *testing.T) {
	inputs := (&proto.HandleRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("input").Fields()
	require.Equal(t, 6, inputs.Len(), "the inputs of HandleRequest")
	for i := range inputs.Len() {
		req := &proto.HandleRequest{}
		m := req.ProtoReflect()
		fill(m, m.Descriptor().Fields().ByName("point"))
		fill(m, m.Descriptor().Fields().ByName("mount"))
		fill(m, inputs.Get(i))
		e, err := encode(req)
		require.NoError(t, err, inputs.Get(i).Name())
		assert.Equal(t, string(marshal(t, req)), string(e.buf), "input %s", inputs.Get(i).Name())
		e.release()
	}
}

// fill sets field fd of m to a value that is not the zero value: every
// field of a message, two elements of a list.
func fill(m protoreflect.Message, fd protoreflect.FieldDescriptor) {
	value := func(n int) protoreflect.Value {
		switch fd.Kind() {
		case protoreflect.StringKind:
			return protoreflect.ValueOfString(string(fd.Name()) + strings.Repeat("x", n))
		case protoreflect.BytesKind:
			return protoreflect.ValueOfBytes([]byte(`{"` + string(fd.Name()) + `":1}`))
		case protoreflect.Int64Kind:
			return protoreflect.ValueOfInt64(int64(1000*n + int(fd.Number())))
		case protoreflect.BoolKind:
			return protoreflect.ValueOfBool(true)
		case protoreflect.MessageKind:
			var sub protoreflect.Message
			if fd.IsList() {
				sub = m.Mutable(fd).List().NewElement().Message()
			} else {
				sub = m.Mutable(fd).Message()
			}
			for j := range sub.Descriptor().Fields().Len() {
				fill(sub, sub.Descriptor().Fields().Get(j))
			}
			return protoreflect.ValueOfMessage(sub)
		}
		panic("fill: no value for a field of kind " + fd.Kind().String())
	}
	if fd.IsList() {
		l := m.Mutable(fd).List()
		l.Append(value(1))
		l.Append(value(200))
		return
	}
	m.Set(fd, value(1))
}

// A string that is not UTF-8 is refused, as package proto refuses it.
func TestEncodeRefusesInvalidUTF8(t *testing.T) {
	for _, req := range []*proto.HandleRequest{
		{Point: "bad\xff"},
		{Input: &proto.HandleRequest_Prepare{Prepare: &proto.Prepare{Skills: []*proto.CatalogSkill{{Description: "\xc3"}}}}},
	} {
		_, err := encode(req)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "invalid UTF-8")
		_, err = gproto.Marshal(req)
		require.Error(t, err, "package proto")
	}
}

// FuzzEncode decodes arbitrary bytes as a HandleRequest and as a
// HandleResponse, as package proto reads them, and encodes each by hand:
// the bytes are those package proto writes, and a string it refuses is
// refused.
func FuzzEncode(f *testing.F) {
	for _, req := range encodeCases() {
		f.Add(marshal(f, req))
	}
	for _, r := range responseCases() {
		data, err := gproto.Marshal(r)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req proto.HandleRequest
		if gproto.Unmarshal(data, &req) == nil {
			dropUnknown(req.ProtoReflect()) // not fields: nothing the host sends has any
			want, werr := gproto.MarshalOptions{Deterministic: true}.Marshal(&req)
			e, err := encode(&req)
			if (err != nil) != (werr != nil) {
				t.Fatalf("request: encode error %v, package proto's %v", err, werr)
			}
			if err == nil {
				if !bytes.Equal(e.buf, want) {
					t.Fatalf("request encoded\n%x\nwant\n%x", e.buf, want)
				}
				e.release()
			}
		}
		var resp proto.HandleResponse
		if gproto.Unmarshal(data, &resp) == nil {
			dropUnknown(resp.ProtoReflect())
			want, werr := gproto.MarshalOptions{Deterministic: true}.Marshal(&resp)
			w := writer{}
			w.response(&resp)
			if (w.err != nil) != (werr != nil) {
				t.Fatalf("response: encode error %v, package proto's %v", w.err, werr)
			}
			if w.err == nil && !bytes.Equal(w.b, want) {
				t.Fatalf("response encoded\n%x\nwant\n%x", w.b, want)
			}
		}
	})
}

// responseCases are answers of every output, with the edges of the wire
// format.
func responseCases() map[string]*proto.HandleResponse {
	long := strings.Repeat("ü", 200)
	return map[string]*proto.HandleResponse{
		"pass":            {},
		"handled, no out": {Handled: true},
		"JSON":            {Handled: true, Output: &proto.HandleResponse_Result{Result: []byte(`"hi"`)}},
		"empty JSON":      {Output: &proto.HandleResponse_Result{}},
		"text":            {Handled: true, Output: &proto.HandleResponse_Text{Text: long}},
		"empty text":      {Handled: true, Output: &proto.HandleResponse_Text{}},
		"decision":        {Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Deny: true, Reason: long, Args: []byte(`{"a":1}`)}}},
		"empty decision":  {Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{}}},
		"turn":            {Handled: true, Output: &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{End: true}}},
		"empty turn":      {Handled: true, Output: &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{}}},
		"compaction":      {Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 1, To: 1 << 40, Summary: long}}},
		"negative span":   {Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: -5, To: -1}}},
		"nil output msg":  {Handled: true, Output: &proto.HandleResponse_Compaction{}},
	}
}

// The plugin's codec writes the bytes package proto writes for every
// answer, every field filled in turn, and refuses text that is not UTF-8.
func TestEncodeResponse(t *testing.T) {
	c := newServerCodec()
	check := func(name string, r *proto.HandleResponse) {
		t.Helper()
		want, err := gproto.MarshalOptions{Deterministic: true}.Marshal(r)
		require.NoError(t, err, name)
		got, err := c.Marshal(r)
		require.NoError(t, err, name)
		assert.Equal(t, string(want), string(got.Materialize()), name)
	}
	for name, r := range responseCases() {
		check(name, r)
	}
	outputs := (&proto.HandleResponse{}).ProtoReflect().Descriptor().Oneofs().ByName("output").Fields()
	require.Equal(t, 5, outputs.Len(), "the outputs of HandleResponse")
	for i := range outputs.Len() {
		r := &proto.HandleResponse{}
		m := r.ProtoReflect()
		fill(m, m.Descriptor().Fields().ByName("handled"))
		fill(m, outputs.Get(i))
		check(string(outputs.Get(i).Name()), r)
	}
	_, err := c.Marshal(&proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: "\xff"}})
	assert.ErrorContains(t, err, "invalid UTF-8")

	// Any other message is package proto's business.
	d := &proto.DescribeResponse{Name: "n", NativeHooks: true, Mounts: []*proto.Mount{{Point: "p"}}}
	data, err := c.Marshal(d)
	require.NoError(t, err)
	var back proto.DescribeResponse
	require.NoError(t, c.Unmarshal(data, &back))
	assert.True(t, gproto.Equal(d, &back))
}

// dropUnknown clears the unknown fields of m and of the messages in it.
func dropUnknown(m protoreflect.Message) {
	m.SetUnknown(nil)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind:
		case fd.IsList():
			for i := range v.List().Len() {
				dropUnknown(v.List().Get(i).Message())
			}
		default:
			dropUnknown(v.Message())
		}
		return true
	})
}
