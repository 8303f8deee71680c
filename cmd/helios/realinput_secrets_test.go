package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/provider/modeltest"
)

// readTree returns the text of every file under dir.
func readTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		b.Write(data)
		return err
	}))
	return b.String()
}

// The model key is a secret (C19): a server that repeats it in error
// bodies (proxies and self-hosted servers echo the Authorization header),
// and a tool that prints it (the model read a dotfile), leave it nowhere
// Helios writes: stdout, stderr (the retry warning too), the session log,
// `sessions show` and the exported spans and metrics, with content capture
// off and on. Each place says [REDACTED] instead.
func TestRealInputSecretsRedacted(t *testing.T) {
	const key = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	for _, capture := range []bool{false, true} {
		t.Run(map[bool]string{false: "captureContent false", true: "captureContent true"}[capture], func(t *testing.T) {
			t.Setenv("HELIOS_TEST_MODEL_KEY", key)
			home, dir := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(dir, "dotfile"), "export OPENAI_API_KEY="+key+"\n")
			srv := modeltest.NewServer(t,
				modeltest.Call("Bash", `{"command":"cat dotfile"}`),
				modeltest.Fail(503, "upstream rejected Authorization: Bearer "+key+"; try again"),
				modeltest.Fail(401, "Incorrect API key provided: Bearer "+key+". You can find your API key at https://example.invalid."),
			)
			out := t.TempDir()
			sessions := filepath.Join(out, "sessions")
			cfg := filepath.Join(t.TempDir(), "helios.config.json")
			writeFile(t, cfg, `{
  "workDir": "`+dir+`",
  "skills": {"userRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": "HELIOS_TEST_MODEL_KEY", "maxRetries": 1},
  "tools": {"sandbox": {"mode": "off"}},
  "sessions": {"dir": "`+sessions+`"},
  "telemetry": {"captureContent": `+map[bool]string{false: "false", true: "true"}[capture]+`,
    "traces": {"exporter": "file", "path": "`+filepath.Join(out, "traces.jsonl")+`"},
    "metrics": {"exporter": "file", "path": "`+filepath.Join(out, "metrics.jsonl")+`"}}
}`)
			run := helios(t, home, dir, "--config", cfg, "run", "hello")
			assert.Equal(t, 1, run.code, "the 401 ends the run:\n%s\n%s", run.stdout, run.stderr)
			reqs := srv.Requests()
			require.Len(t, reqs, 3)
			assert.Equal(t, "Bearer "+key, reqs[0].Header.Get("Authorization"), "the key is sent")

			id := regexp.MustCompile(`session (\S+) \(helios run --resume`).FindStringSubmatch(run.stdout)
			require.NotNil(t, id, run.stdout)
			show := helios(t, home, dir, "--config", cfg, "sessions", "show", id[1])
			require.Equal(t, 0, show.code, show.stderr)
			showJSON := helios(t, home, dir, "--config", cfg, "--json", "sessions", "show", id[1])
			require.Equal(t, 0, showJSON.code, showJSON.stderr)

			for _, place := range []struct{ what, text string }{
				{"stdout", run.stdout}, {"stderr", run.stderr}, {"the session log", readTree(t, sessions)},
				{"sessions show", show.stdout + showJSON.stdout}, {"the spans", readTree(t, out)},
			} {
				assert.NotContains(t, place.text, key, "%s holds the key", place.what)
				assert.NotContains(t, place.text, key[8:], "%s holds part of the key", place.what)
			}
			assert.Contains(t, run.stderr, "Incorrect API key provided: Bearer [REDACTED]", "the error still says what the server said")
			assert.Contains(t, run.stderr, "upstream rejected Authorization: Bearer [REDACTED]", "the retry warning")
			assert.Contains(t, run.stdout, "OPENAI_API_KEY=[REDACTED]", "the tool's output as run shows it")
			assert.Contains(t, readTree(t, sessions), "OPENAI_API_KEY=[REDACTED]", "the tool result as stored")
			spans, err := os.ReadFile(filepath.Join(out, "traces.jsonl"))
			require.NoError(t, err)
			assert.Contains(t, string(spans), "Incorrect API key provided: Bearer [REDACTED]", "the chat span's error")
			if capture {
				assert.Contains(t, string(spans), "OPENAI_API_KEY=[REDACTED]", "captured tool output, redacted")
			}
		})
	}
}
