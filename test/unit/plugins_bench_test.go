package unit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/provider/modeltest"
)

// BenchmarkPluginsRunFirstRequest installs every plugin of a marketplace
// (HELIOS_BENCH_PLUGINS: a local clone, e.g. of wshobson/agents) into a
// HOME once, timing the install, then times `helios run` from the start of
// the process to the first request the scripted model receives, with those
// plugins installed and with an empty HOME, alternately:
// install-s, with-ms, without-ms (medians) and with-x-without.
//
//	HELIOS_BENCH_PLUGINS=/path/to/agents go test -run '^$' -bench BenchmarkPluginsRunFirstRequest -benchtime 10x ./test/unit/
func BenchmarkPluginsRunFirstRequest(b *testing.B) {
	src := os.Getenv("HELIOS_BENCH_PLUGINS")
	if src == "" {
		b.Skip("HELIOS_BENCH_PLUGINS names no marketplace clone")
	}
	with, without, work := b.TempDir(), b.TempDir(), b.TempDir()
	install := exec.Command(heliosBin(), "plugins", "install", src, "--plugin", "*", "--yes")
	install.Env = append(os.Environ(), "HOME="+with)
	t0 := time.Now()
	out, err := install.CombinedOutput()
	installTime := time.Since(t0)
	require.NoError(b, err, "%s", out)

	run := func(home string) time.Duration {
		var mu sync.Mutex
		var first time.Time
		srv := modeltest.NewServer(b, func(modeltest.Recorded) modeltest.Reply {
			mu.Lock()
			if first.IsZero() {
				first = time.Now()
			}
			mu.Unlock()
			return modeltest.Reply{Text: "done"}
		})
		cfg := filepath.Join(work, "helios.config.json")
		require.NoError(b, os.WriteFile(cfg, []byte(`{"workDir": ".", "model": {"baseURL": "`+srv.URL()+
			`", "name": "scripted", "apiKeyEnv": ""}, "sessions": {"dir": "`+filepath.Join(home, "sessions")+`"}}`), 0o644))
		cmd := exec.Command(heliosBin(), "--config", cfg, "run", "hi")
		cmd.Dir, cmd.Env = work, append(os.Environ(), "HOME="+home)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		require.NoError(b, err, "%s", out)
		mu.Lock()
		defer mu.Unlock()
		require.False(b, first.IsZero(), "no request reached the model: %s", out)
		return first.Sub(start)
	}
	var w, wo []time.Duration
	for b.Loop() {
		w = append(w, run(with))
		wo = append(wo, run(without))
	}
	b.ReportMetric(installTime.Seconds(), "install-s")
	b.ReportMetric(median(w), "with-ms")
	b.ReportMetric(median(wo), "without-ms")
	b.ReportMetric(median(w)/median(wo), "with-x-without")
}
