package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/plugins/internal/proto"
)

// pointTypes are the standard points with a zero payload and result of
// each: what the wire must carry.
var pointTypes = []struct {
	point   string
	in, out any
}{
	{hooks.SessionStart.Name, hookdata.SessionStartIn{}, ""},
	{hooks.ContextPrepare.Name, hookdata.PrepareIn{}, ""},
	{hooks.ContextCompact.Name, hookdata.CompactIn{}, hookdata.Compaction{}},
	{hooks.ToolBefore.Name, hookdata.ToolBeforeIn{}, hookdata.ToolDecision{}},
	{hooks.TurnEnd.Name, hookdata.TurnEndIn{}, hookdata.TurnDecision{}},
	{hooks.PromptSubmit.Name, hookdata.PromptSubmitIn{}, hookdata.PromptDecision{}},
	{hooks.ToolAfter.Name, hookdata.ToolAfterIn{}, hookdata.ToolFeedback{}},
	{hooks.CompactBefore.Name, hookdata.CompactBeforeIn{}, struct{}{}},
	{hooks.SessionEnd.Name, hookdata.SessionEndIn{}, struct{}{}},
}

// Every standard point has its conversions: no point of the registry is
// left out of the wire.
func TestEveryStandardPointHasItsTypes(t *testing.T) {
	var names []string
	for _, p := range hooks.StandardPoints() {
		names = append(names, p.Name)
	}
	var covered []string
	for _, pt := range pointTypes {
		covered = append(covered, pt.point)
	}
	assert.ElementsMatch(t, names, covered)
}

// fillGo returns a value of v's type with every field set to something
// other than its zero value (n tells calls apart): strings, numbers, bools,
// two elements of each list, JSON in each []byte, a value behind each
// pointer.
func fillGo(t reflect.Type, n int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d ünï", n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(fmt.Sprintf(`{"n":%d}`, n)))
			break
		}
		v.Set(reflect.Append(v, fillGo(t.Elem(), n+1), fillGo(t.Elem(), n+2)))
	case reflect.Struct:
		for i := range t.NumField() {
			v.Field(i).Set(fillGo(t.Field(i).Type, n+i+1))
		}
	case reflect.Pointer:
		v.Set(fillGo(t.Elem(), n).Addr())
	default:
		panic("fillGo: no value for " + t.String())
	}
	return v
}

// throughTheWire sends req as bytes, as gRPC does.
func throughTheWire[M gproto.Message](t *testing.T, m M, into M) M {
	t.Helper()
	data, err := gproto.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, gproto.Unmarshal(data, into))
	return into
}

// Every field of every payload and result crosses the wire and comes back
// as it was: each is filled, through reflection, with a value in every
// field, so a field added to a kernel/hookdata type and not to its
// conversions fails here.
func TestPayloadsAndResultsCrossEveryField(t *testing.T) {
	for _, pt := range pointTypes {
		in := fillGo(reflect.TypeOf(pt.in), 1).Interface()
		req := &proto.HandleRequest{Point: pt.point, Mount: "m"}
		require.NoError(t, setInput(req, in), pt.point)
		got, err := input(throughTheWire(t, req, &proto.HandleRequest{}))
		require.NoError(t, err, pt.point)
		assert.Empty(t, cmp.Diff(in, got), "%s payload (-sent +received)", pt.point)

		out := fillGo(reflect.TypeOf(pt.out), 1).Interface()
		resp, err := setOutput(pt.point, out)
		require.NoError(t, err, pt.point)
		back, err := output(pt.point, throughTheWire(t, resp, &proto.HandleResponse{}))
		require.NoError(t, err, pt.point)
		assert.Empty(t, cmp.Diff(out, back), "%s result (-sent +received)", pt.point)
	}
}

// fillProto sets every field of m, recursively, to a value that is not the
// zero value: two elements of each list, JSON in each bytes field, the same
// positive number in each integer (so a compaction's span is valid).
func fillProto(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil {
			continue // the caller picks the one
		}
		fillField(m, fd)
	}
}

