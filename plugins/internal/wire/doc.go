// Package wire carries plugins.Capability over gRPC, in the shape of
// hashicorp/go-plugin's gRPC example: GRPCPlugin is the go-plugin plugin
// type, GRPCClient the host's side of the wire and GRPCServer{Impl} the
// plugin's. plugins/host and plugins/sdk are its only users; the protocol
// is published as plugins/proto/helios.proto.
//
// A hook call crosses in one encoding per point (points.go): a standard
// point's payload and result in their protobuf messages, converted field by
// field from and to the types of kernel/hookdata that both sides' handlers
// take; any other point's as JSON. Text is made valid UTF-8 on the way, as
// protobuf requires. Each payload is bounded by plugins.MaxPayload on both
// sides (limits.go), and W3C trace context travels in the calls' metadata
// (trace.go).
package wire
