package unit_test

// Contract C24, the model providers, through the helios binary. The turns
// against each provider's API and the config errors are tested in
// assembly/provider_test.go.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
)

// provKey is the key the provider tests configure (through provKeyEnv).
const (
	provKeyEnv = "HELIOS_TEST_PROVIDER_KEY"
	provKey    = "sk-ant-provider-test-5f2a9c"
)

// provWorld is a work dir with a project skill and a helios.config.json
// (outside the work dir, passed explicitly) for the given model config.
type provWorld struct {
	dir, work, config string
}

func newProvWorld(t *testing.T, modelCfg string) provWorld {
	t.Helper()
	dir := t.TempDir()
	w := provWorld{dir: dir, work: filepath.Join(dir, "work"), config: filepath.Join(dir, "helios.config.json")}
	writeFile(t, filepath.Join(w.work, ".helios", "skills", "deploy", "SKILL.md"),
		skillMD("name: deploy\ndescription: Deploy the app to staging.", "Run `make deploy`."))
	writeFile(t, w.config, `{
  "workDir": "work",
  "skills": {"userRoots": [], "watch": {"mode": "off"}},
  "model": `+modelCfg+`,
  "sessions": {"dir": "sessions"},
  "tools": {"sandbox": {"mode": "off"}},
  "telemetry": {"traces": {"exporter": "file", "path": "trace.jsonl"}}
}`)
	t.Setenv(provKeyEnv, provKey)
	return w
}

func provToUsage(u model.Usage) session.Usage {
	return session.Usage{Input: u.PromptTokens, Output: u.CompletionTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens}
}

// Protects C24 end to end: `helios run --json` against the Messages API
// reports each step's usage with its cache tokens, the chat spans carry
// them as gen_ai.usage.* attributes, and `helios sessions show` sums them.
func TestAnthropicUsageReachesRunJSONAndSpans(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t,
		modeltest.Call("Bash", `{"command":"echo hi"}`),
		func(modeltest.Recorded) modeltest.Reply { return modeltest.Reply{Text: "All done.", Chunked: true} },
	)
	w := newProvWorld(t, `{"provider": "anthropic", "baseURL": "`+srv.URL()+`", "name": "claude-sonnet-4-5", "apiKeyEnv": "`+provKeyEnv+`"}`)
	home := t.TempDir()
	r := helios(t, home, w.work, "--config", w.config, "--json", "run", "Say hi.")
	require.Zero(t, r.code, "helios run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)

	var usages []session.Usage
	var id string
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var line struct {
			Kind    string        `json:"kind"`
			Usage   session.Usage `json:"usage"`
			Session string        `json:"session"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "line %q", sc.Text())
		switch line.Kind {
		case "usage":
			usages = append(usages, line.Usage)
		case "done":
			id = line.Session
		}
	}
	want := []session.Usage{provToUsage(reqs[0].Usage), provToUsage(reqs[1].Usage)}
	assert.Empty(t, cmp.Diff(want, usages), "run --json usage updates (-server +printed)")
	assert.Positive(t, usages[1].CacheRead, "step 2 read nothing from the cache")
	assert.NotContains(t, r.stdout+r.stderr, provKey, "the key was printed")

	var reported []session.Usage
	for _, s := range newTelTree(telFileSpans(t, filepath.Join(w.dir, "trace.jsonl"))).named("chat claude-sonnet-4-5") {
		var u session.Usage
		for key, dst := range map[string]*int{"gen_ai.usage.input_tokens": &u.Input, "gen_ai.usage.output_tokens": &u.Output,
			"gen_ai.usage.cache_read.input_tokens": &u.CacheRead, "gen_ai.usage.cache_creation.input_tokens": &u.CacheWrite} {
			v, ok := s.Attr(key)
			require.True(t, ok, "chat span lacks %s", key)
			fmt.Sscan(v, dst)
		}
		assertAttrs(t, s, map[string]string{"gen_ai.provider.name": "anthropic"})
		reported = append(reported, u)
	}
	assert.ElementsMatch(t, want, reported, "chat span usage")

	r = helios(t, home, w.work, "--config", w.config, "sessions", "show", id, "--json")
	require.Zero(t, r.code, "sessions show: %s", r.stderr)
	var shown struct {
		Usage    session.Usage `json:"usage"`
		Requests int           `json:"requests"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &shown))
	assert.Equal(t, want[0].Add(want[1]), shown.Usage, "sessions show --json: the sum")
	assert.Equal(t, 2, shown.Requests)
	r = helios(t, home, w.work, "--config", w.config, "sessions", "show", id)
	require.Zero(t, r.code, "sessions show: %s", r.stderr)
	assert.Contains(t, r.stdout, fmt.Sprintf("%d out, 2 requests", want[0].Output+want[1].Output), "sessions show: the sum line")
}

// Protects C24 bad input through the CLI: a config error (here
// model.maxTokens) is said on stderr, and the run exits 1. The errors
// themselves are tested in assembly/provider_test.go.
func TestProviderConfigErrorsCLI(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	writeFile(t, cfg, `{"model": {"provider": "anthropic", "name": "claude-sonnet-4-5", "maxTokens": 0}}`)
	r := helios(t, t.TempDir(), dir, "--config", cfg, "run", "hi")
	assert.Equal(t, 1, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stderr, "model.maxTokens")
}

// Protects C24, C19: a refused key reaches the person as one line with the
// key removed, even from a server that echoes it; the run exits 1.
func TestAnthropicUnauthorizedCLI(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Fail(401, "invalid x-api-key "+provKey))
	w := newProvWorld(t, `{"provider": "anthropic", "baseURL": "`+srv.URL()+`", "name": "claude-sonnet-4-5", "apiKeyEnv": "`+provKeyEnv+`"}`)
	r := helios(t, t.TempDir(), w.work, "--config", w.config, "run", "hi")
	assert.Equal(t, 1, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "HTTP 401")
	assert.Contains(t, r.stderr, "the API key was refused")
	assert.NotContains(t, r.stdout+r.stderr, provKey, "the key was printed")
	data, err := os.ReadFile(filepath.Join(w.dir, "trace.jsonl"))
	require.NoError(t, err)
	assert.NotContains(t, string(data), provKey, "the key reached a span")
}
