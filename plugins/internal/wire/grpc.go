package wire

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/internal/proto"
)

// PluginName is the single plugin type a Helios plugin binary serves.
const PluginName = "capability"

// windowSize is the static HTTP/2 flow-control window of both sides. A
// static window turns off gRPC's bandwidth-delay probing, whose pings cost
// about 10% of a call's latency on a local socket, where there is no
// bandwidth to discover.
const windowSize = 1 << 20

// DialOptions are the host's gRPC options for a plugin connection.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(plugins.MaxMessageSize), grpc.MaxCallSendMsgSize(plugins.MaxMessageSize)),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
		grpc.WithChainUnaryInterceptor(traceClientInterceptor),
	}
}

// ServerOptions are the plugin's gRPC server options, to append to those
// go-plugin passes in (TLS).
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(plugins.MaxMessageSize),
		grpc.MaxSendMsgSize(plugins.MaxMessageSize),
		grpc.InitialWindowSize(windowSize),
		grpc.InitialConnWindowSize(windowSize),
	}
}

// PluginMap returns the go-plugin plugin set serving impl (plugin side), or
// dispensing clients when impl is nil (host side).
func PluginMap(impl plugins.Capability) plugin.PluginSet {
	return plugin.PluginSet{PluginName: &GRPCPlugin{Impl: impl}}
}

// GRPCPlugin is the go-plugin plugin type of a Helios capability. It speaks
// gRPC only: the net/rpc half of go-plugin's Plugin interface is refused.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl serves the calls (plugin side); nil on the host side.
	Impl plugins.Capability
}

var _ plugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer registers Impl on the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("serve plugin: GRPCPlugin has no Impl")
	}
	proto.RegisterCapabilityServer(s, &GRPCServer{Impl: p.Impl})
	return nil
}

// GRPCClient returns the host's Capability over conn.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewClient(c), nil
}

// GRPCClient is the host's side of the wire: a Capability whose calls are
// gRPC calls to the plugin.
type GRPCClient struct {
	client proto.CapabilityClient
}

var _ plugins.Capability = (*GRPCClient)(nil)

// NewClient returns the Capability of the plugin at the other end of conn.
func NewClient(conn grpc.ClientConnInterface) *GRPCClient {
	return &GRPCClient{client: proto.NewCapabilityClient(conn)}
}

// ErrJSONHooks is the error of Describe for a plugin that mounts hook
// handlers but does not take the standard points' payloads in their typed
// messages (it did not say native_hooks).
var ErrJSONHooks = errors.New("the plugin takes hook payloads as JSON only (it does not set native_hooks in DescribeResponse); build it again with the current plugins/sdk, or see plugins/proto/helios.proto")

// Describe asks the plugin to describe itself.
func (c *GRPCClient) Describe(ctx context.Context) (plugins.Description, error) {
	r, err := c.client.Describe(ctx, &proto.DescribeRequest{})
	if err != nil {
		return plugins.Description{}, wireErr(err)
	}
	if len(r.GetMounts()) > 0 && !r.GetNativeHooks() {
		return plugins.Description{}, ErrJSONHooks
	}
	d := plugins.Description{Name: r.GetName(), Description: r.GetDescription(), SkillsIncomplete: r.GetSkillsIncomplete()}
	for _, m := range r.GetMounts() {
		d.Mounts = append(d.Mounts, plugins.Mount{Point: m.GetPoint(), Name: m.GetName()})
	}
	for _, t := range r.GetTools() {
		d.Tools = append(d.Tools, plugins.Tool{Name: t.GetName(), Description: t.GetDescription(), Schema: t.GetSchema()})
	}
	for _, s := range r.GetSkills() {
		d.Skills = append(d.Skills, plugins.Skill{
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
func (c *GRPCClient) LoadSkill(ctx context.Context, name string) (plugins.SkillContent, error) {
	r, err := c.client.LoadSkill(ctx, &proto.LoadSkillRequest{Name: name})
	if err != nil {
		return plugins.SkillContent{}, wireErr(err)
	}
	if err := checkSize("skill body", len(r.GetBody())); err != nil {
		return plugins.SkillContent{}, err
	}
	return plugins.SkillContent{Name: r.GetName(), Body: r.GetBody()}, nil
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

// Handle runs one of the plugin's hook handlers on in, a payload of point
// (see plugins.Capability), and returns the plugin's answer as the point's
// result. A payload of another type than the point's, or an answer the
// point cannot take, is an error naming the point.
func (c *GRPCClient) Handle(ctx context.Context, point, mount string, in any) (plugins.HookResult, error) {
	req := &proto.HandleRequest{Point: point, Mount: mount}
	if err := setInput(req, in); err != nil {
		return plugins.HookResult{}, err
	}
	if err := checkSize("hook payload", inputSize(req)); err != nil {
		return plugins.HookResult{}, err
	}
	resp, err := c.client.Handle(ctx, req)
	if err != nil {
		return plugins.HookResult{}, wireErr(err)
	}
	if err := checkSize("hook result", outputSize(resp)); err != nil {
		return plugins.HookResult{}, err
	}
	if !resp.GetHandled() {
		return plugins.HookResult{}, nil
	}
	v, err := output(point, resp)
	if err != nil {
		return plugins.HookResult{}, err
	}
	return plugins.HookResult{Handled: true, Value: v}, nil
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
	Impl plugins.Capability
}

var _ proto.CapabilityServer = (*GRPCServer)(nil)

// Describe serves Impl.Describe. It says native_hooks: the standard points'
// payloads are taken in their typed messages, as this package sends them.
func (s *GRPCServer) Describe(ctx context.Context, _ *proto.DescribeRequest) (*proto.DescribeResponse, error) {
	d, err := s.Impl.Describe(ctx)
	if err != nil {
		return nil, err
	}
	r := &proto.DescribeResponse{Name: d.Name, Description: d.Description, SkillsIncomplete: d.SkillsIncomplete, NativeHooks: true}
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

// Handle serves Impl.Handle: the payload decoded into the point's type, the
// answer encoded from it. "Pass" stays explicit: an answer that is not
// handled goes back empty, whatever it held.
func (s *GRPCServer) Handle(ctx context.Context, req *proto.HandleRequest) (*proto.HandleResponse, error) {
	in, err := input(req)
	if err != nil {
		return nil, err
	}
	hr, err := s.Impl.Handle(ctx, req.GetPoint(), req.GetMount(), in)
	if err != nil {
		return nil, err
	}
	if !hr.Handled {
		return &proto.HandleResponse{}, nil
	}
	r, err := setOutput(req.GetPoint(), hr.Value)
	if err != nil {
		return nil, err
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
