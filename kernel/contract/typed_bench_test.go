package contract_test

import (
	"context"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/helios-agents/helios/kernel/contract"
)

// BenchmarkNewTool is what building a typed tool costs: with refinements
// the schema is derived each time, without it is derived once per type;
// beside a literal Tool with a hand-written schema.
func BenchmarkNewTool(b *testing.B) {
	call := func(context.Context, noteArgs) (contract.ToolResult, error) { return contract.ToolResult{}, nil }
	b.Run("typed", func(b *testing.B) {
		for b.Loop() {
			_ = contract.NewTool("note", "Takes a note.", call)
		}
	})
	b.Run("typed-refined", func(b *testing.B) {
		for b.Loop() {
			_ = contract.NewTool("note", "Takes a note.", call, func(*jsonschema.Schema) {})
		}
	})
	b.Run("literal", func(b *testing.B) {
		for b.Loop() {
			_ = contract.Tool{Name: "note", Description: "Takes a note.", Schema: []byte(`{"type":"object"}`)}
		}
	})
}
