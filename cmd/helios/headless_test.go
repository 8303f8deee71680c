package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
)

// headlessKeyEnv holds the scripted Messages API's key in these tests.
const headlessKeyEnv = "HELIOS_TEST_HEADLESS_KEY"

// headlessWorld is a work dir and a config whose model is srv (the
// Messages API, so the prompt cache's tokens are reported).
func headlessWorld(t *testing.T, srv *modeltest.Server, sessions string) (home, work, cfg string) {
	t.Helper()
	t.Setenv(headlessKeyEnv, "test-key")
	home, work = t.TempDir(), t.TempDir()
	cfg = filepath.Join(t.TempDir(), "helios.config.json")
	writeFile(t, cfg, `{"workDir": "`+work+`", "skills": {"userRoots": []},
  "model": {"provider": "anthropic", "baseURL": "`+srv.URL()+`", "name": "claude-scripted", "apiKeyEnv": "`+headlessKeyEnv+`"},
  "tools": {"sandbox": {"mode": "off"}},
  "sessions": {"dir": "`+sessions+`"}}`)
	return home, work, cfg
}

// streamEvents parses stream-json output: one JSON object a line, each
// checked against Claude Code's documented shape of its type.
func streamEvents(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), "line %q is not a JSON object", sc.Text())
		checkClaudeEvent(t, ev)
		evs = append(evs, ev)
	}
	require.NotEmpty(t, evs, "no events")
	return evs
}

