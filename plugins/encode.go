package plugins

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"

	"github.com/helios-agents/helios/plugins/proto"
)

// A hook call's request is encoded by hand, into a buffer reused from call
// to call, and handed to gRPC's protobuf codec already encoded. The
// reflection-driven encoder of package proto costs about 1µs for a
// context:prepare payload, and on a busy machine, with caches cold between
// calls, several times that: about 3% of a whole call on a local socket.
// The bytes are those proto.Marshal writes (fields in number order, zero
// values of proto3 scalars left out, strings checked for UTF-8), which a
// test compares field by field.

// encoded is a HandleRequest with its wire form: a proto.Message whose
// fast-path methods (protoiface.Methods) size and marshal by copying buf,
// and whose reflection is otherwise that of the request itself.
type encoded struct {
	buf     []byte
	refl    encodedReflect
	methods protoiface.Methods
}

// encodedReflect is the request's reflection with the fast-path methods.
type encodedReflect struct {
	protoreflect.Message
	methods *protoiface.Methods
}

func (r *encodedReflect) ProtoMethods() *protoiface.Methods { return r.methods }

var encoders = sync.Pool{New: func() any {
	e := &encoded{}
	e.methods = protoiface.Methods{
		Flags: protoiface.SupportMarshalDeterministic,
		Size: func(protoiface.SizeInput) protoiface.SizeOutput {
			return protoiface.SizeOutput{Size: len(e.buf)}
		},
		Marshal: func(in protoiface.MarshalInput) (protoiface.MarshalOutput, error) {
			return protoiface.MarshalOutput{Buf: append(in.Buf, e.buf...)}, nil
		},
		// Proto3 has no required fields: nothing to check.
		CheckInitialized: func(protoiface.CheckInitializedInput) (protoiface.CheckInitializedOutput, error) {
			return protoiface.CheckInitializedOutput{}, nil
		},
	}
	e.refl.methods = &e.methods
	return e
}}

// encode returns req encoded, or an error naming a string field that is
// not UTF-8 (as proto.Marshal would). Release it once gRPC is done.
func encode(req *proto.HandleRequest) (*encoded, error) {
	e := encoders.Get().(*encoded)
	w := writer{b: e.buf[:0]}
	w.request(req)
	e.buf, e.refl.Message = w.b, req.ProtoReflect()
	if w.err != nil {
		e.release()
		return nil, w.err
	}
	return e, nil
}

// release returns e to the pool; its buffer stays with it.
func (e *encoded) release() {
	e.refl.Message = nil
	encoders.Put(e)
}

// ProtoReflect is the request's reflection, with the fast-path methods.
func (e *encoded) ProtoReflect() protoreflect.Message { return &e.refl }

// writer appends messages in their wire form: fields in number order, a
// nested message after its size, which the size functions compute without
// writing.
type writer struct {
	b   []byte
	err error
}

// varint appends v, the one-byte case (every tag, most lengths) inline.
func varint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

// key appends the tag of field num: every field number is below 16, so a
// tag is one byte.
func key(b []byte, num protowire.Number, typ protowire.Type) []byte {
	return append(b, byte(num)<<3|byte(typ))
}

// str writes a string field; an empty one is left out, as in proto3.
func (w *writer) str(num protowire.Number, s string) {
	if s == "" {
		return
	}
	if !utf8.ValidString(s) && w.err == nil {
		w.err = fmt.Errorf("proto: string field %d contains invalid UTF-8", num)
	}
	w.b = append(varint(key(w.b, num, protowire.BytesType), uint64(len(s))), s...)
}

func (w *writer) bytes(num protowire.Number, v []byte) {
	if len(v) == 0 {
		return
	}
	w.b = append(varint(key(w.b, num, protowire.BytesType), uint64(len(v))), v...)
}

func (w *writer) int(num protowire.Number, v int64) {
	if v == 0 {
		return
	}
	w.b = varint(key(w.b, num, protowire.VarintType), uint64(v))
}

func (w *writer) bool(num protowire.Number, v bool) {
	if v {
		w.b = append(key(w.b, num, protowire.VarintType), 1)
	}
}

// msg starts a message field of n bytes.
func (w *writer) msg(num protowire.Number, n int) {
	w.b = varint(key(w.b, num, protowire.BytesType), uint64(n))
}

func (w *writer) request(r *proto.HandleRequest) {
	w.str(1, r.GetPoint())
	w.str(2, r.GetMount())
	switch in := r.GetInput().(type) {
	case *proto.HandleRequest_Payload:
		// A oneof field is written even when empty: it says which is set.
		w.b = append(varint(key(w.b, 3, protowire.BytesType), uint64(len(in.Payload))), in.Payload...)
	case *proto.HandleRequest_SessionStart:
		m := in.SessionStart
		w.msg(4, sizeSessionStart(m))
		w.str(1, m.GetSessionId())
		w.str(2, m.GetWorkDir())
	case *proto.HandleRequest_Prepare:
		m := in.Prepare
		w.msg(5, sizePrepare(m))
		w.str(1, m.GetSessionId())
		w.int(2, m.GetStep())
		for _, s := range m.GetSkills() {
			w.msg(3, sizeCatalogSkill(s))
			w.str(1, s.GetName())
			w.str(2, s.GetDescription())
			w.str(3, s.GetSource())
		}
		w.bool(4, m.GetComplete())
	case *proto.HandleRequest_ToolBefore:
		m := in.ToolBefore
		w.msg(6, sizeToolBefore(m))
		w.str(1, m.GetSessionId())
		if c := m.GetCall(); c != nil {
			w.toolCall(2, c)
		}
	case *proto.HandleRequest_TurnEnd:
		m := in.TurnEnd
		w.msg(7, sizeTurnEnd(m))
		w.str(1, m.GetSessionId())
		w.int(2, m.GetStep())
		w.str(3, m.GetText())
		for _, c := range m.GetToolCalls() {
			w.toolCall(4, c)
		}
	case *proto.HandleRequest_Compact:
		m := in.Compact
		w.msg(8, sizeCompact(m))
		w.str(1, m.GetSessionId())
		w.int(2, m.GetViewBytes())
		w.int(3, m.GetBudget())
		for _, e := range m.GetEvents() {
			w.msg(4, sizeEvent(e))
			w.int(1, e.GetSeq())
			w.str(2, e.GetType())
			w.str(3, e.GetText())
			w.str(4, e.GetToolName())
			w.str(5, e.GetInput())
			w.bool(6, e.GetIsError())
		}
	}
}

