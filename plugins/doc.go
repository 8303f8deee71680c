// Package plugins is the contract between the Helios kernel and an
// out-of-process capability, in the shape of hashicorp/go-plugin's gRPC
// example: a plain Go interface (Capability), the Handshake both sides must
// agree on, and the gRPC adapters GRPCClient and GRPCServer{Impl} that carry
// the interface over the wire (package plugins/proto).
//
// The kernel side, which launches and supervises plugin processes and adapts
// them to kernel.Capability, is plugins/host. Plugin authors import
// plugins/sdk, which implements Capability from a few hook handlers, tools
// and a folder of skills, and serves it.
//
// Only gRPC is spoken (go-plugin's net/rpc is refused), over AutoMTLS, with
// messages up to MaxMessageSize in either direction.
//
// A hook call is on the path of every model step, so its wire is lean: the
// standard points' payloads and results travel as native protobuf messages
// to a plugin that says it takes them (NativeHooks; a MessageHandler such as
// plugins/sdk's server), JSON otherwise and for custom points; the host
// encodes a hook call's request, and the plugin its answer, by hand into
// reused buffers rather than through protobuf's reflection.
package plugins