// checkClaudeEvent asserts ev has the fields Claude Code's stream-json
// gives its type and subtype, with their JSON types.
func checkClaudeEvent(t *testing.T, ev map[string]any) {
	t.Helper()
	isString := func(m map[string]any, keys ...string) {
		for _, k := range keys {
			assert.IsType(t, "", m[k], "%s.%s in %v", ev["type"], k, ev)
		}
	}
	isNumber := func(m map[string]any, keys ...string) {
		for _, k := range keys {
			assert.IsType(t, float64(0), m[k], "%s.%s in %v", ev["type"], k, ev)
		}
	}
	isUsage := func(u any) {
		m, ok := u.(map[string]any)
		if assert.True(t, ok, "usage is not an object: %v", ev) {
			isNumber(m, "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
		}
	}
	object := func(v any) map[string]any {
		m, ok := v.(map[string]any)
		require.True(t, ok, "not an object: %v in %v", v, ev)
		return m
	}
	blocks := func(msg map[string]any) []any {
		c, ok := msg["content"].([]any)
		require.True(t, ok, "message.content is not an array: %v", ev)
		require.NotEmpty(t, c)
		return c
	}
	isString(ev, "type", "session_id", "uuid")
	switch ev["type"] {
	case "system":
		isString(ev, "subtype")
		if ev["subtype"] != "init" {
			return
		}
		isString(ev, "cwd", "model")
		for _, k := range []string{"tools", "mcp_servers", "slash_commands"} {
			assert.IsType(t, []any{}, ev[k], "system.%s", k)
		}
		for _, s := range ev["mcp_servers"].([]any) {
			isString(object(s), "name", "status")
		}
	case "assistant":
		assert.Contains(t, ev, "parent_tool_use_id")
		msg := object(ev["message"])
		isString(msg, "id", "model")
		assert.Equal(t, "message", msg["type"])
		assert.Equal(t, "assistant", msg["role"])
		isUsage(msg["usage"])
		for _, b := range blocks(msg) {
			b := object(b)
			switch b["type"] {
			case "text":
				isString(b, "text")
			case "tool_use":
				isString(b, "id", "name")
				assert.IsType(t, map[string]any{}, b["input"])
			default:
				t.Errorf("assistant block of type %v", b["type"])
			}
		}
	case "user":
		msg := object(ev["message"])
		assert.Equal(t, "user", msg["role"])
		for _, b := range blocks(msg) {
			b := object(b)
			assert.Equal(t, "tool_result", b["type"])
			isString(b, "tool_use_id", "content")
			assert.IsType(t, false, b["is_error"])
		}
	case "result":
		isString(ev, "subtype", "result")
		assert.Contains(t, []any{"success", "error_max_turns", "error_during_execution"}, ev["subtype"])
		assert.IsType(t, false, ev["is_error"])
		isNumber(ev, "num_turns", "duration_ms", "duration_api_ms")
		isUsage(ev["usage"])
	default:
		t.Errorf("event of type %v", ev["type"])
	}
}

// ofType returns the events of a type.
func ofType(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

// blockOf returns the first content block of a message event.
func blockOf(ev map[string]any) map[string]any {
	return ev["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
}

// A turn with a Bash call as stream-json, in Claude Code's order and shape;
// then --resume continues the same session, the model seeing the first turn.
func TestRunStreamJSONToolUseAndResume(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t,
		modeltest.Call("Bash", `{"command":"echo hi-from-bash"}`),
		func(modeltest.Recorded) modeltest.Reply { return modeltest.Reply{Text: "It said hi.", Chunked: true} },
		func(req modeltest.Recorded) modeltest.Reply {
			var seen []string
			for _, m := range req.Messages {
				seen = append(seen, m.Content)
			}
			all := strings.Join(seen, "\n")
			if !strings.Contains(all, "run it") || !strings.Contains(all, "It said hi.") {
				return modeltest.Reply{Status: 400, ErrorMessage: "the resumed request lacks the first turn: " + all}
			}
			return modeltest.Reply{Text: "Still here."}
		},
	)
	home, work, cfg := headlessWorld(t, srv, filepath.Join(t.TempDir(), "sessions"))
	writeFile(t, filepath.Join(work, ".claude/commands/fix.md"), "Fix $ARGUMENTS\n")

	r := helios(t, home, work, "--config", cfg, "run", "-p", "--verbose", "--output-format", "stream-json", "run it")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	evs := streamEvents(t, r.stdout)
	var kinds []string
	for _, ev := range evs {
		k := ev["type"].(string)
		if ev["type"] == "assistant" || ev["type"] == "user" {
			k += "/" + blockOf(ev)["type"].(string)
		} else {
			k += "/" + ev["subtype"].(string)
		}
		kinds = append(kinds, k)
	}
	assert.Equal(t, []string{"system/init", "assistant/tool_use", "user/tool_result", "assistant/text", "result/success"}, kinds)

	init, last := evs[0], evs[len(evs)-1]
	id := init["session_id"].(string)
	require.NotEmpty(t, id)
	for _, ev := range evs {
		assert.Equal(t, id, ev["session_id"], "every event carries the session id: %v", ev)
	}
	assert.Equal(t, work, init["cwd"])
	assert.Equal(t, "claude-scripted", init["model"])
	assert.Contains(t, init["tools"], "Bash")
	assert.Equal(t, []any{"fix"}, init["slash_commands"])
	assert.Equal(t, []any{}, init["mcp_servers"])

	use, res := blockOf(evs[1]), blockOf(evs[2])
	assert.Equal(t, "Bash", use["name"])
	assert.Equal(t, map[string]any{"command": "echo hi-from-bash"}, use["input"])
	assert.Equal(t, use["id"], res["tool_use_id"])
	assert.Contains(t, res["content"], "hi-from-bash")
	assert.Equal(t, false, res["is_error"])
	assert.Equal(t, "It said hi.", blockOf(evs[3])["text"])

	assert.Equal(t, false, last["is_error"])
	assert.Equal(t, "It said hi.", last["result"])
	assert.EqualValues(t, 2, last["num_turns"])
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	u := last["usage"].(map[string]any)
	in := reqs[0].Usage.PromptTokens + reqs[1].Usage.PromptTokens
	read := reqs[0].Usage.CacheReadTokens + reqs[1].Usage.CacheReadTokens
	write := reqs[0].Usage.CacheWriteTokens + reqs[1].Usage.CacheWriteTokens
	assert.Positive(t, read, "the scripted cache read nothing")
	assert.EqualValues(t, read, u["cache_read_input_tokens"])
	assert.EqualValues(t, write, u["cache_creation_input_tokens"])
	assert.EqualValues(t, in-read-write, u["input_tokens"], "input_tokens counts what the cache neither read nor wrote")
	assert.EqualValues(t, reqs[0].Usage.CompletionTokens+reqs[1].Usage.CompletionTokens, u["output_tokens"])

	r = helios(t, home, work, "--config", cfg, "run", "--resume", id, "--output-format", "stream-json", "still there?")
	require.Equal(t, 0, r.code, "resume: stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	evs = streamEvents(t, r.stdout)
	assert.Equal(t, id, evs[0]["session_id"], "init of the resumed run")
	last = evs[len(evs)-1]
	assert.Equal(t, id, last["session_id"], "result of the resumed run")
	assert.Equal(t, "Still here.", last["result"])
	assert.Len(t, srv.Requests(), 3)
}

// --output-format json prints the result object alone.
func TestRunOutputFormatJSON(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Call("Bash", `{"command":"true"}`), modeltest.Say("Done."))
	home, work, cfg := headlessWorld(t, srv, filepath.Join(t.TempDir(), "sessions"))
	r := helios(t, home, work, "--config", cfg, "run", "-p", "go", "--output-format", "json")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, 1, strings.Count(r.stdout, "\n"), "one line: %s", r.stdout)
	evs := streamEvents(t, r.stdout)
	assert.Equal(t, "result", evs[0]["type"])
	assert.Equal(t, "success", evs[0]["subtype"])
	assert.Equal(t, "Done.", evs[0]["result"])
	assert.EqualValues(t, 2, evs[0]["num_turns"])
}

// duration_api_ms counts the time to each model answer and not the tools'
// time, which duration_ms includes.
func TestRunResultDurations(t *testing.T) {
	slow := func(r modeltest.Reply) modeltest.Step {
		return func(modeltest.Recorded) modeltest.Reply {
			time.Sleep(100 * time.Millisecond) // the model's time to answer
			return r
		}
	}
	srv := modeltest.NewAnthropicServer(t,
		slow(modeltest.Reply{ToolCalls: []model.ToolCall{{Name: "Bash", Arguments: json.RawMessage(`{"command":"sleep 0.3"}`)}}}),
		slow(modeltest.Reply{Text: "slept"}))
	home, work, cfg := headlessWorld(t, srv, filepath.Join(t.TempDir(), "sessions"))
	r := helios(t, home, work, "--config", cfg, "run", "-p", "nap", "--output-format", "json")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	res := streamEvents(t, r.stdout)[0]
	api, total := res["duration_api_ms"].(float64), res["duration_ms"].(float64)
	assert.GreaterOrEqual(t, api, 200.0, "two answers of 100 ms each")
	assert.GreaterOrEqual(t, total, api+300, "the tool's 300 ms count in duration_ms, not in duration_api_ms")
}

// --input-format stream-json: each user line on stdin is one turn of one
// session, with a result each; the second turn's request holds the first.
func TestRunInputFormatStreamJSON(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t,
		modeltest.Say("first answer"),
		func(req modeltest.Recorded) modeltest.Reply {
			var seen []string
			for _, m := range req.Messages {
				seen = append(seen, m.Content)
			}
			return modeltest.Reply{Text: "second answer after: " + strings.Join(seen, " | ")}
		},
	)
	home, work, cfg := headlessWorld(t, srv, filepath.Join(t.TempDir(), "sessions"))
	stdin := `{"type":"user","message":{"role":"user","content":"turn one"}}` + "\n\n" +
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"turn two"}]},"session_id":"ignored"}` + "\n"
	r := heliosStdin(t, home, work, stdin, "--config", cfg, "run", "--input-format", "stream-json", "--output-format", "stream-json")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	evs := streamEvents(t, r.stdout)
	results := ofType(evs, "result")
	require.Len(t, results, 2, r.stdout)
	assert.Len(t, ofType(evs, "system"), 1, "one init for the session")
	assert.Equal(t, "first answer", results[0]["result"])
	assert.Contains(t, results[1]["result"], "turn one")
	assert.Contains(t, results[1]["result"], "first answer")
	assert.Contains(t, results[1]["result"], "turn two")
	assert.Equal(t, evs[0]["session_id"], results[0]["session_id"])
	assert.Equal(t, evs[0]["session_id"], results[1]["session_id"])
	assert.Len(t, srv.Requests(), 2)
}

// A failed turn of --input-format stream-json does not stop the next: each
// has its result, and helios exits 1.
func TestRunInputFormatStreamJSONGoesOnAfterAFailedTurn(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Fail(400, "bad request today"), modeltest.Say("second ok"))
	home, work, cfg := headlessWorld(t, srv, filepath.Join(t.TempDir(), "sessions"))
	stdin := `{"type":"user","message":{"role":"user","content":"one"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"two"}}` + "\n"
	r := heliosStdin(t, home, work, stdin, "--config", cfg, "run", "--input-format", "stream-json", "--output-format", "stream-json")
	assert.Equal(t, exitFail, r.code, r.stderr)
	results := ofType(streamEvents(t, r.stdout), "result")
	require.Len(t, results, 2, r.stdout)
	assert.Equal(t, true, results[0]["is_error"])
	assert.Equal(t, "error_during_execution", results[0]["subtype"])
	assert.Equal(t, false, results[1]["is_error"])
	assert.Equal(t, "second ok", results[1]["result"])
}

// A failed turn ends in a result with is_error true and the subtype that
// says why, and helios exits 1: the model's error, and the step limit
// reached while the model still calls tools.
func TestRunStreamJSONFailedTurn(t *testing.T) {
	for _, tc := range []struct {
		name, subtype, says string
		step                modeltest.Step
		args                []string
	}{
		{"model error", "error_during_execution", "overloaded today", modeltest.Fail(400, "overloaded today"), nil},
		{"max turns", "error_max_turns", "limit of 1", modeltest.Call("Bash", `{"command":"true"}`), []string{"--max-turns", "1"}},
	} {
		for _, format := range []string{"stream-json", "json"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				srv := modeltest.NewAnthropicServer(t, tc.step)
				home, work, cfg := headlessWorld(t, srv, filepath.Join(t.TempDir(), "sessions"))
				r := helios(t, home, work, append([]string{"--config", cfg, "run", "-p", "--output-format", format, "fail"}, tc.args...)...)
				assert.Equal(t, exitFail, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
				evs := streamEvents(t, r.stdout)
				if format == "json" {
					assert.Len(t, evs, 1, "the result alone")
				}
				last := evs[len(evs)-1]
				assert.Equal(t, "result", last["type"])
				assert.Equal(t, tc.subtype, last["subtype"])
				assert.Equal(t, true, last["is_error"])
				assert.Contains(t, last["errors"], last["result"])
				assert.Contains(t, last["result"], tc.says)
				assert.Contains(t, r.stderr, tc.says)
			})
		}
	}
}

// Bad flags and bad input lines are refused, naming the flag or the line,
// its JSON path and the reason; the turns before a bad line still run.
func TestRunHeadlessBadInput(t *testing.T) {
	srv := modeltest.NewAnthropicServer(t, modeltest.Say("ok"))
	home, work, cfg := headlessWorld(t, srv, filepath.Join(t.TempDir(), "sessions"))
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--output-format", "yaml", "x"}, `--output-format "yaml"`},
		{[]string{"--input-format", "stream-json"}, "needs --output-format stream-json"},
		{[]string{"--input-format", "stream-json", "--output-format", "stream-json", "x"}, "reads the prompts from stdin"},
		{[]string{"--output-format", "json"}, "run needs a PROMPT"},
	} {
		r := helios(t, home, work, append([]string{"--config", cfg, "run"}, tc.args...)...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.says, "%v", tc.args)
	}
	r := helios(t, home, work, "--config", cfg, "--json", "run", "--output-format", "stream-json", "x")
	assert.Equal(t, exitUsage, r.code, r.stderr)
	assert.Contains(t, r.stderr, "choose one")

	stdin := `{"type":"user","message":{"role":"user","content":"fine"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{}}]}}` + "\n"
	r = heliosStdin(t, home, work, stdin, "--config", cfg, "run", "--input-format", "stream-json", "--output-format", "stream-json")
	assert.Equal(t, exitFail, r.code, r.stderr)
	assert.Contains(t, r.stderr, `stdin line 2: message.content[0]: a "image" block`)
	assert.Len(t, ofType(streamEvents(t, r.stdout), "result"), 1, "the first line's turn ran")

	for line, says := range map[string]string{
		`not json`:                                 "stdin line 1: not a JSON object",
		`{"type":"assistant","message":{}}`:        `stdin line 1: type: "assistant", want "user"`,
		`{"type":"user"}`:                          "stdin line 1: message: missing",
		`{"type":"user","message":{"content":""}}`: "stdin line 1: message.content: empty",
	} {
		r = heliosStdin(t, home, work, line+"\n", "--config", cfg, "run", "--input-format", "stream-json", "--output-format", "stream-json")
		assert.Equal(t, exitFail, r.code, r.stderr)
		assert.Contains(t, r.stderr, says, line)
	}
}

// heliosStdin runs helios as helios does, with stdin.
func heliosStdin(t *testing.T, home, dir, stdin string, args ...string) cliResult {
	t.Helper()
	cmd := heliosCommand(t, home, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err, "run helios %v", args)
	}
	return cliResult{out.String(), errb.String(), code}
}
