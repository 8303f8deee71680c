package agents_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helios-agents/helios/caps/agents"
)

// BenchmarkAgents measures one read of the folders, as every step does (so
// a new file is offered at the next step): n definitions of published size
// (frontmatter about 400 B, a 4 KB prompt).
func BenchmarkAgents(b *testing.B) {
	for _, n := range []int{20, 200} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			body := strings.Repeat("You are an expert. Follow these steps carefully.\n", 80)
			for i := range n {
				text := fmt.Sprintf("---\nname: agent-%03d\ndescription: %s\ntools: Read, Write, Edit, Bash, Glob\nmodel: sonnet\n---\n%s",
					i, strings.Repeat("Use this agent when reviewing code for quality. ", 6), body)
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("agent-%03d.md", i)), []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			src := agents.New(agents.Options{UserDirs: []string{dir}})
			b.ReportAllocs()
			for b.Loop() {
				if defs, _ := src.Agents(b.Context()); len(defs) != n {
					b.Fatalf("%d agents", len(defs))
				}
			}
		})
	}
}
