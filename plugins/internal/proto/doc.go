// Package proto is the generated gRPC code of plugins/proto/helios.proto,
// the wire protocol between the Helios kernel and its out-of-process
// capabilities. Do not edit the *.pb.go files: change helios.proto and run
// `make proto`.
//
// Only plugins/internal/wire uses it: the kernel's host and plugins/sdk
// speak it through there.
package proto
