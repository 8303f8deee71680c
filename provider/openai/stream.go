package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/helios-agents/helios/kernel/bytesize"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/internal/httpcall"
)

// limits bound what one answer may make the client hold; each is far above
// what a real model sends (a 128k-token answer is about 0.5 MiB), so a
// limit is only ever reached by a broken or hostile server. They are not
// configurable: no legitimate answer comes near them.
type limits struct {
	// event bounds one SSE line and one event's data (a whole file written
	// by a tool call can arrive as a single arguments fragment).
	event int
	// args bounds one tool call's accumulated arguments.
	args int
	// answer bounds the whole answer: text, tool call ids, names and
	// arguments together (and a plain JSON completion's body).
	answer int
	// calls bounds the number of tool calls in one answer.
	calls int
}

// defaultLimits are the limits Generate applies.
var defaultLimits = limits{event: 32 << 20, args: 32 << 20, answer: 64 << 20, calls: 1024}

func tooLarge(what string, limit int) error {
	return fmt.Errorf("%w: %s exceeds the limit of %s", ErrTooLarge, what, bytesize.Text(limit))
}

// errAnthropicFormat: the server speaks Anthropic's Messages API (a
// Chat Completions request reached it, or a proxy translated the answer
// back the wrong way). Retrying cannot help; the configuration can.
var errAnthropicFormat = fmt.Errorf("%w: the server answered in Anthropic's Messages format, not OpenAI's Chat Completions: "+
	`check model.provider (set it to "anthropic" for this server) and model.baseURL`, ErrMalformed)

// anthropicEvents are the "type" values of the Messages API's stream events
// and answer, which no Chat Completions chunk has.
var anthropicEvents = map[string]bool{"message_start": true, "content_block_start": true, "content_block_delta": true,
	"content_block_stop": true, "message_delta": true, "message_stop": true, "message": true}

var (
	errTruncated = errors.New("stream ended before [DONE] or a finish_reason")
	// errInStream: the server reported a failure inside a 200 stream. Not
	// retried: it is as likely a property of the request as a blip.
	errInStream = errors.New("server error in stream")
)

// readStream reads an SSE body into a until "data: [DONE]" (or the end of
// the body after a finish_reason: not every server sends [DONE]).
func readStream(body io.Reader, a *assembler) error {
	s := sseReader{r: bufio.NewReaderSize(body, 16<<10), max: a.lim.event}
	for {
		data, err := s.next()
		if err != nil {
			if errors.Is(err, ErrTooLarge) || errors.Is(err, errInStream) {
				return err
			}
			if a.finish != "" {
				// The answer is complete; at most the usage chunk or
				// [DONE] is missing, which not every server sends.
				return nil
			}
			if err == io.EOF {
				err = errTruncated
			}
			// A broken connection: worth retrying if nothing was emitted
			// (Generate decides).
			return &httpcall.Retryable{Err: err}
		}
		if isDone(data) {
			return nil
		}
		var c chatChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("%w: stream event is not JSON (%v): %s", ErrMalformed, err, clip(data))
		}
		if err := a.chunk(&c); err != nil {
			return err
		}
	}
}

// readCompletion reads a plain JSON completion into a; the body may not be
// larger than the whole answer's limit.
func readCompletion(body io.Reader, a *assembler) error {
	var c chatChunk
	lr := &io.LimitedReader{R: body, N: int64(a.lim.answer) + 1}
	if err := json.NewDecoder(lr).Decode(&c); err != nil {
		if lr.N == 0 {
			return tooLarge("the completion", a.lim.answer)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return &httpcall.Retryable{Err: fmt.Errorf("reading completion: %w", err)}
		}
		return fmt.Errorf("%w: completion is not JSON: %v", ErrMalformed, err)
	}
	if c.Type == "message" {
		return errAnthropicFormat
	}
	if len(c.Choices) == 0 && c.Error == nil {
		return fmt.Errorf("%w: completion has no choices", ErrMalformed)
	}
	return a.chunk(&c)
}

func isDone(data []byte) bool {
	return string(bytes.TrimSpace(data)) == "[DONE]"
}

func clip(b []byte) string {
	const n = 200
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}

// sseReader splits a text/event-stream into the data of its events. It
// follows the SSE rules (fields, comments, blank line dispatch, several data
// lines joined by "\n", CR LF or LF endings) with one tolerance: a data line
// arriving while the pending data is already a complete JSON value or
// [DONE] dispatches that first, for servers that omit the blank lines.
type sseReader struct {
	r    *bufio.Reader
	data []byte // the current event's data
	held []byte // a data line read ahead, starting the next event
	has  bool   // held is set
	long []byte // a line longer than the reader's buffer
	max  int    // bound of a line and of an event's data
}

// next returns the next event's data, valid until the next call, or io.EOF.
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	started := false
	if s.has {
		s.data = append(s.data, s.held...)
		s.has, started = false, true
	}
	for {
		line, err := s.line()
		if err != nil {
			if err == io.EOF && started {
				return s.data, nil
			}
			return nil, err
		}
		if len(line) == 0 {
			if started {
				return s.data, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(field) == 0 {
			continue // comment or keep-alive
		}
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "data":
			if started && (isDone(s.data) || json.Valid(s.data)) {
				s.held = append(s.held[:0], value...)
				s.has = true
				return s.data, nil
			}
			if started {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			started = true
		case "error":
			// Older llama.cpp servers report failures as an "error:" field.
			return nil, fmt.Errorf("%w: %s", errInStream, value)
		}
		if len(s.data) > s.max {
			return nil, tooLarge("a stream event", s.max)
		}
	}
}

// line returns the next line without its end of line, valid until the next
// call. A last line without a newline is returned before io.EOF.
func (s *sseReader) line() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = append(s.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = s.r.ReadSlice('\n')
			s.long = append(s.long, line...)
			if len(s.long) > s.max {
				return nil, tooLarge("a stream line", s.max)
			}
		}
		line = s.long
	}
	if err != nil && !(err == io.EOF && len(line) > 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, nil
}

