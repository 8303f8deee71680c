package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/plugins/proto"
)

// GRPCPlugin is the go-plugin plugin type of a Helios capability. It speaks
// gRPC only: the net/rpc half of go-plugin's Plugin interface is refused.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl serves the calls (plugin side); nil on the host side.
	Impl Capability
}

var _ plugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer registers Impl on the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("plugins: GRPCPlugin served without an Impl")
	}
	proto.RegisterCapabilityServer(s, &GRPCServer{Impl: p.Impl})
	return nil
}

// GRPCClient returns the host's Capability over conn.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &GRPCClient{client: proto.NewCapabilityClient(c), conn: c}, nil
}

// MaxPayload bounds each payload that crosses the wire: a hook payload or
// result, a tool's arguments or result, a skill body. It is half of
// MaxMessageSize, so the rest of a message always fits. The sender checks
// it (so an oversized payload fails with an error naming it, before any
// copy), and the receiver checks it again.
const MaxPayload = 32 << 20

// ErrTooLarge is wrapped by the error of a payload over MaxPayload or a
// message over MaxMessageSize; the message names the limit.
var ErrTooLarge = errors.New("plugin payload exceeds a limit")

// checkSize refuses a payload over MaxPayload.
func checkSize(what string, n int) error {
	if n > MaxPayload {
		return fmt.Errorf("%w: %s of %d bytes exceeds the limit of %d MiB (plugins.MaxPayload)", ErrTooLarge, what, n, MaxPayload>>20)
	}
	return nil
}

// wireErr names the limit when gRPC refused a message over
// MaxMessageSize, on either side.
func wireErr(err error) error {
	if status.Code(err) == codes.ResourceExhausted && strings.Contains(status.Convert(err).Message(), "larger than max") {
		return fmt.Errorf("%w: a message exceeds the limit of %d MiB (plugins.MaxMessageSize): %w", ErrTooLarge, MaxMessageSize>>20, err)
	}
	return err
}

// tooLargeStatus is how the plugin's side reports an oversized answer: an
// error whose text names the limit, with a code the host does not take for
// a crash.
func tooLargeStatus(err error) error {
	return status.Error(codes.ResourceExhausted, err.Error())
}

// GRPCClient is the host's side of the wire: a Capability whose calls are
// gRPC calls to the plugin.
type GRPCClient struct {
	client proto.CapabilityClient
	conn   grpc.ClientConnInterface // for HandleMessage, which reuses its reply
}

var _ Capability = (*GRPCClient)(nil)

// Describe asks the plugin to describe itself.
func (c *GRPCClient) Describe(ctx context.Context) (Description, error) {
	r, err := c.client.Describe(ctx, &proto.DescribeRequest{})
	if err != nil {
		return Description{}, wireErr(err)
	}
	d := Description{Name: r.GetName(), Description: r.GetDescription(), SkillsIncomplete: r.GetSkillsIncomplete(), NativeHooks: r.GetNativeHooks()}
	for _, m := range r.GetMounts() {
		d.Mounts = append(d.Mounts, Mount{Point: m.GetPoint(), Name: m.GetName()})
	}
	for _, t := range r.GetTools() {
		d.Tools = append(d.Tools, Tool{Name: t.GetName(), Description: t.GetDescription(), Schema: t.GetSchema()})
	}
	for _, s := range r.GetSkills() {
		d.Skills = append(d.Skills, Skill{
			Name:                   s.GetName(),
			Description:            s.GetDescription(),
			BaseDir:                s.GetBaseDir(),
			File:                   s.GetFile(),
			DisableModelInvocation: s.GetDisableModelInvocation(),
		})
	}
	for _, w := range r.GetWarnings() {
		d.Warnings = append(d.Warnings, contract.Warning{Path: w.GetPath(), Message: w.GetMessage()})
	}
	return d, nil
}

