// Package proto is the generated gRPC code of helios.proto, the wire protocol
// between the Helios kernel and its out-of-process capabilities. Do not edit
// the *.pb.go files: change helios.proto and run `make proto`.
//
// Plugin authors never use this package directly; plugins/sdk does.
package proto
