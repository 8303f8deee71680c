package assembly_test

// Contract C24: a kernel assembled for each model provider (model.provider)
// against a scripted server speaking that provider's API, and the
// provider's config errors.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
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
	provWriteFile(t, filepath.Join(w.work, ".helios", "skills", "deploy", "SKILL.md"),
		provSkillMD("name: deploy\ndescription: Deploy the app to staging.", "Run `make deploy`."))
	provWriteFile(t, w.config, `{
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

func (w provWorld) kernel(t *testing.T) *kernel.Kernel {
	t.Helper()
	k, err := assembly.Load(t.Context(), w.config, assembly.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	return k
}

func provToUsage(u model.Usage) session.Usage {
	return session.Usage{Input: u.PromptTokens, Output: u.CompletionTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens}
}

// Protects C24: a multi-step turn against the Messages API — the skill
// tool, then Bash, while a skill appears mid-turn — pairs every
// tool_result with its tool_use by id (the scripted server refuses any
// other pairing), carries three or four cache breakpoints, renders each
// step's cached prefix again byte for byte (across the catalog change too:
// the new catalog is appended and takes the catalog breakpoint), so every
// step after the first reads the whole previous prefix from the cache; and
// each step's usage, cache tokens included, is on its assistant event.
func TestAnthropicTurnCachesThePrefix(t *testing.T) {
	var w provWorld
	srv := modeltest.NewAnthropicServer(t,
		modeltest.Call("skill", `{"name":"deploy"}`),
		func(r modeltest.Recorded) modeltest.Reply {
			// The catalog changes while the turn runs.
			provWriteFile(t, filepath.Join(w.work, ".helios", "skills", "review", "SKILL.md"),
				provSkillMD("name: review\ndescription: Review a change.", "Read the diff."))
			return modeltest.Reply{ToolCalls: []model.ToolCall{{Name: "Bash", Arguments: json.RawMessage(`{"command":"echo deployed"}`)}}}
		},
		modeltest.Say("Deployed."),
	)
	w = newProvWorld(t, `{"provider": "anthropic", "baseURL": "`+srv.URL()+`", "name": "claude-sonnet-4-5", "apiKeyEnv": "`+provKeyEnv+`"}`)
	k := w.kernel(t)
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	answer, err := s.Run(ctx, "Deploy it.")
	require.NoError(t, err)
	assert.Equal(t, "Deployed.", answer)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	for i, r := range reqs {
		assert.Equal(t, provKey, r.Header.Get("X-Api-Key"), "request %d: x-api-key", i+1)
	}

	// Pairing: each tool result answers the call right before it.
	last := reqs[2].Messages
	var calls, results []string
	for _, m := range last {
		for _, c := range m.ToolCalls {
			calls = append(calls, c.ID+" "+c.Name)
		}
		if m.Role == model.RoleTool {
			results = append(results, m.ToolCallID)
		}
	}
	require.Len(t, calls, 2, "calls in the last request: %v", calls)
	assert.Equal(t, []string{strings.Fields(calls[0])[0], strings.Fields(calls[1])[0]}, results, "results pair with calls by id, in order")
	assert.Contains(t, calls[0], "skill")
	assert.Contains(t, calls[1], "Bash")

	// The catalogs: one at first, a second appended after the change; the
	// breakpoint sits on the newest only.
	var catalogs []model.Message
	for _, m := range last {
		if strings.Contains(m.Content, "<available_skills>") {
			catalogs = append(catalogs, m)
		}
	}
	require.Len(t, catalogs, 2, "want the first catalog and the appended replacement")
	assert.NotContains(t, catalogs[0].Content, "review")
	assert.Contains(t, catalogs[1].Content, "review")
	assert.False(t, catalogs[0].CachePoint, "the old catalog still carries a breakpoint")
	assert.True(t, catalogs[1].CachePoint, "the new catalog carries no breakpoint")

	assert.Len(t, reqs[0].Breakpoints, 3, "step 1: tools, system, the catalog (the last message)")
	assert.Len(t, reqs[1].Breakpoints, 4, "step 2: tools, system, the catalog, the last block")
	assert.Len(t, reqs[2].Breakpoints, 3, "step 3: tools, system, the new catalog (the last message)")
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1], reqs[i]
		n := prev.Breakpoints[len(prev.Breakpoints)-1] + 1
		require.GreaterOrEqual(t, len(cur.Blocks), n)
		assert.Empty(t, cmp.Diff(prev.Blocks[:n], cur.Blocks[:n]), "step %d rewrote step %d's cached prefix (-before +after)", i+1, i)
		assert.Equal(t, len(strings.Join(prev.Blocks[:n], ""))/4, cur.Usage.CacheReadTokens, "step %d: want step %d's whole prefix read from the cache", i+1, i)
	}

	var got []session.Usage
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.Assistant {
			got = append(got, ev.Usage)
		}
	}
	var want []session.Usage
	for _, r := range reqs {
		want = append(want, provToUsage(r.Usage))
	}
	assert.Empty(t, cmp.Diff(want, got), "usage on the assistant events (-server +session)")
	assert.Positive(t, got[2].CacheRead)
	assert.Positive(t, got[0].CacheWrite)
}

// Protects C24 on the OpenAI side: cached_tokens reach the session events,
// and with model.promptCacheKey the session ID travels as
// prompt_cache_key (never without it).
func TestOpenAICachedTokensAndPromptCacheKey(t *testing.T) {
	for _, key := range []bool{false, true} {
		t.Run(fmt.Sprintf("promptCacheKey=%v", key), func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Call("Glob", `{"pattern":"*"}`), modeltest.Say("ok"))
			w := newProvWorld(t, fmt.Sprintf(`{"baseURL": %q, "name": "gpt-x", "apiKeyEnv": %q, "promptCacheKey": %v}`, srv.URL(), provKeyEnv, key))
			k := w.kernel(t)
			s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
			require.NoError(t, err)
			defer s.Close()
			_, err = s.Run(t.Context(), "Look around.")
			require.NoError(t, err)
			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			for _, r := range reqs {
				if key {
					assert.Equal(t, s.ID(), r.CacheKey, "prompt_cache_key")
				} else {
					assert.Empty(t, r.CacheKey, "prompt_cache_key sent without model.promptCacheKey")
				}
			}
			var got []session.Usage
			for i := range s.Log().Len() {
				if ev := s.Log().At(i); ev.Type == session.Assistant {
					got = append(got, ev.Usage)
				}
			}
			require.Len(t, got, 2)
			assert.Equal(t, provToUsage(reqs[1].Usage), got[1])
			assert.Positive(t, got[1].CacheRead, "cached_tokens did not reach the session")
		})
	}
}

// Protects C24 bad input: the provider and maxTokens are checked when the
// config is read, each error naming its JSON path.
func TestProviderConfigErrors(t *testing.T) {
	tests := []struct {
		config string
		want   []string
	}{
		{`{"model": {"provider": "claude"}}`, []string{"model.provider", `unknown value "claude"`, "openai, anthropic"}},
		{`{"model": {"provider": 1}}`, []string{"model.provider", "want a string"}},
		{`{"model": {"maxTokens": 0}}`, []string{"model.maxTokens", "must be positive (got 0)"}},
		{`{"model": {"provider": "anthropic", "maxTokens": -5}}`, []string{"model.maxTokens", "must be positive (got -5)"}},
		{`{"model": {"maxTokens": "many"}}`, []string{"model.maxTokens", "want a whole number"}},
		{`{"model": {"provider": "anthropic", "promptCacheKey": true}}`, []string{"model.promptCacheKey", `provider "openai" only`}},
	}
	for _, tt := range tests {
		_, err := assembly.ParseConfig("helios.config.json", []byte(tt.config))
		require.Error(t, err, "%s", tt.config)
		assert.ErrorIs(t, err, assembly.ErrConfig)
		for _, w := range tt.want {
			assert.Contains(t, err.Error(), w, "%s", tt.config)
		}
	}
	for _, ok := range []string{`{"model": {"provider": "anthropic", "name": "claude-sonnet-4-5", "maxTokens": 1}}`, `{"model": {"provider": "openai"}}`, `{"model": {"promptCacheKey": true}}`} {
		_, err := assembly.ParseConfig("helios.config.json", []byte(ok))
		assert.NoError(t, err, "%s", ok)
	}
}

// Protects C24 bad input: a server speaking the other provider's API is
// one error naming model.provider, whichever way round, and no retries.
func TestProviderMismatchNamesTheSetting(t *testing.T) {
	anthropicStream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	openaiStream := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n" +
		"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	tests := []struct {
		name, provider, body, want string
	}{
		{"anthropic config, OpenAI server", "anthropic", openaiStream, `set it to "openai"`},
		{"openai config, Anthropic server", "openai", anthropicStream, `set it to "anthropic"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requests := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests++
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			base := srv.URL
			if tt.provider == "openai" {
				base += "/v1"
			}
			w := newProvWorld(t, fmt.Sprintf(`{"provider": %q, "baseURL": %q, "name": "m", "apiKeyEnv": %q}`, tt.provider, base, provKeyEnv))
			k := w.kernel(t)
			s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
			require.NoError(t, err)
			defer s.Close()
			_, err = s.Run(t.Context(), "hi")
			require.Error(t, err)
			assert.ErrorIs(t, err, model.ErrMalformed)
			assert.Contains(t, err.Error(), "model.provider")
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, 1, requests, "a format mismatch was retried")
		})
	}
}

