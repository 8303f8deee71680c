package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
)

// delegateModel is a parent that makes n calls of tool at its first step
// and answers once it has their results; a child (its system prompt starts
// with "child") answers at once after latency.
type delegateModel struct {
	tool    string
	n       int
	latency time.Duration
}

func (m delegateModel) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	usage := model.Usage{PromptTokens: 10, CompletionTokens: 1}
	if strings.HasPrefix(req.System, "child") {
		if m.latency > 0 {
			select {
			case <-time.After(m.latency):
			case <-ctx.Done():
				return model.Response{}, ctx.Err()
			}
		}
		return model.Response{Text: "child done", Usage: usage}, nil
	}
	if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
		return model.Response{Text: "done", Usage: usage}, nil
	}
	calls := make([]model.ToolCall, m.n)
	for i := range calls {
		args, _ := json.Marshal(map[string]string{"subagent_type": "child", "description": "d", "prompt": fmt.Sprint("task ", i)})
		calls[i] = model.ToolCall{ID: fmt.Sprint("c", i), Name: m.tool, Arguments: args}
	}
	return model.Response{ToolCalls: calls, Usage: usage}, nil
}

// echoCap offers a tool that answers at once, the baseline of a call.
type echoCap struct{}

func (echoCap) Name() string { return "echo" }

func (echoCap) Tools(context.Context) ([]contract.Tool, error) {
	return []contract.Tool{{Name: "Echo", Description: "Echoes.", Call: func(context.Context, json.RawMessage) (contract.ToolResult, error) {
		return contract.ToolResult{Content: "child done"}, nil
	}}}, nil
}

// BenchmarkSubagent measures what a subagent call costs beyond its model
// requests: a turn whose model hands a task to a subagent (three model
// requests, answered at once) against a turn calling a tool that answers at
// once (two requests) plus one more request; overhead-p50-µs is the
// difference of their medians. concurrent: four Agent calls in one step
// against one, each child's request taking 20 ms (x-one: 1 means the four
// cost what one does).
func BenchmarkSubagent(b *testing.B) {
	newKernel := func(b *testing.B, m model.Model, maxConc int) *kernel.Kernel {
		k, err := kernel.New(kernel.Config{WorkDir: b.TempDir(), UserSkillRoots: []string{}, Model: m, Store: session.NewMemoryStore(),
			Capabilities: []kernel.Capability{echoCap{}},
			Agents:       kernel.AgentsConfig{Source: saAgents{{Name: "child", Description: "A child.", Prompt: "child"}}, MaxConcurrent: maxConc}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { k.Close() })
		return k
	}
	turn := func(b *testing.B, k *kernel.Kernel) time.Duration {
		t0 := time.Now()
		s, err := k.OpenSession(context.Background(), kernel.SessionConfig{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Run(context.Background(), "go"); err != nil {
			b.Fatal(err)
		}
		s.Close()
		return time.Since(t0)
	}
	p50 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	b.Run("overhead/interleaved", func(b *testing.B) {
		agent := newKernel(b, delegateModel{tool: kernel.AgentToolName, n: 1}, 0)
		tool := newKernel(b, delegateModel{tool: "Echo", n: 1}, 0)
		var ta, tt []time.Duration
		req := model.Request{System: "child"}
		for b.Loop() {
			ta = append(ta, turn(b, agent))
			t0 := time.Now()
			_, _ = delegateModel{}.Generate(context.Background(), req) // the child's request, as the baseline's extra
			tt = append(tt, turn(b, tool)+time.Since(t0))
		}
		pa, pt := p50(ta), p50(tt)
		b.ReportMetric(float64(pa.Microseconds()), "agent-p50-µs")
		b.ReportMetric(float64(pt.Microseconds()), "tool-p50-µs")
		b.ReportMetric(float64((pa - pt).Microseconds()), "overhead-p50-µs")
	})
	b.Run("concurrent/interleaved", func(b *testing.B) {
		const latency = 20 * time.Millisecond
		four := newKernel(b, delegateModel{tool: kernel.AgentToolName, n: 4, latency: latency}, 4)
		one := newKernel(b, delegateModel{tool: kernel.AgentToolName, n: 1, latency: latency}, 4)
		var t4, t1 []time.Duration
		for b.Loop() {
			t4 = append(t4, turn(b, four))
			t1 = append(t1, turn(b, one))
		}
		p4, p1 := p50(t4), p50(t1)
		b.ReportMetric(float64(p4.Microseconds()), "four-p50-µs")
		b.ReportMetric(float64(p1.Microseconds()), "one-p50-µs")
		b.ReportMetric(float64(p4)/float64(p1), "x-one")
	})
}
