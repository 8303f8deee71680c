package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/caps/mcpclient"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/session"
)

// The headless formats of helios run, in Claude Code's documented shape
// (claude -p --output-format …, --input-format …): wrappers written for
// Claude Code read Helios unchanged.
const (
	formatText       = "text"        // today's output: the answer and each tool call, for a person
	formatJSON       = "json"        // the final result object only
	formatStreamJSON = "stream-json" // one event a line: init, assistant, user, result
)

// defaultMaxTurns is the kernel's default step limit (SessionConfig.MaxSteps),
// named here so a turn that reached it is told apart from one the model ended.
const defaultMaxTurns = 50

// maxInputLine bounds one line of --input-format stream-json.
const maxInputLine = 16 << 20

// headlessFlags are run's flags in Claude Code's names.
type headlessFlags struct {
	print        bool // -p/--print: as claude -p, run asks nothing, not even on a terminal
	verbose      bool // --verbose: accepted, as Claude Code's stream-json needs it
	outputFormat string
	inputFormat  string
	maxTurns     int
}

func (h *headlessFlags) add(c *cobra.Command) {
	f := c.Flags()
	f.BoolVarP(&h.print, "print", "p", false, "as Claude Code's claude -p: non-interactive, an ask is denied even on a terminal")
	f.BoolVar(&h.verbose, "verbose", false, "accepted for Claude Code's claude -p --verbose (which stream-json needs there): changes nothing")
	f.StringVar(&h.outputFormat, "output-format", formatText, "text, json (the final result object) or stream-json (one event a line), as Claude Code's")
	f.StringVar(&h.inputFormat, "input-format", formatText, "text (the PROMPT argument) or stream-json (user messages, one a line, from stdin: one turn each)")
	f.IntVar(&h.maxTurns, "max-turns", 0, "the model requests one turn may take (default sessions.maxSteps, else 50)")
}

// headless says whether run writes Claude Code's shape rather than text.
func (h *headlessFlags) headless() bool {
	return h.outputFormat != formatText || h.inputFormat != formatText
}

// check validates the flags and the positional arguments together.
func (h *headlessFlags) check(g *globals, a []string) error {
	switch h.outputFormat {
	case formatText, formatJSON, formatStreamJSON:
	default:
		return usageError{fmt.Errorf("--output-format %q: want text, json or stream-json", h.outputFormat)}
	}
	switch h.inputFormat {
	case formatText, formatStreamJSON:
	default:
		return usageError{fmt.Errorf("--input-format %q: want text or stream-json", h.inputFormat)}
	}
	switch {
	case h.maxTurns < 0:
		return usageError{fmt.Errorf("--max-turns %d: want a positive number", h.maxTurns)}
	case g.json && h.headless():
		return usageError{errors.New("--json is Helios's own event shape and --output-format/--input-format Claude Code's: choose one")}
	case h.inputFormat == formatStreamJSON && h.outputFormat != formatStreamJSON:
		return usageError{errors.New("--input-format stream-json needs --output-format stream-json (one result per turn)")}
	case h.inputFormat == formatStreamJSON && len(a) > 0:
		return usageError{fmt.Errorf("--input-format stream-json reads the prompts from stdin; got %d argument(s) too", len(a))}
	case h.inputFormat == formatText && len(a) == 0:
		return usageError{errors.New("run needs a PROMPT (or --input-format stream-json and the prompts on stdin)")}
	}
	return nil
}

// runHeadless runs one turn on prompt, or with --input-format stream-json
// one turn per user message on stdin until EOF, in one session, writing
// Claude Code's events. A failed turn (a model error, the step limit)
// ends in a result with is_error true; the command then exits 1, after the
// remaining input's turns.
func (g *globals) runHeadless(cmd *cobra.Command, h *headlessFlags, c *loadedConfig, resume, prompt string) error {
	maxTurns := cmp.Or(h.maxTurns, c.cfg.Sessions.MaxSteps, defaultMaxTurns)
	return g.withKernel(cmd, func(k *kernel.Kernel) error {
		ctx := cmd.Context()
		st := &streamer{w: cmd.OutOrStdout(), errw: cmd.ErrOrStderr(), stream: h.outputFormat == formatStreamJSON,
			model: c.cfg.Model.Name, maxTurns: maxTurns, now: time.Now}
		s, err := k.OpenSession(ctx, kernel.SessionConfig{Resume: resume, MaxSteps: maxTurns, Observe: st.update})
		if err != nil {
			return err
		}
		defer s.Close()
		st.sessionID = s.ID()
		if st.stream {
			if err := st.write(g.initEvent(ctx, k, s.ID(), c.cfg.Model.Name)); err != nil {
				return err
			}
		}
		if h.inputFormat != formatStreamJSON {
			return st.turn(ctx, s, prompt)
		}
		in := newInputReader(cmd.InOrStdin())
		var failed error
		for {
			p, err := in.next()
			if errors.Is(err, io.EOF) {
				return failed
			}
			if err != nil {
				return errors.Join(failed, err)
			}
			if err := st.turn(ctx, s, p); err != nil {
				failed = err
				if ctx.Err() != nil {
					return failed
				}
			}
		}
	})
}