// LoadSkill asks the plugin for a skill's current body.
func (c *GRPCClient) LoadSkill(ctx context.Context, name string) (SkillContent, error) {
	r, err := c.client.LoadSkill(ctx, &proto.LoadSkillRequest{Name: name})
	if err != nil {
		return SkillContent{}, wireErr(err)
	}
	if err := checkSize("skill body", len(r.GetBody())); err != nil {
		return SkillContent{}, err
	}
	return SkillContent{Name: r.GetName(), Body: r.GetBody()}, nil
}

// CallTool runs one of the plugin's tools.
func (c *GRPCClient) CallTool(ctx context.Context, name string, args json.RawMessage) (contract.ToolResult, error) {
	if err := checkSize("tool arguments", len(args)); err != nil {
		return contract.ToolResult{}, err
	}
	r, err := c.client.CallTool(ctx, &proto.CallToolRequest{Name: name, Arguments: args})
	if err != nil {
		return contract.ToolResult{}, wireErr(err)
	}
	if err := checkSize("tool result", len(r.GetContent())); err != nil {
		return contract.ToolResult{}, err
	}
	return contract.ToolResult{Content: r.GetContent(), IsError: r.GetIsError()}, nil
}

// Handle runs one of the plugin's hook handlers on a JSON payload.
func (c *GRPCClient) Handle(ctx context.Context, point, mount string, payload json.RawMessage) (HookResult, error) {
	if err := checkSize("hook payload", len(payload)); err != nil {
		return HookResult{}, err
	}
	r, err := c.client.Handle(ctx, &proto.HandleRequest{Point: point, Mount: mount, Input: &proto.HandleRequest_Payload{Payload: payload}})
	if err != nil {
		return HookResult{}, wireErr(err)
	}
	if err := checkSize("hook result", len(r.GetResult())); err != nil {
		return HookResult{}, err
	}
	return HookResult{Handled: r.GetHandled(), Result: r.GetResult()}, nil
}

// staticMethod is the call option of every HandleMessage, allocated once.
var staticMethod = []grpc.CallOption{grpc.StaticMethod()}

// HandleMessage sends req and reads the plugin's answer into resp: the
// host's way to send a standard point's payload in its native field to a
// plugin that said NativeHooks (JSON payloads go too). The caller may reuse
// req and resp for its next call once this one returned. Sizes are checked
// as Handle checks them: a native payload by its encoded size, a native
// answer by its variable-length fields. The answer is not interpreted: that
// is the caller's, who knows the point.
func (c *GRPCClient) HandleMessage(ctx context.Context, req *proto.HandleRequest, resp *proto.HandleResponse) error {
	e, err := encode(req)
	if err != nil {
		return err
	}
	defer e.release()
	n := len(e.buf)
	if p, ok := req.GetInput().(*proto.HandleRequest_Payload); ok {
		n = len(p.Payload)
	}
	if err := checkSize("hook payload", n); err != nil {
		return err
	}
	if err := c.conn.Invoke(ctx, proto.Capability_Handle_FullMethodName, e, resp, staticMethod...); err != nil {
		return wireErr(err)
	}
	return checkSize("hook result", outputSize(resp))
}

// outputSize is the size of a hook's answer: its JSON result, or its
// native output's variable-length fields.
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

// WatchSkills follows the plugin's "skills changed" stream until ctx is done
// (nil) or the stream breaks (its error; io.EOF when the plugin ended it).
func (c *GRPCClient) WatchSkills(ctx context.Context, changed func()) error {
	stream, err := c.client.WatchSkills(ctx, &proto.WatchSkillsRequest{})
	if err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		changed()
	}
}

// GRPCServer is the plugin's side of the wire: it serves gRPC calls with
// Impl.
type GRPCServer struct {
	proto.UnimplementedCapabilityServer
	// Impl is the plugin's implementation (a *sdk.Server).
	Impl Capability
}

var _ proto.CapabilityServer = (*GRPCServer)(nil)

