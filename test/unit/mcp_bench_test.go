package unit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// BenchmarkMCPSkillCallStdio: one tools/call of the skill tool against
// `helios mcp` over stdio, beside the transport's own round trip (ping) and
// what a client without MCP pays: a `helios skills load` process per load.
func BenchmarkMCPSkillCallStdio(b *testing.B) {
	work, home := b.TempDir(), b.TempDir()
	require.NoError(b, os.MkdirAll(filepath.Join(work, ".helios", "skills"), 0o755))
	mcpPutSkill(b, filepath.Join(work, ".helios", "skills"), "demo", "name: demo\ndescription: A demo skill.", "Run scripts/go.sh from the base directory.\n")
	cmd := mcpCommand(work, home)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(b, err)
	b.Cleanup(func() { cs.Close() })
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "skill", Arguments: map[string]any{"name": "demo"}}

	var pingNs float64
	b.Run("baseline=ping", func(b *testing.B) {
		for b.Loop() {
			if err := cs.Ping(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
		pingNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("tools-call-skill", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
		if pingNs > 0 {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/pingNs, "x-ping")
		}
	})
	b.Run("baseline=skills-load-process", func(b *testing.B) {
		helios := heliosBin() // built before the loop's clock
		for b.Loop() {
			c := exec.Command(helios, "--work-dir", work, "skills", "load", "demo")
			c.Env = append(os.Environ(), "HOME="+home)
			if out, err := c.Output(); err != nil || len(out) == 0 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMCPChangeNotification: from a skill folder renamed into a
// watched root (native watching) to the client's
// notifications/resources/list_changed, beside the kernel's own path to a
// complete snapshot holding the skill (what `helios skills watch` waits
// for). The difference is the server's work plus the SDK's 10ms debounce.
func BenchmarkMCPChangeNotification(b *testing.B) {
	w := newMCPWorld(b, "native")
	srv := mcpNewServer(b, w.k)
	cs, notes := mcpConnect(b, srv, "2025-11-25")
	reg := w.k.Skills()
	changed := make(chan struct{}, 1)
	cancel := reg.OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	b.Cleanup(cancel)
	ctx := context.Background()

	// cycle adds a skill (timed) and removes it (not timed); mark is called
	// before each change and returns how to wait for it.
	i := 0
	cycle := func(b *testing.B, mark func() func(name string, present bool)) {
		i++
		name := "s" + strconv.Itoa(i)
		wait := mark()
		b.StartTimer()
		mcpPutSkill(b, w.project, name, "name: "+name+"\ndescription: Bench skill.", "body\n")
		wait(name, true)
		b.StopTimer()
		wait = mark()
		require.NoError(b, os.RemoveAll(filepath.Join(w.project, name)))
		wait(name, false)
	}
	var kernelNs float64
	b.Run("baseline=kernel-snapshot", func(b *testing.B) {
		b.StopTimer()
		defer func() { kernelNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N) }()
		for range b.N {
			cycle(b, func() func(string, bool) {
				return func(name string, present bool) {
					deadline := time.After(15 * time.Second)
					for {
						cat := reg.Snapshot(ctx)
						if _, ok := cat.Lookup(name); cat.Complete && ok == present {
							return
						}
						select {
						case <-changed:
						case <-deadline:
							b.Fatalf("no snapshot with %s present=%v", name, present)
						}
					}
				}
			})
		}
	})
	b.Run("mcp-list-changed", func(b *testing.B) {
		b.StopTimer()
		quiet() // the notifications of the baseline's changes land first
		defer func() {
			if kernelNs > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/kernelNs, "x-kernel")
			}
		}()
		for range b.N {
			cycle(b, func() func(string, bool) {
				n := notes.count(ntResources)
				return func(name string, present bool) {
					// A notification, and the one that announces this change
					// (an add and a remove close together may net to nothing).
					notes.waitFor(b, "resources/list_changed", func() bool {
						return notes.count(ntResources) > n && slices.Contains(mcpPromptNames(b, cs), name) == present
					})
				}
			})
		}
	})
}
