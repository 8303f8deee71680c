package kernel_test

import (
	"context"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// answerModel answers every request at once, so a turn costs only the
// kernel's own work.
type answerModel struct{}

func (answerModel) Generate(context.Context, model.Request) (model.Response, error) {
	return model.Response{Text: "done", FinishReason: "stop", Usage: model.Usage{PromptTokens: 10, CompletionTokens: 1}}, nil
}

// BenchmarkTurn measures one single-step turn (open a session, catalog,
// context:prepare, the model, turn:end) with telemetry off and on (spans to
// a batcher that discards them), interleaved in batches so that the ratio
// on/off (x-off) holds on a loaded machine.
func BenchmarkTurn(b *testing.B) {
	newKernel := func(b *testing.B, tel *telemetry.T) *kernel.Kernel {
		k, err := kernel.New(kernel.Config{WorkDir: b.TempDir(), UserSkillRoots: []string{}, Model: answerModel{},
			Store: session.NewMemoryStore(), Telemetry: tel})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { k.Close() })
		return k
	}
	turn := func(b *testing.B, k *kernel.Kernel) {
		s, err := k.OpenSession(context.Background(), kernel.SessionConfig{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Run(context.Background(), "hi"); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { tp.Shutdown(context.Background()) })
	on, err := telemetry.New(tp, metricnoop.NewMeterProvider(), false)
	if err != nil {
		b.Fatal(err)
	}
	off, onK := newKernel(b, nil), newKernel(b, on)

	b.Run("off", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			turn(b, off)
		}
	})
	b.Run("on", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			turn(b, onK)
		}
	})
	b.Run("on-vs-off/interleaved", func(b *testing.B) {
		const batch = 64
		var tOn, tOff time.Duration
		for b.Loop() {
			t0 := time.Now()
			for range batch {
				turn(b, off)
			}
			t1 := time.Now()
			for range batch {
				turn(b, onK)
			}
			tOff += t1.Sub(t0)
			tOn += time.Since(t1)
		}
		b.ReportMetric(float64(tOn)/float64(tOff), "x-off")
	})
}
