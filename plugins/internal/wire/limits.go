package wire

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	gproto "google.golang.org/protobuf/proto"

	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/internal/proto"
)

// checkSize refuses a payload over plugins.MaxPayload.
func checkSize(what string, n int) error {
	if n > plugins.MaxPayload {
		return fmt.Errorf("%w: %s of %d bytes exceeds the limit of %d MiB (plugins.MaxPayload)", plugins.ErrTooLarge, what, n, plugins.MaxPayload>>20)
	}
	return nil
}

// wireErr names the limit when gRPC refused a message over
// plugins.MaxMessageSize, on either side.
func wireErr(err error) error {
	if status.Code(err) == codes.ResourceExhausted && strings.Contains(status.Convert(err).Message(), "larger than max") {
		return fmt.Errorf("%w: a message exceeds the limit of %d MiB (plugins.MaxMessageSize): %w", plugins.ErrTooLarge, plugins.MaxMessageSize>>20, err)
	}
	return err
}

// tooLargeStatus is how the plugin's side reports an oversized answer: an
// error whose text names the limit, with a code the host does not take for
// a crash.
func tooLargeStatus(err error) error {
	return status.Error(codes.ResourceExhausted, err.Error())
}

// inputSize is the size of a hook call's payload: a custom point's JSON, or
// a standard point's encoded message.
func inputSize(r *proto.HandleRequest) int {
	if p, ok := r.GetInput().(*proto.HandleRequest_Payload); ok {
		return len(p.Payload)
	}
	return gproto.Size(r)
}

// outputSize is the size of a hook's answer: a custom point's JSON result,
// or a standard point's result's variable-length fields.
func outputSize(r *proto.HandleResponse) int {
	switch o := r.GetOutput().(type) {
	case *proto.HandleResponse_Result:
		return len(o.Result)
	case *proto.HandleResponse_Text:
		return len(o.Text)
	case *proto.HandleResponse_ToolDecision:
		return len(o.ToolDecision.GetReason()) + len(o.ToolDecision.GetArgs())
	case *proto.HandleResponse_Compaction:
		return len(o.Compaction.GetSummary())
	}
	return 0
}