// initEvent is the system/init event: what the session has to work with.
func (g *globals) initEvent(ctx context.Context, k *kernel.Kernel, id, model string) map[string]any {
	tools := []string{}
	all, _ := k.Tools(ctx, k.Catalog(ctx), k.CatalogBudget())
	for _, t := range all {
		tools = append(tools, t.Name)
	}
	servers := []map[string]string{}
	for _, c := range k.Capabilities() {
		if s, ok := c.(*mcpclient.Server); ok {
			st := s.Status()
			servers = append(servers, map[string]string{"name": st.Name, "status": mcpStatus(st.State)})
		}
	}
	commands := []string{}
	if set, done, err := g.commandSet(ctx); err == nil {
		cmds, _ := set.List()
		for _, c := range cmds {
			commands = append(commands, c.Name)
		}
		done()
	}
	return map[string]any{
		"type": "system", "subtype": "init", "session_id": id, "uuid": newUUID(),
		"cwd": k.WorkDir(), "model": model, "tools": tools, "mcp_servers": servers, "slash_commands": commands,
	}
}

// mcpStatus names an MCP server's state as Claude Code does.
func mcpStatus(s mcpclient.State) string {
	switch s {
	case mcpclient.StateReady:
		return "connected"
	case mcpclient.StateStarting:
		return "pending"
	case mcpclient.StateDisabled:
		return "disabled"
	}
	return "failed"
}

// streamer turns a session's updates into Claude Code's events: an
// assistant message for each content block (the text of a model answer,
// each tool call), a user message for each tool result, a result at the
// end of each turn. Without stream, only the result is written.
type streamer struct {
	w, errw   io.Writer
	stream    bool
	sessionID string
	model     string
	maxTurns  int
	now       func() time.Time

	mu sync.Mutex
	// The turn's counts: its model requests, their usage and the time
	// from each step's start to its model's answer.
	start, stepStart time.Time
	requests         int
	usage            session.Usage
	apiTime          time.Duration
	// text is the model's answer as it streams; msgID and last name the
	// answer and its usage for the blocks that follow; toolsAsked says the
	// last answer called tools.
	text       strings.Builder
	msgID      string
	last       session.Usage
	toolsAsked bool
	err        error // the first write that failed
}

// turn runs one turn and writes its result.
func (st *streamer) turn(ctx context.Context, s *kernel.Session, prompt string) error {
	st.mu.Lock()
	st.start, st.stepStart = st.now(), st.now()
	st.requests, st.usage, st.apiTime, st.toolsAsked = 0, session.Usage{}, 0, false
	st.text.Reset()
	st.mu.Unlock()
	answer, err := s.Run(ctx, prompt)
	return st.result(answer, err)
}

func (st *streamer) update(u kernel.Update) {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch u.Kind {
	case kernel.UpdateText:
		st.text.WriteString(u.Text)
	case kernel.UpdateUsage:
		st.requests++
		st.usage, st.last = st.usage.Add(u.Usage), u.Usage
		st.apiTime += st.now().Sub(st.stepStart)
		st.msgID, st.toolsAsked = "msg_"+strings.ReplaceAll(newUUID(), "-", ""), false
		if st.text.Len() > 0 {
			st.assistant(map[string]any{"type": "text", "text": st.text.String()})
			st.text.Reset()
		}
	case kernel.UpdateSubagent:
		st.usage = st.usage.Add(u.Usage) // a subagent's tokens count in the total
	case kernel.UpdateToolCall:
		st.toolsAsked = true
		var input any = map[string]any{}
		if json.Valid(u.Call.Arguments) {
			input = json.RawMessage(u.Call.Arguments)
		}
		st.assistant(map[string]any{"type": "tool_use", "id": u.Call.ID, "name": u.Call.Name, "input": input})
	case kernel.UpdateToolResult:
		st.event(map[string]any{"type": "user", "parent_tool_use_id": nil,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{
				"type": "tool_result", "tool_use_id": u.Call.ID, "content": u.Text, "is_error": u.IsError}}}})
		st.stepStart = st.now()
	case kernel.UpdateCompacted:
		st.event(map[string]any{"type": "system", "subtype": "compact_boundary",
			"compact_metadata": map[string]any{"trigger": "auto"}})
	case kernel.UpdateWarning:
		fmt.Fprintf(st.errw, "helios: warning: %s\n", sanitize.Text(u.Text))
	}
}

