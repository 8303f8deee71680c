// Package plugins is the contract between the Helios kernel and an
// out-of-process capability, in the shape of hashicorp/go-plugin's gRPC
// example: a plain Go interface (Capability) and the Handshake both sides
// must agree on. The gRPC adapters that carry the interface over the wire
// live in plugins/internal/wire, the generated code in plugins/internal/proto;
// the protocol itself is published as plugins/proto/helios.proto, for
// plugins written in other languages.
//
// The kernel side, which launches and supervises plugin processes and adapts
// them to kernel.Capability, is plugins/host. Plugin authors import
// plugins/sdk, which implements Capability from a few hook handlers, tools
// and a folder of skills, and serves it.
//
// Only gRPC is spoken (go-plugin's net/rpc is refused), over AutoMTLS, with
// messages up to MaxMessageSize in either direction. A standard point's
// payload and result cross the wire in their protobuf messages, field by
// field from the types of kernel/hookdata, which both sides hand to their
// handlers; a custom point's travel as JSON.
package plugins
