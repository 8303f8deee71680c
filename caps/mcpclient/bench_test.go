package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/workfs"
)

// BenchmarkToolCall compares one tool call through an MCP server (over
// stdio, a process of its own; over streamable HTTP in this process) with
// one call of a builtin tool (Read of a small file), each as the step loop
// makes it: contract.Tool.Call with the model's JSON arguments.
func BenchmarkToolCall(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, tl contract.Tool, args string) {
		b.Helper()
		raw := json.RawMessage(args)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			res, err := tl.Call(ctx, raw)
			if err != nil || res.IsError {
				b.Fatalf("call: %v %+v", err, res)
			}
		}
	}
	b.Run("builtin-read", func(b *testing.B) {
		dir := b.TempDir()
		require.NoError(b, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("echo: ping\n"), 0o644))
		port, err := workfs.New(dir)
		require.NoError(b, err)
		defer port.Close()
		set, err := tools.New(tools.Config{FS: port})
		require.NoError(b, err)
		defer set.Close()
		for _, tl := range set.Tools() {
			if tl.Name == "Read" {
				run(b, tl, `{"path":"notes.txt"}`)
			}
		}
	})
	for _, transport := range []string{"stdio", "http"} {
		b.Run("mcp-"+transport, func(b *testing.B) {
			sc := stdioServer("t")
			if transport == "http" {
				sc, _ = httpServer(b, "t", false)
			}
			ss, err := Start(Config{Servers: []ServerConfig{sc}, SkillDir: b.TempDir()})
			require.NoError(b, err)
			defer ss[0].Close()
			ts, err := ss[0].Tools(ctx)
			require.NoError(b, err)
			for _, tl := range ts {
				if tl.Name == "mcp__t__echo" {
					run(b, tl, `{"text":"ping"}`)
				}
			}
		})
	}
}