// Protects C24: a compaction rewrites the conversation, never what comes
// before it: the tools and the system prompt stay byte for byte what the
// previous step cached, and are read from the cache; the catalog the
// compaction hid comes back as a new message carrying the breakpoint; the
// next turn reads the whole compacted prefix again.
func TestAnthropicCompactionKeepsToolsAndSystemCached(t *testing.T) {
	var w provWorld
	srv := modeltest.NewAnthropicServer(t,
		modeltest.Call("Read", `{"path":"notes.txt"}`),
		modeltest.Call("Read", `{"path":"notes.txt"}`),
		func(r modeltest.Recorded) modeltest.Reply { // the compactor's request
			return modeltest.Reply{Text: "The notes were read twice; they list the build steps."}
		},
		modeltest.Say("Read them."),
		modeltest.Say("Still read."),
	)
	w = newProvWorld(t, `{"provider": "anthropic", "baseURL": "`+srv.URL()+`", "name": "claude-sonnet-4-5", "apiKeyEnv": "`+provKeyEnv+`"}`)
	provWriteFile(t, filepath.Join(w.work, "notes.txt"), strings.Repeat("step: make build && make test\n", 50))
	cfg, err := os.ReadFile(w.config)
	require.NoError(t, err)
	provWriteFile(t, w.config, strings.Replace(string(cfg), `"sessions": {"dir": "sessions"}`, `"sessions": {"dir": "sessions", "contextBudget": 2500}`, 1))
	k := w.kernel(t)
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "Read the notes twice.")
	require.NoError(t, err)
	_, err = s.Run(t.Context(), "Again?")
	require.NoError(t, err)

	compacted := false
	for i := range s.Log().Len() {
		compacted = compacted || s.Log().At(i).Type == session.Compaction
	}
	require.True(t, compacted, "no compaction happened; the test needs one")
	reqs := srv.Requests()
	require.Len(t, reqs, 5)
	before, after, next := reqs[1], reqs[3], reqs[4]
	assert.True(t, strings.HasPrefix(reqs[2].System, "Summarize"), "request 3 should be the compactor's")

	// Tools and system: the first breakpoints of both requests, the same
	// blocks, read from the cache after the compaction.
	require.GreaterOrEqual(t, len(before.Breakpoints), 2)
	require.GreaterOrEqual(t, len(after.Breakpoints), 2)
	sys := before.Breakpoints[1] + 1
	assert.Equal(t, sys, after.Breakpoints[1]+1, "the system breakpoint moved")
	assert.Empty(t, cmp.Diff(before.Blocks[:sys], after.Blocks[:sys]), "the compaction rewrote the tools or the system prompt (-before +after)")
	assert.Equal(t, len(strings.Join(after.Blocks[:sys], ""))/4, after.Usage.CacheReadTokens, "after the compaction, want the tools and system read from the cache")
	assert.LessOrEqual(t, len(after.Breakpoints), 4)

	var catalogs int
	for _, m := range after.Messages {
		if strings.Contains(m.Content, "<available_skills>") {
			catalogs++
			assert.True(t, m.CachePoint, "the re-established catalog carries no breakpoint")
		}
	}
	assert.Equal(t, 1, catalogs, "the catalog the compaction hid is back, once")

	n := after.Breakpoints[len(after.Breakpoints)-1] + 1
	assert.Empty(t, cmp.Diff(after.Blocks[:n], next.Blocks[:n]), "the next turn rewrote the compacted prefix (-before +after)")
	assert.Equal(t, len(strings.Join(after.Blocks[:n], ""))/4, next.Usage.CacheReadTokens, "the next turn should read the whole compacted prefix")
}

// provWriteFile creates path (and its parents) with content.
func provWriteFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// provSkillMD renders a SKILL.md with the given frontmatter lines and body.
func provSkillMD(frontmatter, body string) string {
	return "---\n" + frontmatter + "\n---\n" + body
}
