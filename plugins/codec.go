package plugins

import (
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"

	"github.com/helios-agents/helios/plugins/proto"
)

// serverCodec is a plugin's gRPC codec: package proto's, but for the answer
// to a hook call, which it encodes by hand (writer.response) as it does a
// hook call's request on the host's side: the answer is on the path of
// every hook call, and the reflection-driven encoder the slower part of it.
type serverCodec struct{ encoding.CodecV2 }

func newServerCodec() serverCodec { return serverCodec{encoding.GetCodecV2(grpcproto.Name)} }

// Marshal encodes v.
func (c serverCodec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(*proto.HandleResponse)
	if !ok {
		return c.CodecV2.Marshal(v)
	}
	w := writer{b: make([]byte, 0, outputSize(r)+32)} // 32: tags, lengths, small fields
	w.response(r)
	if w.err != nil {
		return nil, w.err
	}
	return mem.BufferSlice{mem.SliceBuffer(w.b)}, nil
}
