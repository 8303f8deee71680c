//go:build live

package live

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/helios-agents/helios/test/internal/wait"
)

// liveEnv returns the endpoint settings or skips the test.
// HELIOS_LIVE_PROVIDER is "openai" (the default: any OpenAI-compatible
// endpoint, HELIOS_LIVE_BASE_URL required) or "anthropic" (the Messages
// API; HELIOS_LIVE_BASE_URL optional, Anthropic's own by default).
func liveEnv(t *testing.T) (provider, baseURL, model string) {
	t.Helper()
	provider = os.Getenv("HELIOS_LIVE_PROVIDER")
	if provider == "" {
		provider = "openai"
	}
	if provider != "openai" && provider != "anthropic" {
		t.Fatalf("HELIOS_LIVE_PROVIDER=%q: want openai or anthropic", provider)
	}
	need := []string{"HELIOS_LIVE_API_KEY", "HELIOS_LIVE_MODEL"}
	if provider == "openai" {
		need = append([]string{"HELIOS_LIVE_BASE_URL"}, need...)
	}
	var missing []string
	for _, v := range need {
		if os.Getenv(v) == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		t.Skipf("live suite skipped: set %s (for HELIOS_LIVE_PROVIDER=%s: %s)", strings.Join(missing, ", "), provider,
			map[string]string{"openai": "an OpenAI-compatible endpoint, its key and a model name", "anthropic": "an Anthropic key and a Claude model name"}[provider])
	}
	return provider, os.Getenv("HELIOS_LIVE_BASE_URL"), os.Getenv("HELIOS_LIVE_MODEL")
}

