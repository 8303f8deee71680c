package plugins

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/plugins/proto"
)

// ProtocolVersion is the version of the plugin protocol (helios.proto and
// the meaning of its fields). go-plugin refuses a plugin that speaks another
// one at the handshake, with an error naming both versions.
const ProtocolVersion = 1

// Handshake is what host and plugin must agree on before anything else. The
// magic cookie is not a secret: it only stops a plugin binary from being
// run by hand as if it were a program.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "HELIOS_PLUGIN",
	MagicCookieValue: "7d0c1a52-helios-capability",
}

// PluginName is the single plugin type a Helios plugin binary serves.
const PluginName = "capability"

// MaxMessageSize bounds one gRPC message in either direction. go-plugin's
// server default is 4 MiB, too small for a long session's context:compact
// payload or a large skill; its client default is 2 GiB, which would let a
// hostile plugin make the kernel allocate that much. Both sides set this.
const MaxMessageSize = 64 << 20

// windowSize is the static HTTP/2 flow-control window of both sides. A
// static window turns off gRPC's bandwidth-delay probing, whose pings cost
// about 10% of a call's latency on a local socket, where there is no
// bandwidth to discover.
const windowSize = 1 << 20

// DialOptions are the host's gRPC options for a plugin connection.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageSize), grpc.MaxCallSendMsgSize(MaxMessageSize)),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
		grpc.WithChainUnaryInterceptor(traceClientInterceptor),
	}
}

// ServerOptions are the plugin's gRPC server options, to append to those
// go-plugin passes in (TLS).
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ForceServerCodecV2(newServerCodec()),
		grpc.MaxRecvMsgSize(MaxMessageSize),
		grpc.MaxSendMsgSize(MaxMessageSize),
		grpc.InitialWindowSize(windowSize),
		grpc.InitialConnWindowSize(windowSize),
	}
}

// PluginMap returns the go-plugin plugin set serving impl (plugin side), or
// dispensing clients when impl is nil (host side).
func PluginMap(impl Capability) plugin.PluginSet {
	return plugin.PluginSet{PluginName: &GRPCPlugin{Impl: impl}}
}

// Capability is what crosses the process boundary: the host's GRPCClient
// and a plugin's implementation (plugins/sdk) both satisfy it. Every method
// may be called concurrently.
type Capability interface {
	// Describe returns the plugin's name, description, mounts, tools and
	// current skills.
	Describe(ctx context.Context) (Description, error)
	// LoadSkill reads a skill's current body; nothing is cached.
	LoadSkill(ctx context.Context, name string) (SkillContent, error)
	// CallTool runs a tool. Errors the model should see are a ToolResult
	// with IsError; an error means the call could not be made.
	CallTool(ctx context.Context, name string, args json.RawMessage) (contract.ToolResult, error)
	// Handle runs the handler described as Mount{point, mount} on a JSON
	// payload (package kernel/hookwire).
	Handle(ctx context.Context, point, mount string, payload json.RawMessage) (HookResult, error)
	// WatchSkills calls changed once when the watch is established, then
	// once after each change of the skills (bursts may coalesce), until ctx
	// is done or the watch fails. It blocks meanwhile. The first call lets
	// the caller Describe knowing that no later change can be missed.
	WatchSkills(ctx context.Context, changed func()) error
}

// MessageHandler is a Capability that also takes hook calls as the
// protobuf messages they cross the wire in: the standard points' payloads
// in their native fields (proto.Prepare, proto.ToolBefore, ...), which
// spares both sides JSON. GRPCServer hands it every Handle request as it
// came, JSON payloads too (a custom point's, or an older host's, which
// must be answered in JSON), and tells the host in Describe that it may
// send native ones. plugins/sdk's Server is one.
type MessageHandler interface {
	// HandleMessage runs the handler of req's point and mount. The answer
	// to a JSON payload is JSON; the answer to a native one is native or
	// JSON.
	HandleMessage(ctx context.Context, req *proto.HandleRequest) (*proto.HandleResponse, error)
}

// Description is what a plugin says about itself.
type Description struct {
	// Name is the plugin's own name (its EXTENSION.md frontmatter name).
	Name string
	// Description is its EXTENSION.md frontmatter description: its line in
	// the <extensions> manifest.
	Description string
	// Mounts are its hook handlers, by point.
	Mounts []Mount
	// Tools are its tools, without their implementation.
	Tools []Tool
	// Skills are its current skills.
	Skills []Skill
	// SkillsIncomplete says the plugin could not read all its skills.
	SkillsIncomplete bool
	// Warnings are about skills it skipped or doubted. Their Source is
	// set by the host.
	Warnings []contract.Warning
	// NativeHooks says the plugin takes the standard points' payloads in
	// their protobuf form (see MessageHandler), so the host sends them so.
	// GRPCServer sets it from its Impl, whatever Impl's Describe said.
	NativeHooks bool
}

// Mount is one hook handler of a plugin.
type Mount struct {
	// Point is the mount point, e.g. "context:prepare".
	Point string
	// Name tells two handlers of one plugin on the same point apart; it may
	// be empty.
	Name string
}

// Skill is one of a plugin's skills.
type Skill struct {
	// Name is the skill's frontmatter name.
	Name string
	// Description is its frontmatter description.
	Description string
	// BaseDir is the absolute directory the skill's relative paths resolve
	// against: the skill's folder on disk, beside the plugin.
	BaseDir string
	// File is the absolute path of its SKILL.md.
	File string
	// DisableModelInvocation hides it from the model's catalog and tools.
	DisableModelInvocation bool
}

// Tool is one of a plugin's tools, without its implementation.
type Tool struct {
	// Name is the tool's name.
	Name string
	// Description is what the model reads about it.
	Description string
	// Schema is the JSON Schema of its arguments.
	Schema json.RawMessage
}

// SkillContent is a loaded skill.
type SkillContent struct {
	// Name is the skill's frontmatter name at load time.
	Name string
	// Body is the text after the frontmatter.
	Body string
}

// HookResult is a handler's answer. Handled is explicit: false is a pass,
// whatever Result holds.
type HookResult struct {
	// Handled says the handler decided (firstWin) or contributed (concat).
	Handled bool
	// Result is the point's JSON result; read only when Handled.
	Result json.RawMessage
}