// assembler accumulates one answer from chunks.
type assembler struct {
	lim     limits
	size    int // bytes of text, ids, names and arguments held
	onText  func(string)
	emitted bool // onText was called
	text    strings.Builder
	calls   []callBuf
	finish  string
	usage   model.Usage
	model   string
}

type callBuf struct {
	index int // the server's index, or -1
	id    string
	name  string
	args  []byte
}

func newAssembler(onText func(string), lim limits) *assembler {
	return &assembler{onText: onText, lim: lim}
}

func (a *assembler) chunk(c *chatChunk) error {
	if anthropicEvents[c.Type] {
		return errAnthropicFormat
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		msg, _ := serverMessage(append(append([]byte(`{"error":`), c.Error...), '}'))
		if msg == "" {
			msg = string(c.Error)
		}
		return fmt.Errorf("%w: %s", errInStream, msg)
	}
	if c.Model != "" {
		a.model = c.Model
	}
	if u := c.Usage; u != nil {
		a.usage = model.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
		if u.Details != nil {
			a.usage.CacheReadTokens = u.Details.CachedTokens
		}
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // n > 1 is never asked for; keep the first choice
		}
		d := ch.Delta
		if d == nil {
			d = ch.Message
		}
		if d != nil {
			if err := a.grow(len(d.Content)); err != nil {
				return err
			}
			if d.Content != "" {
				a.text.WriteString(d.Content)
				if a.onText != nil {
					a.emitted = true
					a.onText(d.Content)
				}
			}
			for j := range d.ToolCalls {
				tc := &d.ToolCalls[j]
				if ch.Delta == nil && tc.Index == nil {
					tc.Index = &j // a whole message: each entry is a call of its own
				}
				if err := a.toolCall(tc); err != nil {
					return err
				}
			}
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
	return nil
}

// grow accounts for n more bytes of the answer.
func (a *assembler) grow(n int) error {
	if a.size += n; a.size > a.lim.answer {
		return tooLarge("the answer", a.lim.answer)
	}
	return nil
}

// toolCall adds a delta to its call: the one with the same index, unless
// the delta brings a different id (a server numbering every call 0). Without
// an index, the call with the same id, or else the last one.
func (a *assembler) toolCall(d *toolCallDelta) error {
	if err := a.grow(len(d.ID) + len(d.Function.Name) + len(d.Function.Arguments)); err != nil {
		return err
	}
	slot := -1
	switch {
	case d.Index != nil:
		for i := range a.calls {
			if a.calls[i].index == *d.Index {
				slot = i
			}
		}
	case d.ID != "":
		for i := range a.calls {
			if a.calls[i].id == d.ID {
				slot = i
			}
		}
	case len(a.calls) > 0:
		slot = len(a.calls) - 1
	}
	if slot >= 0 && d.ID != "" && a.calls[slot].id != "" && a.calls[slot].id != d.ID {
		slot = -1
	}
	if slot < 0 {
		if len(a.calls) >= a.lim.calls {
			return fmt.Errorf("%w: more than %d tool calls (the limit)", ErrTooLarge, a.lim.calls)
		}
		idx := -1
		if d.Index != nil {
			idx = *d.Index
		}
		a.calls = append(a.calls, callBuf{index: idx})
		slot = len(a.calls) - 1
	}
	cb := &a.calls[slot]
	if cb.id == "" {
		cb.id = d.ID
	}
	if cb.name == "" {
		cb.name = d.Function.Name
	}
	if len(cb.args)+len(d.Function.Arguments) > a.lim.args {
		return tooLarge(fmt.Sprintf("tool call %q's arguments", cb.name), a.lim.args)
	}
	cb.args = append(cb.args, d.Function.Arguments...)
	return nil
}

// response is the assembled answer; tool calls without an id get call_<n>,
// n their position, skipping ids the server used.
func (a *assembler) response() model.Response {
	r := model.Response{Text: a.text.String(), FinishReason: a.finish, Usage: a.usage, Model: a.model}
	if len(a.calls) == 0 {
		return r
	}
	r.ToolCalls = make([]model.ToolCall, len(a.calls))
	for i, cb := range a.calls {
		args := bytes.TrimSpace(cb.args)
		if len(args) == 0 {
			args = []byte("{}") // a call without arguments still passes an object
		}
		r.ToolCalls[i] = model.ToolCall{ID: cb.id, Name: cb.name, Arguments: json.RawMessage(args)}
	}
	for i := range r.ToolCalls {
		if r.ToolCalls[i].ID != "" {
			continue
		}
		for n := i; ; n++ {
			id := "call_" + strconv.Itoa(n)
			if !hasID(r.ToolCalls, id) {
				r.ToolCalls[i].ID = id
				break
			}
		}
	}
	return r
}

// partial is what arrived before a failure.
func (a *assembler) partial() model.Response {
	if !a.emitted {
		return model.Response{}
	}
	return a.response()
}

func hasID(calls []model.ToolCall, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}