// liveKernel writes a real helios.config.json into work and assembles it.
func liveKernel(t *testing.T, ctx context.Context, work string) *kernel.Kernel {
	t.Helper()
	provider, baseURL, model := liveEnv(t)
	modelCfg := map[string]any{"provider": provider, "name": model, "apiKeyEnv": "HELIOS_LIVE_API_KEY"}
	if baseURL != "" {
		modelCfg["baseURL"] = baseURL
	}
	cfg := map[string]any{
		"workDir":  ".",
		"skills":   map[string]any{"userRoots": []string{}, "watch": map[string]any{"mode": "native"}},
		"model":    modelCfg,
		"sessions": map[string]any{"dir": filepath.Join(t.TempDir(), "sessions"), "maxSteps": 15},
	}
	data, _ := json.MarshalIndent(cfg, "", "  ")
	path := filepath.Join(work, "helios.config.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := assembly.Load(ctx, path, assembly.Options{Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// saveTranscript writes the session's events as an artifact.
func saveTranscript(t *testing.T, l session.Log) {
	t.Helper()
	var b strings.Builder
	for i := range l.Len() {
		line, _ := json.Marshal(l.At(i))
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(t.ArtifactDir(), "transcript.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Errorf("saving transcript: %v", err)
	}
	t.Logf("transcript: %s", p)
}

type toolCall struct {
	use    session.Event
	result session.Event
}

// toolCalls pairs each tool_use with its tool_result by id.
func toolCalls(l session.Log) []toolCall {
	results := map[string]session.Event{}
	for i := range l.Len() {
		if ev := l.At(i); ev.Type == session.ToolResult {
			results[ev.ToolUseID] = ev
		}
	}
	var out []toolCall
	for i := range l.Len() {
		if ev := l.At(i); ev.Type == session.ToolUse {
			out = append(out, toolCall{use: ev, result: results[ev.ToolUseID]})
		}
	}
	return out
}

// failed names every tool call whose result is an error: the point of the
// suite is that the model gets it right the first time, not eventually.
func failed(calls []toolCall) []string {
	var out []string
	for _, c := range calls {
		if c.result.IsError {
			out = append(out, fmt.Sprintf("%s %s -> %s", c.use.ToolName, c.use.Input, firstLine(c.result.Text)))
		}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

const collectScript = `#!/bin/sh
# Prints the changes since the last release, from the data beside this skill.
set -eu
cat references/changes.txt | sed 's/^/change: /'
echo "collected $(wc -l < references/changes.txt | tr -d ' ') changes"
`

// The model's first tool call loads the release-notes skill, the skill's
// script runs from the skill's directory, and no tool call fails at all.
func TestLiveSkillScriptFirstTry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	work := t.TempDir()
	dir := filepath.Join(work, ".helios", "skills", "release-notes")
	write(t, filepath.Join(dir, "SKILL.md"), `---
name: release-notes
description: Write the release notes for this project. Use whenever the user asks for release notes or a summary of what changed since the last release.
---
# Release notes

1. Run `+"`scripts/collect.sh`"+` to list the changes since the last release.
2. Write one bullet per change, grouped under "Added" and "Fixed".
3. End with the number of changes the script reported.
`, 0o644)
	write(t, filepath.Join(dir, "scripts", "collect.sh"), collectScript, 0o755)
	write(t, filepath.Join(dir, "references", "changes.txt"), "added: export to CSV\nfixed: crash on empty input\nadded: dark mode\n", 0o644)

	k := liveKernel(t, ctx, work)
	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer saveTranscript(t, s.Log())
	answer, err := s.Run(ctx, "Write the release notes for this project.")
	if err != nil {
		t.Fatal(err)
	}

	calls := toolCalls(s.Log())
	if len(calls) == 0 {
		t.Fatal("the model made no tool call")
	}
	first := calls[0]
	var in struct{ Name string }
	_ = json.Unmarshal(first.use.Input, &in)
	if first.use.ToolName != skills.SkillToolName || in.Name != "release-notes" {
		t.Errorf("first tool call = %s %s, want the skill tool loading release-notes", first.use.ToolName, first.use.Input)
	}
	if !strings.Contains(first.result.Text, "Base directory for this skill: "+dir) {
		t.Errorf("skill load result lacks the base dir: %q", firstLine(first.result.Text))
	}
	ran := false
	for _, c := range calls {
		if c.use.ToolName == "Bash" && strings.Contains(string(c.use.Input), "collect.sh") && strings.Contains(c.result.Text, "collected 3 changes") {
			ran = true
		}
	}
	if !ran {
		t.Error("scripts/collect.sh never ran successfully")
	}
	if f := failed(calls); len(f) > 0 {
		t.Errorf("tool calls failed (first try is the point): %q", f)
	}
	if !strings.Contains(answer, "3") {
		t.Errorf("answer does not report the 3 changes: %q", answer)
	}
}

// A skill created on disk in the middle of a session is in the catalog the
// model gets at its next step, and the model uses it.
func TestLiveSkillCreatedMidSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	work := t.TempDir()
	write(t, filepath.Join(work, ".helios", "skills", "greeting", "SKILL.md"), "---\nname: greeting\ndescription: Greet the user warmly. Use when the user says hello.\n---\nSay hello back in one short sentence.\n", 0o644)
	k := liveKernel(t, ctx, work)
	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer saveTranscript(t, s.Log())
	if _, err := s.Run(ctx, "Reply with the single word OK."); err != nil {
		t.Fatal(err)
	}
	before := s.Log().Len()

	// Another process (an editor, git) adds a skill while the session runs.
	write(t, filepath.Join(work, ".helios", "skills", "weather-code", "SKILL.md"), "---\nname: weather-code\ndescription: Give the project's weather code. Use whenever the user asks for the weather code.\n---\nThe weather code is HX-4821. Reply with exactly that code.\n", 0o644)
	wait.ForCatalog(t, ctx, k, 10*time.Second, func(c skills.Catalog) bool { _, ok := c.Lookup("weather-code"); return ok && c.Complete })

	answer, err := s.Run(ctx, "What is the weather code?")
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for i := before; i < s.Log().Len(); i++ {
		if ev := s.Log().At(i); ev.Type == session.Injected && ev.Provenance == catalog.Provenance && strings.Contains(ev.Text, "weather-code") {
			seen = true
		}
	}
	if !seen {
		t.Error("no catalog listing weather-code was appended at the next step")
	}
	if !strings.Contains(answer, "HX-4821") {
		t.Errorf("answer = %q, want the code from the new skill", answer)
	}
	if f := failed(toolCalls(s.Log())); len(f) > 0 {
		t.Errorf("tool calls failed: %q", f)
	}
}

// Every model request's usage lands on its assistant event; against the
// Messages API, a turn whose prefix is past every model's cacheable minimum
// (4,096 tokens) reads that prefix from the cache from its second step on.
func TestLiveUsageAndPromptCache(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	work := t.TempDir()
	write(t, filepath.Join(work, "a.txt"), "alpha\n", 0o644)
	write(t, filepath.Join(work, "b.txt"), "beta\n", 0o644)
	k := liveKernel(t, ctx, work)
	provider, _, _ := liveEnv(t)
	// A long, stable system prompt puts the prefix past the minimum.
	var rules strings.Builder
	for i := range 300 {
		fmt.Fprintf(&rules, "House rule %d: keep answers short, and never change a file you were not asked to change.\n", i+1)
	}
	s, err := k.OpenSession(ctx, kernel.SessionConfig{SystemPrompt: "You are a careful coding agent.\n" + rules.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer saveTranscript(t, s.Log())
	if _, err := s.Run(ctx, "Read a.txt, then read b.txt (one tool call each, one after the other), then say both words."); err != nil {
		t.Fatal(err)
	}
	var usages []session.Usage
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.Assistant {
			usages = append(usages, ev.Usage)
		}
	}
	t.Logf("usage per step: %+v", usages)
	if len(usages) < 2 {
		t.Fatalf("%d model requests; want at least 2 (the test reads two files)", len(usages))
	}
	for i, u := range usages {
		if u.Input <= 0 || u.Output <= 0 {
			t.Errorf("step %d: usage %+v lacks input or output tokens", i+1, u)
		}
	}
	if provider != "anthropic" {
		return // OpenAI-compatible servers report cached tokens, if at all, in their own way
	}
	if usages[0].CacheWrite == 0 && usages[0].CacheRead == 0 {
		t.Errorf("step 1 neither wrote nor read the prompt cache: %+v", usages[0])
	}
	for i, u := range usages[1:] {
		if u.CacheRead == 0 {
			t.Errorf("step %d read nothing from the prompt cache: %+v", i+2, u)
		}
	}
}
