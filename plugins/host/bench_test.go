package host

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/stretchr/testify/require"
)

// BenchmarkHookCall compares one context:prepare dispatch through a builtin
// handler, the same dispatch through the release-notes plugin, and a bare
// go-plugin gRPC call with an empty payload (the health check go-plugin
// serves) on the very connection the plugin's calls use. "interleaved" runs a
// bare call and a plugin dispatch in each iteration, so their ratio is taken
// under the same conditions: it is what Helios's layer (JSON encode and
// decode, the SDK's dispatch, the hook registry, the call deadline) adds.
//
// Latencies are per call: p50-µs and p99-µs.
func BenchmarkHookCall(b *testing.B) {
	c, err := Launch(context.Background(), Config{Name: "release-notes", Command: exampleDir + "/release-notes"})
	require.NoError(b, err)
	defer c.Close()
	ctx := context.Background()
	in := prepareIn("release-notes", "changelog", "code-review")

	builtin := hooks.New(hooks.Config{})
	require.NoError(b, hooks.ContextPrepare.Mount(builtin, "builtin", hooks.Builtin, func(context.Context, kernel.PrepareIn) (string, bool, error) {
		return "Release notes: load the release-notes skill first.", true, nil
	}))
	remote := hooks.New(hooks.Config{})
	for _, m := range c.Mounts() {
		if m.Point == hooks.ContextPrepare.Name {
			m.Origin = hooks.Plugin
			require.NoError(b, remote.Mount(m))
		}
	}
	// Plain checks inside the timed calls: testify's variadic arguments
	// would allocate and cost time on one side only.
	dispatch := func(r *hooks.Registry) func() {
		return func() {
			out, err := hooks.ContextPrepare.Dispatch(ctx, r, in)
			if err != nil || len(out) != 1 {
				b.Fatalf("dispatch = %q, %v; want one text", out, err)
			}
		}
	}
	proto, err := c.cur.client.(*plugin.Client).Client()
	require.NoError(b, err)
	bare := func() {
		if err := proto.Ping(); err != nil {
			b.Fatalf("ping: %v", err)
		}
	}

	for _, bb := range []struct {
		name string
		call func()
	}{
		{"builtin", dispatch(builtin)},
		{"plugin", dispatch(remote)},
		{"bare", bare},
	} {
		b.Run(bb.name, func(b *testing.B) {
			ds := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				bb.call()
				ds = append(ds, time.Since(t0))
			}
			reportLatency(b, "", ds)
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		var pd, bd []time.Duration
		call := dispatch(remote)
		for b.Loop() {
			t0 := time.Now()
			bare()
			t1 := time.Now()
			call()
			bd, pd = append(bd, t1.Sub(t0)), append(pd, time.Since(t1))
		}
		p50b, p99b := reportLatency(b, "bare-", bd)
		p50p, p99p := reportLatency(b, "plugin-", pd)
		b.ReportMetric(p50p/p50b, "ratio-p50")
		b.ReportMetric(p99p/p99b, "ratio-p99")
	})
}

// BenchmarkPluginStart launches and closes the plugin: handshake-ms is the
// process start, go-plugin handshake and AutoMTLS; start-ms adds the skills
// watch and the first Describe.
func BenchmarkPluginStart(b *testing.B) {
	var hs, ss []time.Duration
	for b.Loop() {
		c, err := Launch(context.Background(), Config{Name: "release-notes", Command: exampleDir + "/release-notes"})
		require.NoError(b, err)
		st := c.Status()
		hs, ss = append(hs, st.Handshake), append(ss, st.Started)
		c.Close()
	}
	for _, m := range []struct {
		name string
		ds   []time.Duration
	}{{"handshake", hs}, {"start", ss}} {
		slices.Sort(m.ds)
		b.ReportMetric(ms(pct(m.ds, 50)), m.name+"-p50-ms")
		b.ReportMetric(ms(pct(m.ds, 99)), m.name+"-p99-ms")
	}
}

// reportLatency reports the p50 and p99 of ds in µs and returns them.
func reportLatency(b *testing.B, prefix string, ds []time.Duration) (p50, p99 float64) {
	slices.Sort(ds)
	p50, p99 = us(pct(ds, 50)), us(pct(ds, 99))
	b.ReportMetric(p50, prefix+"p50-µs")
	b.ReportMetric(p99, prefix+"p99-µs")
	return p50, p99
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