// response writes a hook call's answer.
func (w *writer) response(r *proto.HandleResponse) {
	w.bool(1, r.GetHandled())
	// A oneof field is written even when empty: it says which is set.
	switch o := r.GetOutput().(type) {
	case *proto.HandleResponse_Result:
		w.b = append(varint(key(w.b, 2, protowire.BytesType), uint64(len(o.Result))), o.Result...)
	case *proto.HandleResponse_Text:
		if !utf8.ValidString(o.Text) && w.err == nil {
			w.err = fmt.Errorf("proto: string field 3 contains invalid UTF-8")
		}
		w.b = append(varint(key(w.b, 3, protowire.BytesType), uint64(len(o.Text))), o.Text...)
	case *proto.HandleResponse_ToolDecision:
		d := o.ToolDecision
		w.msg(4, sizeBool(d.GetDeny())+sizeStr(d.GetReason())+sizeBytes(d.GetArgs()))
		w.bool(1, d.GetDeny())
		w.str(2, d.GetReason())
		w.bytes(3, d.GetArgs())
	case *proto.HandleResponse_TurnDecision:
		w.msg(5, sizeBool(o.TurnDecision.GetEnd()))
		w.bool(1, o.TurnDecision.GetEnd())
	case *proto.HandleResponse_Compaction:
		c := o.Compaction
		w.msg(6, sizeInt(c.GetFrom())+sizeInt(c.GetTo())+sizeStr(c.GetSummary()))
		w.int(1, c.GetFrom())
		w.int(2, c.GetTo())
		w.str(3, c.GetSummary())
	}
}

func (w *writer) toolCall(num protowire.Number, c *proto.ToolCall) {
	w.msg(num, sizeToolCall(c))
	w.str(1, c.GetId())
	w.str(2, c.GetName())
	w.bytes(3, c.GetArguments())
}

// The sizes of the messages' wire forms. Every field number is below 16,
// so every tag is one byte.

func sizeStr(s string) int {
	if s == "" {
		return 0
	}
	return 1 + protowire.SizeBytes(len(s))
}

func sizeBytes(v []byte) int {
	if len(v) == 0 {
		return 0
	}
	return 1 + protowire.SizeBytes(len(v))
}

func sizeInt(v int64) int {
	if v == 0 {
		return 0
	}
	return 1 + protowire.SizeVarint(uint64(v))
}

func sizeBool(v bool) int {
	if !v {
		return 0
	}
	return 2
}

func sizeMsg(n int) int { return 1 + protowire.SizeBytes(n) }

func sizeSessionStart(m *proto.SessionStart) int {
	return sizeStr(m.GetSessionId()) + sizeStr(m.GetWorkDir())
}

func sizeCatalogSkill(s *proto.CatalogSkill) int {
	return sizeStr(s.GetName()) + sizeStr(s.GetDescription()) + sizeStr(s.GetSource())
}

func sizePrepare(m *proto.Prepare) int {
	n := sizeStr(m.GetSessionId()) + sizeInt(m.GetStep()) + sizeBool(m.GetComplete())
	for _, s := range m.GetSkills() {
		n += sizeMsg(sizeCatalogSkill(s))
	}
	return n
}

func sizeToolCall(c *proto.ToolCall) int {
	return sizeStr(c.GetId()) + sizeStr(c.GetName()) + sizeBytes(c.GetArguments())
}

func sizeToolBefore(m *proto.ToolBefore) int {
	n := sizeStr(m.GetSessionId())
	if c := m.GetCall(); c != nil {
		n += sizeMsg(sizeToolCall(c))
	}
	return n
}

func sizeTurnEnd(m *proto.TurnEnd) int {
	n := sizeStr(m.GetSessionId()) + sizeInt(m.GetStep()) + sizeStr(m.GetText())
	for _, c := range m.GetToolCalls() {
		n += sizeMsg(sizeToolCall(c))
	}
	return n
}

func sizeEvent(e *proto.Event) int {
	return sizeInt(e.GetSeq()) + sizeStr(e.GetType()) + sizeStr(e.GetText()) + sizeStr(e.GetToolName()) + sizeStr(e.GetInput()) + sizeBool(e.GetIsError())
}

func sizeCompact(m *proto.Compact) int {
	n := sizeStr(m.GetSessionId()) + sizeInt(m.GetViewBytes()) + sizeInt(m.GetBudget())
	for _, e := range m.GetEvents() {
		n += sizeMsg(sizeEvent(e))
	}
	return n
}