// Describe serves Impl.Describe.
func (s *GRPCServer) Describe(ctx context.Context, _ *proto.DescribeRequest) (*proto.DescribeResponse, error) {
	d, err := s.Impl.Describe(ctx)
	if err != nil {
		return nil, err
	}
	_, native := s.Impl.(MessageHandler)
	r := &proto.DescribeResponse{Name: d.Name, Description: d.Description, SkillsIncomplete: d.SkillsIncomplete, NativeHooks: native}
	for _, m := range d.Mounts {
		r.Mounts = append(r.Mounts, &proto.Mount{Point: m.Point, Name: m.Name})
	}
	for _, t := range d.Tools {
		r.Tools = append(r.Tools, &proto.Tool{Name: t.Name, Description: t.Description, Schema: t.Schema})
	}
	for _, sk := range d.Skills {
		r.Skills = append(r.Skills, &proto.Skill{
			Name:                   sk.Name,
			Description:            sk.Description,
			BaseDir:                sk.BaseDir,
			File:                   sk.File,
			DisableModelInvocation: sk.DisableModelInvocation,
		})
	}
	for _, w := range d.Warnings {
		r.Warnings = append(r.Warnings, &proto.Warning{Path: w.Path, Message: w.Message})
	}
	return r, nil
}

// LoadSkill serves Impl.LoadSkill.
func (s *GRPCServer) LoadSkill(ctx context.Context, req *proto.LoadSkillRequest) (*proto.LoadSkillResponse, error) {
	c, err := s.Impl.LoadSkill(ctx, req.GetName())
	if err != nil {
		return nil, err
	}
	if err := checkSize("skill body", len(c.Body)); err != nil {
		return nil, tooLargeStatus(err)
	}
	return &proto.LoadSkillResponse{Name: c.Name, Body: c.Body}, nil
}

// CallTool serves Impl.CallTool.
func (s *GRPCServer) CallTool(ctx context.Context, req *proto.CallToolRequest) (*proto.CallToolResponse, error) {
	r, err := s.Impl.CallTool(ctx, req.GetName(), req.GetArguments())
	if err != nil {
		return nil, err
	}
	if err := checkSize("tool result", len(r.Content)); err != nil {
		return nil, tooLargeStatus(err)
	}
	return &proto.CallToolResponse{Content: r.Content, IsError: r.IsError}, nil
}

// Handle serves Impl.HandleMessage when Impl is a MessageHandler, else
// Impl.Handle with the JSON payload.
func (s *GRPCServer) Handle(ctx context.Context, req *proto.HandleRequest) (*proto.HandleResponse, error) {
	var r *proto.HandleResponse
	if m, ok := s.Impl.(MessageHandler); ok {
		var err error
		if r, err = m.HandleMessage(ctx, req); err != nil {
			return nil, err
		}
	} else {
		hr, err := s.Impl.Handle(ctx, req.GetPoint(), req.GetMount(), req.GetPayload())
		if err != nil {
			return nil, err
		}
		r = &proto.HandleResponse{Handled: hr.Handled, Output: &proto.HandleResponse_Result{Result: hr.Result}}
	}
	if !r.GetHandled() {
		return &proto.HandleResponse{}, nil
	}
	if err := checkSize("hook result", outputSize(r)); err != nil {
		return nil, tooLargeStatus(err)
	}
	return r, nil
}

// WatchSkills serves Impl.WatchSkills as a stream. Changes signalled while a
// message is being sent coalesce into the next one: the message carries no
// diff, only "ask again".
func (s *GRPCServer) WatchSkills(_ *proto.WatchSkillsRequest, stream grpc.ServerStreamingServer[proto.SkillsChanged]) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	signal := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- s.Impl.WatchSkills(ctx, func() {
			select {
			case signal <- struct{}{}:
			default:
			}
		})
	}()
	for {
		select {
		case <-signal:
			if err := stream.Send(&proto.SkillsChanged{}); err != nil {
				return err
			}
		case err := <-done:
			if err == nil {
				err = io.EOF
			}
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}