// assistant writes one content block of the current model answer.
func (st *streamer) assistant(block map[string]any) {
	st.event(map[string]any{"type": "assistant", "parent_tool_use_id": nil, "message": map[string]any{
		"id": st.msgID, "type": "message", "role": "assistant", "model": st.model,
		"content": []any{block}, "stop_reason": nil, "stop_sequence": nil, "usage": usageJSON(st.last)}})
}

// event writes ev with the session's id, when streaming.
func (st *streamer) event(ev map[string]any) {
	if !st.stream || st.err != nil {
		return
	}
	ev["session_id"], ev["uuid"] = st.sessionID, newUUID()
	st.err = writeJSONLine(st.w, ev)
}

func (st *streamer) write(ev map[string]any) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err == nil {
		st.err = writeJSONLine(st.w, ev)
	}
	return st.err
}

// result writes the turn's result and returns the turn's failure: err, or
// the step limit reached while the model still called tools.
func (st *streamer) result(answer string, err error) error {
	st.mu.Lock()
	subtype, text := "success", answer
	switch {
	case err != nil:
		subtype, text = "error_during_execution", err.Error()
	case st.toolsAsked && st.requests >= st.maxTurns:
		subtype = "error_max_turns"
		err = fmt.Errorf("the turn reached the limit of %d model requests (--max-turns, sessions.maxSteps) with the model still calling tools", st.maxTurns)
		text = err.Error()
	}
	ev := map[string]any{
		"type": "result", "subtype": subtype, "is_error": err != nil, "result": text,
		"num_turns": st.requests, "duration_ms": st.now().Sub(st.start).Milliseconds(),
		"duration_api_ms": st.apiTime.Milliseconds(), "usage": usageJSON(st.usage),
		"session_id": st.sessionID, "uuid": newUUID(),
	}
	if err != nil {
		ev["errors"] = []string{err.Error()}
	}
	werr := st.err
	st.mu.Unlock()
	if werr == nil {
		werr = st.write(ev)
	}
	if werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// usageJSON is u in the Messages API's keys: input_tokens counts the
// prompt tokens neither read from nor written to the prompt cache.
func usageJSON(u session.Usage) map[string]int {
	return map[string]int{
		"input_tokens":                max(0, u.Input-u.CacheRead-u.CacheWrite),
		"output_tokens":               u.Output,
		"cache_creation_input_tokens": u.CacheWrite,
		"cache_read_input_tokens":     u.CacheRead,
	}
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// inputReader reads --input-format stream-json: one user message a line,
// {"type":"user","message":{"role":"user","content":…}}, the content a
// string or text blocks. Blank lines are skipped; other keys (session_id,
// uuid, parent_tool_use_id) are ignored.
type inputReader struct {
	sc   *bufio.Scanner
	line int
}

func newInputReader(r io.Reader) *inputReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxInputLine)
	return &inputReader{sc: sc}
}

// next returns the next message's text, io.EOF at the end of the input, or
// an error naming the line, the JSON path and what is wrong.
func (r *inputReader) next() (string, error) {
	for r.sc.Scan() {
		r.line++
		raw := strings.TrimSpace(r.sc.Text())
		if raw == "" {
			continue
		}
		text, err := parseInputLine([]byte(raw))
		if err != nil {
			return "", fmt.Errorf("--input-format stream-json: stdin line %d: %w", r.line, err)
		}
		return text, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return "", fmt.Errorf("--input-format stream-json: stdin line %d: longer than %d MiB", r.line+1, maxInputLine>>20)
		}
		return "", fmt.Errorf("--input-format stream-json: read stdin: %w", err)
	}
	return "", io.EOF
}

func parseInputLine(raw []byte) (string, error) {
	var m struct {
		Type    string `json:"type"`
		Message *struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("not a JSON object: %w", err)
	}
	switch {
	case m.Type != "user":
		return "", fmt.Errorf("type: %q, want \"user\"", m.Type)
	case m.Message == nil:
		return "", errors.New("message: missing")
	case m.Message.Role != "" && m.Message.Role != "user":
		return "", fmt.Errorf("message.role: %q, want \"user\"", m.Message.Role)
	}
	var text string
	if err := json.Unmarshal(m.Message.Content, &text); err == nil {
		if strings.TrimSpace(text) == "" {
			return "", errors.New("message.content: empty")
		}
		return text, nil
	}
	var blocks []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(m.Message.Content, &blocks); err != nil {
		return "", errors.New("message.content: want a string or an array of content blocks")
	}
	var parts []string
	for i, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return "", fmt.Errorf("message.content[%d]: a %q block; only text blocks (with \"text\") are read", i, b.Type)
		}
		parts = append(parts, *b.Text)
	}
	text = strings.Join(parts, "\n\n")
	if strings.TrimSpace(text) == "" {
		return "", errors.New("message.content: no text")
	}
	return text, nil
}
