package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/provider/modeltest"
)

// BenchmarkACPFirstChunk measures a turn's first streamed text, the same
// scripted turn three ways, interleaved in each iteration (the machine's
// noise then hits all three alike), reported as medians in ms:
//
//   - run-ms: `helios run PROMPT` from the process's start to the first
//     byte of the answer on stdout;
//   - acp-cold-ms: `helios acp` from the process's start through
//     initialize, session/new and session/prompt to the first
//     agent_message_chunk (an editor's first prompt);
//   - acp-warm-ms: session/prompt to the first agent_message_chunk in an
//     open session (every later prompt);
//
// and cold/run, the ratio of the first two.
//
//	go test -run '^$' -bench BenchmarkACPFirstChunk -benchtime 40x ./cmd/helios/
func BenchmarkACPFirstChunk(b *testing.B) {
	says := make([]modeltest.Step, 3*b.N)
	for i := range says {
		says[i] = func(modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Text: "The first chunk, then the rest of the answer.", Chunked: true}
		}
	}
	srv := modeltest.NewServer(b, says...)
	home, work, cfg := acpWorld(b, srv, "")
	exe, err := os.Executable()
	require.NoError(b, err)
	// prompt sends one prompt and returns once its first chunk arrived,
	// and a channel closed when the prompt answered.
	prompt := func(p *acpPeer, id acp.SessionId) <-chan struct{} {
		p.client.mu.Lock()
		p.client.updates = nil
		p.client.mu.Unlock()
		done := make(chan struct{})
		go func() {
			_, _ = p.conn.Prompt(context.Background(), textPrompt(id, "hello"))
			close(done)
		}()
		p.client.waitUpdate(b, "the first agent_message_chunk", func(n acp.SessionNotification) bool {
			return n.Update.AgentMessageChunk != nil
		})
		return done
	}
	warmPeer := startACP(b, home, cfg, "")
	warmID := warmPeer.newSession(b, work)
	var run, cold, warm []time.Duration
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(exe, "run", "--config", cfg, "hello")
		cmd.Env = append(os.Environ(), asHeliosEnv+"=1", "HOME="+home)
		cmd.Dir = work
		out, err := cmd.StdoutPipe()
		require.NoError(b, err)
		start := time.Now()
		require.NoError(b, cmd.Start())
		r := bufio.NewReader(out)
		_, err = r.ReadByte()
		require.NoError(b, err)
		run = append(run, time.Since(start))
		_, _ = r.WriteTo(io.Discard)
		require.NoError(b, cmd.Wait())

		start = time.Now()
		p := startACP(b, home, cfg, "")
		done := prompt(p, p.newSession(b, work))
		cold = append(cold, time.Since(start))
		<-done
		_ = p.stdin.Close()
		<-p.exited
		p.exited <- nil

		start = time.Now()
		done = prompt(warmPeer, warmID)
		warm = append(warm, time.Since(start))
		<-done
	}
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	r, c := median(run), median(cold)
	b.ReportMetric(r, "run-ms")
	b.ReportMetric(c, "acp-cold-ms")
	b.ReportMetric(median(warm), "acp-warm-ms")
	b.ReportMetric(c/r, "cold/run")
}