func fillField(m protoreflect.Message, fd protoreflect.FieldDescriptor) {
	value := func() protoreflect.Value {
		switch fd.Kind() {
		case protoreflect.StringKind:
			return protoreflect.ValueOfString("text ünï " + string(fd.Name()))
		case protoreflect.BytesKind:
			return protoreflect.ValueOfBytes([]byte(`{"k":1}`))
		case protoreflect.Int64Kind:
			return protoreflect.ValueOfInt64(7)
		case protoreflect.BoolKind:
			return protoreflect.ValueOfBool(true)
		case protoreflect.MessageKind:
			var sub protoreflect.Message
			if fd.IsList() {
				sub = m.Mutable(fd).List().NewElement().Message()
			} else {
				sub = m.NewField(fd).Message()
			}
			fillProto(sub)
			return protoreflect.ValueOfMessage(sub)
		}
		panic("fillField: no value for " + fd.Kind().String())
	}
	if fd.IsList() {
		l := m.Mutable(fd).List()
		l.Append(value())
		l.Append(value())
		return
	}
	m.Set(fd, value())
}

// Every field of every standard point's message reaches the handler and
// comes back: each message is filled, through reflection, with a value in
// every field the proto file declares, so a field added there and not to
// the conversions fails here.
func TestMessagesCrossEveryField(t *testing.T) {
	inputs := (&proto.HandleRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("input").Fields()
	outputs := (&proto.HandleResponse{}).ProtoReflect().Descriptor().Oneofs().ByName("output").Fields()
	for _, pt := range pointTypes {
		req := &proto.HandleRequest{Point: pt.point}
		require.NoError(t, setInput(req, pt.in), pt.point)
		fd := inputs.ByName(req.ProtoReflect().WhichOneof(inputs.Get(0).ContainingOneof()).Name())
		msg := req.ProtoReflect().Mutable(fd).Message()
		fillProto(msg)
		in, err := input(req)
		require.NoError(t, err, pt.point)
		again := &proto.HandleRequest{Point: pt.point}
		require.NoError(t, setInput(again, in), pt.point)
		assert.Empty(t, cmp.Diff(req, again, protocmp.Transform()), "%s payload message (-filled +round trip)", pt.point)

		resp, err := setOutput(pt.point, pt.out)
		require.NoError(t, err, pt.point)
		switch which := resp.ProtoReflect().WhichOneof(outputs.Get(0).ContainingOneof()); {
		case which == nil:
			// A notification has no result to fill.
		case which.Kind() == protoreflect.MessageKind:
			fillProto(resp.ProtoReflect().Mutable(outputs.ByName(which.Name())).Message())
		default:
			resp.Output = &proto.HandleResponse_Text{Text: "text ünï"}
		}
		v, err := output(pt.point, resp)
		require.NoError(t, err, pt.point)
		back, err := setOutput(pt.point, v)
		require.NoError(t, err, pt.point)
		assert.Empty(t, cmp.Diff(resp, back, protocmp.Transform()), "%s result message (-filled +round trip)", pt.point)
	}
}

// Text crosses as valid UTF-8, each invalid byte one U+FFFD, as
// encoding/json would write it; protobuf would refuse it as it is.
func TestTextMadeValidUTF8(t *testing.T) {
	req := &proto.HandleRequest{Point: hooks.TurnEnd.Name}
	require.NoError(t, setInput(req, hookdata.TurnEndIn{SessionID: "s\xff", Text: "a\xffb", ToolCalls: []hookdata.ToolCall{{ID: "\xfe", Name: "Bash", Arguments: []byte("\xff not JSON")}}}))
	in, err := input(throughTheWire(t, req, &proto.HandleRequest{}))
	require.NoError(t, err)
	assert.Equal(t, hookdata.TurnEndIn{SessionID: "s\uFFFD", Text: "a\uFFFDb", ToolCalls: []hookdata.ToolCall{{ID: "\uFFFD", Name: "Bash", Arguments: []byte("\xff not JSON")}}}, in,
		"text made valid, arguments (bytes) as they are")

	resp, err := setOutput(hooks.ContextCompact.Name, hookdata.Compaction{From: 1, To: 2, Summary: "sum\xc3"})
	require.NoError(t, err)
	v, err := output(hooks.ContextCompact.Name, throughTheWire(t, resp, &proto.HandleResponse{}))
	require.NoError(t, err)
	assert.Equal(t, hookdata.Compaction{From: 1, To: 2, Summary: "sum\uFFFD"}, v)
}

// One encoding per point: a standard point's payload only in its message
// and its result only in its own, a custom point's only as JSON. Anything
// else is an error naming the point, on the side that meets it.
func TestOneEncodingPerPoint(t *testing.T) {
	for _, tt := range []struct {
		name, point string
		in          any
		want        string
	}{
		{"another point's payload", "tool:before", hookdata.PrepareIn{}, "encode tool:before payload: got the payload of context:prepare"},
		{"a foreign payload on a standard point", "turn:end", map[string]int{"step": 1}, "encode turn:end payload: got map[string]int, which is not the point's payload"},
		{"a standard payload on a custom point", "custom:x", hookdata.TurnEndIn{}, "encode custom:x payload: got the payload of turn:end"},
		{"JSON that cannot be", "custom:x", func() {}, "encode custom:x payload: json: unsupported type"},
	} {
		err := setInput(&proto.HandleRequest{Point: tt.point}, tt.in)
		assert.ErrorContains(t, err, tt.want, tt.name)
	}

	for _, tt := range []struct {
		name string
		req  *proto.HandleRequest
		want string
	}{
		{"JSON on a standard point", &proto.HandleRequest{Point: "tool:before", Input: &proto.HandleRequest_Payload{Payload: []byte(`{}`)}}, "decode tool:before payload: the kernel sent JSON, not the point's message"},
		{"another point's message", &proto.HandleRequest{Point: "tool:before", Input: &proto.HandleRequest_Prepare{Prepare: &proto.Prepare{}}}, "decode tool:before payload: the kernel sent a context:prepare payload"},
		{"a message on a custom point", &proto.HandleRequest{Point: "custom:x", Input: &proto.HandleRequest_TurnEnd{TurnEnd: &proto.TurnEnd{}}}, "decode custom:x payload: the kernel sent a turn:end payload"},
		{"no payload", &proto.HandleRequest{Point: "turn:end"}, "decode turn:end payload: the kernel sent no payload"},
	} {
		_, err := input(tt.req)
		assert.ErrorContains(t, err, tt.want, tt.name)
	}

	for _, tt := range []struct {
		name, point string
		v           any
		want        string
	}{
		{"text for a decision", "tool:before", "deny", "encode tool:before result: got string, want hookdata.ToolDecision"},
		{"a decision for text", "context:prepare", hookdata.ToolDecision{}, "encode context:prepare result: got hookdata.ToolDecision, want string"},
		{"JSON that cannot be", "custom:x", make(chan int), "encode custom:x result: json: unsupported type"},
	} {
		_, err := setOutput(tt.point, tt.v)
		assert.ErrorContains(t, err, tt.want, tt.name)
	}
	custom, err := setOutput("custom:x", map[string]int{"n": 1})
	require.NoError(t, err)
	assert.Equal(t, `{"n":1}`, string(custom.GetResult()))
	raw, err := input(&proto.HandleRequest{Point: "custom:x", Input: &proto.HandleRequest_Payload{Payload: []byte(`{"n":1}`)}})
	require.NoError(t, err)
	assert.Equal(t, json.RawMessage(`{"n":1}`), raw)
}

// An answer the kernel cannot use is an error naming the point and what is
// wrong with it.
func TestOutputRefusesWhatThePointCannotTake(t *testing.T) {
	for _, tt := range []struct {
		name, point string
		resp        *proto.HandleResponse
		want        string
	}{
		{"another point's result", "context:prepare", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Deny: true}}}, "a tool decision is not a result of this point"},
		{"text for a decision", "tool:before", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: "deny"}}, "a text is not a result of this point"},
		{"a typed result on a custom point", "custom:x", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Text{Text: "x"}}, "a text is not a result of this point"},
		{"JSON on a standard point", "turn:end", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Result{Result: []byte(`{"end":true}`)}}, "a JSON result is not a result of this point"},
		{"replaced arguments not JSON", "tool:before", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Args: []byte(`{"a":`)}}}, "the replaced arguments are not JSON"},
		{"span from 0", "context:compact", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 0, To: 3}}}, "span [0, 3] is not a valid range of events"},
		{"span reversed", "context:compact", &proto.HandleResponse{Handled: true, Output: &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: 5, To: 3}}}, "span [5, 3] is not a valid range of events"},
		{"handled without a result", "turn:end", &proto.HandleResponse{Handled: true}, "the plugin handled the call but sent no result"},
	} {
		_, err := output(tt.point, tt.resp)
		if assert.Error(t, err, tt.name) {
			assert.True(t, strings.HasPrefix(err.Error(), "decode "+tt.point+" result: "), "%s: %v", tt.name, err)
			assert.Contains(t, err.Error(), tt.want, tt.name)
		}
	}
}
