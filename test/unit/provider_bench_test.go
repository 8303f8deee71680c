package unit_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
)

// BenchmarkAnthropicCacheEligible runs a 20-step turn against the scripted
// Messages API (each step reads a 2 KB file; a skill appears while step 9
// runs, so step 10's request carries the changed catalog) and reports how
// much of each request the prompt cache serves, in bytes of canonical
// blocks (the scripted server counts four a token):
//
//	cached-B/step   bytes read from the cache, per step
//	prompt-B/step   bytes of the whole request, per step
//	cached-ratio    the two summed over the turn
//	step10-ratio    the same at the catalog change
//
// "catalog" is Helios's default (the change is an appended message);
// "tools" is skills.mode "tools" beside it (the change rewrites the tool
// list, which comes first), the baseline the catalog design answers.
func BenchmarkAnthropicCacheEligible(b *testing.B) {
	for _, mode := range []string{"catalog", "tools"} {
		b.Run(mode, func(b *testing.B) {
			var cached, prompt, cached10, prompt10 int
			turns := 0
			for b.Loop() {
				reqs := provBenchTurn(b, mode)
				for i, r := range reqs {
					cached += r.Usage.CacheReadTokens * 4
					prompt += r.Usage.PromptTokens * 4
					if i == 9 {
						cached10 += r.Usage.CacheReadTokens * 4
						prompt10 += r.Usage.PromptTokens * 4
					}
				}
				turns++
			}
			steps := float64(turns * 20)
			b.ReportMetric(float64(cached)/steps, "cached-B/step")
			b.ReportMetric(float64(prompt)/steps, "prompt-B/step")
			b.ReportMetric(float64(cached)/float64(prompt), "cached-ratio")
			b.ReportMetric(float64(cached10)/float64(prompt10), "step10-ratio")
		})
	}
}

// provBenchTurn runs one 20-step turn and returns the requests.
func provBenchTurn(b *testing.B, mode string) []modeltest.Recorded {
	b.Helper()
	dir := b.TempDir()
	work := filepath.Join(dir, "work")
	for _, name := range []string{"deploy", "pdf", "release-notes"} {
		writeFileB(b, filepath.Join(work, ".helios", "skills", name, "SKILL.md"),
			skillMD("name: "+name+"\ndescription: The "+name+" skill: use it when the task is about "+name+".", "Body."))
	}
	writeFileB(b, filepath.Join(work, "notes.txt"), strings.Repeat("a line of notes about the build, fifty bytes long.\n", 40))
	var script []modeltest.Step
	for i := range 20 {
		switch {
		case i == 8:
			script = append(script, func(modeltest.Recorded) modeltest.Reply {
				writeFileB(b, filepath.Join(work, ".helios", "skills", "review", "SKILL.md"),
					skillMD("name: review\ndescription: Review a change before it lands.", "Body."))
				return modeltest.Reply{ToolCalls: provRead()}
			})
		case i == 19:
			script = append(script, modeltest.Say("Done."))
		default:
			script = append(script, func(modeltest.Recorded) modeltest.Reply { return modeltest.Reply{ToolCalls: provRead()} })
		}
	}
	srv := modeltest.StartAnthropic(script...)
	defer srv.Close()
	cfg := filepath.Join(dir, "helios.config.json")
	writeFileB(b, cfg, `{
  "workDir": "work",
  "skills": {"mode": "`+mode+`", "userRoots": [], "watch": {"mode": "off"}},
  "model": {"provider": "anthropic", "baseURL": "`+srv.URL()+`", "name": "claude-sonnet-4-5", "apiKeyEnv": ""},
  "sessions": {"dir": "sessions", "maxSteps": 20}
}`)
	k, err := assembly.Load(context.Background(), cfg, assembly.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	s, err := k.OpenSession(context.Background(), kernel.SessionConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(context.Background(), "Read the notes twenty times."); err != nil {
		b.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 20 {
		b.Fatalf("%d requests, want 20", len(reqs))
	}
	return reqs
}

func provRead() []model.ToolCall {
	return []model.ToolCall{{Name: "Read", Arguments: json.RawMessage(`{"path":"notes.txt"}`)}}
}

func writeFileB(b *testing.B, path, content string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}
