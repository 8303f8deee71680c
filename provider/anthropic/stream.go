package anthropic

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/helios-agents/helios/kernel/bytesize"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/internal/httpcall"
)

// limits bound what one answer may make the client hold; each is far above
// what a real model sends (a 128k-token answer is about 0.5 MiB), so a
// limit is only reached by a broken or hostile server.
type limits struct {
	// body bounds the bytes read of one answer: the stream with every
	// event, text and tool input in it.
	body int
	// errorBody bounds the bytes read of an error status's body; the rest
	// is not read.
	errorBody int
	// calls bounds the number of tool calls in one answer.
	calls int
}

var defaultLimits = limits{body: 64 << 20, errorBody: 64 << 10, calls: 1024}

// sdkLineLimit is the longest SSE line the SDK's decoder reads (its
// bufio.Scanner buffer).
const sdkLineLimit = bufio.MaxScanTokenSize << 9

func tooLarge(what string, limit int) error {
	return fmt.Errorf("%w: %s exceeds the limit of %s", model.ErrTooLarge, what, bytesize.Text(limit))
}

var (
	errTruncated = errors.New("stream ended before message_stop")
	// errInStream: the server reported a failure inside a 200 stream (an
	// "error" event).
	errInStream = errors.New("server error in stream")
	// errOpenAIFormat: the server speaks OpenAI's Chat Completions. No
	// retry helps; the configuration does.
	errOpenAIFormat = fmt.Errorf("%w: the server answered in OpenAI's Chat Completions format, not Anthropic's Messages: "+
		`check model.provider (set it to "openai" for this server) and model.baseURL`, model.ErrMalformed)
)

// assembler accumulates one answer from the stream's events. It also sees
// the HTTP response first (bound), to bound its body and keep its start for
// telling what a server that did not stream sent.
type assembler struct {
	lim      limits
	onText   func(string)
	emitted  bool // onText was called
	started  bool // message_start arrived
	stopped  bool // message_stop arrived
	status   int
	mimeType string
	head     []byte // the body's first bytes
	plain    []byte // a whole JSON answer, when the server did not stream
	readErr  error  // the body's read failed (not at its end)
	text     strings.Builder
	calls    []callBuf
	stop     string
	model    string
	usage    struct{ input, output, cacheRead, cacheWrite int64 }
}

type callBuf struct {
	index    int64 // the content block's index
	id, name string
	args     []byte
}

func newAssembler(onText func(string), lim limits) *assembler {
	return &assembler{onText: onText, lim: lim}
}

// bound is the SDK middleware that wraps the response body of an attempt:
// at most lim.body bytes are read of an answer (past that the read fails
// with ErrTooLarge) and lim.errorBody of an error status's body, and the
// first bytes are kept.
func (a *assembler) bound(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil || res.Body == nil {
		return res, err
	}
	a.status = res.StatusCode
	a.mimeType, _, _ = mime.ParseMediaType(res.Header.Get("Content-Type"))
	limit, fail := a.lim.body, true
	if res.StatusCode >= 400 {
		limit, fail = a.lim.errorBody, false
	}
	body := &boundedBody{rc: res.Body, left: limit, limit: limit, fail: fail, head: &a.head, err: &a.readErr}
	res.Body = body
	if res.StatusCode < 300 && a.mimeType == "application/json" {
		// Not a stream: the SDK's decoder would find no events in it, so it
		// is read here (bounded) and end() makes sense of it.
		a.plain, err = io.ReadAll(body)
		body.Close()
		if err != nil {
			return nil, err
		}
		res.Body = io.NopCloser(bytes.NewReader(nil))
	}
	return res, nil
}

// boundedBody reads at most limit bytes; then it fails with ErrTooLarge
// (fail) or ends (an error body, whose start is enough).
type boundedBody struct {
	rc          io.ReadCloser
	left, limit int
	fail        bool
	head        *[]byte
	err         *error // set to a read's failure
}

const headSize = 512

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		if !b.fail {
			return 0, io.EOF
		}
		// One byte more tells an answer of exactly the limit from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		*b.err = tooLarge("the answer", b.limit)
		return 0, *b.err
	}
	if len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		*b.err = err
	}
	b.left -= n
	if room := headSize - len(*b.head); room > 0 {
		*b.head = append(*b.head, p[:min(n, room)]...)
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// event adds one stream event to the answer.
func (a *assembler) event(ev sdk.MessageStreamEventUnion) error {
	switch ev.Type {
	case "message_start":
		a.started = true
		a.model = ev.Message.Model
		u := ev.Message.Usage
		a.usage.input, a.usage.output = u.InputTokens, u.OutputTokens
		a.usage.cacheRead, a.usage.cacheWrite = u.CacheReadInputTokens, u.CacheCreationInputTokens
	case "content_block_start":
		cb := ev.ContentBlock
		switch cb.Type {
		case "text":
			a.addText(cb.Text)
		case "tool_use":
			return a.addCall(callBuf{index: ev.Index, id: cb.ID, name: cb.Name})
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			a.addText(ev.Delta.Text)
		case "input_json_delta":
			cb := a.call(ev.Index)
			if cb == nil {
				return fmt.Errorf("%w: input_json_delta for content block %d, which is not a tool_use block", model.ErrMalformed, ev.Index)
			}
			cb.args = append(cb.args, ev.Delta.PartialJSON...)
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = string(ev.Delta.StopReason)
		}
		// The counts are cumulative: each replaces the last.
		u := ev.Usage
		a.usage.output = u.OutputTokens
		if u.JSON.InputTokens.Valid() {
			a.usage.input = u.InputTokens
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			a.usage.cacheRead = u.CacheReadInputTokens
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			a.usage.cacheWrite = u.CacheCreationInputTokens
		}
	case "message_stop":
		a.stopped = true
	}
	return nil
}

func (a *assembler) addText(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	if a.onText != nil {
		a.emitted = true
		a.onText(s)
	}
}

// addCall starts a tool call, within the limit of calls.
func (a *assembler) addCall(cb callBuf) error {
	if len(a.calls) >= a.lim.calls {
		return fmt.Errorf("%w: more than %d tool calls (the limit)", model.ErrTooLarge, a.lim.calls)
	}
	a.calls = append(a.calls, cb)
	return nil
}

// call is the tool call started at a content block index, or nil.
func (a *assembler) call(index int64) *callBuf {
	for i := range a.calls {
		if a.calls[i].index == index {
			return &a.calls[i]
		}
	}
	return nil
}

// end checks a stream that ended without an error: complete when
// message_stop (or at least the stop reason) arrived; cut when it started
// but did not finish; otherwise not a Messages stream at all.
func (a *assembler) end() error {
	switch {
	case a.stopped || (a.started && a.stop != ""):
		return nil
	case a.started:
		return &httpcall.Retryable{Err: errTruncated}
	}
	head := bytes.TrimSpace(a.head)
	switch {
	case looksOpenAI(head):
		return errOpenAIFormat
	case a.mimeType == "text/html":
		return fmt.Errorf("%w: got an HTML page (Content-Type %q), not an API answer; is model.baseURL the API root?", model.ErrMalformed, a.mimeType)
	case a.plain != nil:
		return a.message(a.plain)
	case len(head) == 0 || bytes.HasPrefix(head, []byte("event:")) || bytes.HasPrefix(head, []byte("data:")) || bytes.HasPrefix(head, []byte(":")):
		// Nothing, or an event cut before message_start was whole.
		return &httpcall.Retryable{Err: errTruncated}
	}
	return fmt.Errorf("%w: the answer holds no Messages stream events (Content-Type %q): %s", model.ErrMalformed, a.mimeType, clip(head))
}

// looksOpenAI tells a Chat Completions chunk or completion by its fields.
func looksOpenAI(head []byte) bool {
	for _, mark := range []string{`"chat.completion`, `"choices"`} {
		if bytes.Contains(head, []byte(mark)) {
			return true
		}
	}
	return false
}

// message reads an answer that came whole as JSON instead of a stream:
// some gateways ignore "stream": true.
func (a *assembler) message(body []byte) error {
	var m sdk.Message
	if json.Unmarshal(body, &m) != nil || m.Type != "message" {
		return fmt.Errorf("%w: the server answered with JSON that is not a Messages answer: %s", model.ErrMalformed, clip(bytes.TrimSpace(body)))
	}
	a.started, a.stopped, a.model, a.stop = true, true, m.Model, string(m.StopReason)
	a.usage.input, a.usage.output = m.Usage.InputTokens, m.Usage.OutputTokens
	a.usage.cacheRead, a.usage.cacheWrite = m.Usage.CacheReadInputTokens, m.Usage.CacheCreationInputTokens
	for i, b := range m.Content {
		switch b.Type {
		case "text":
			a.addText(b.Text)
		case "tool_use":
			if err := a.addCall(callBuf{index: int64(i), id: b.ID, name: b.Name, args: b.Input}); err != nil {
				return err
			}
		}
	}
	return nil
}

// failure classifies what the SDK's stream reported: an error status, an
// "error" event, a body that could not be read (the connection, or a
// limit), an event that is not the Messages API's JSON, or no response.
func (c *Client) failure(err error, a *assembler) error {
	var apiErr *sdk.Error
	switch {
	case errors.Is(err, model.ErrTooLarge):
		return err
	case errors.Is(err, bufio.ErrTooLong):
		return tooLarge("a stream line", sdkLineLimit)
	case errors.As(err, &apiErr) && apiErr.StatusCode >= 400:
		return c.statusError(apiErr)
	case errors.As(err, &apiErr):
		// An "error" event inside a 200 stream. Overloaded is worth another
		// attempt (if nothing was shown yet); the rest is as likely a
		// property of the request.
		msg := c.secrets.String(cmp.Or(apiErr.Message, apiErr.RawJSON()))
		e := fmt.Errorf("%w: %s: %s", errInStream, apiErr.Type(), msg)
		if apiErr.Type() == "overloaded_error" {
			return &httpcall.Retryable{Err: e}
		}
		return e
	case a.readErr != nil:
		// The connection broke while the answer was read.
		return &httpcall.Retryable{Err: err}
	case a.status != 0:
		// The body was read, so the SDK could not decode an event.
		if looksOpenAI(a.head) {
			return errOpenAIFormat
		}
		return fmt.Errorf("%w: a stream event is not the Messages API's: %v", model.ErrMalformed, err)
	}
	return httpcall.TransportError(err)
}

// statusError maps an HTTP error status to the port's class.
func (c *Client) statusError(e *sdk.Error) error {
	msg := c.secrets.String(e.Message)
	if msg == "" {
		// Redacted before it is cut, so no part of the key is left.
		msg = strings.TrimSpace(c.secrets.String(e.RawJSON()))
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
	}
	se := &model.StatusError{StatusCode: e.StatusCode, Message: msg, KeySent: c.keySent}
	if !httpcall.StatusRetryable(e.StatusCode) {
		return se
	}
	var h http.Header
	if e.Response != nil {
		h = e.Response.Header
	}
	if h.Get("x-should-retry") == "false" {
		return se
	}
	after, ok := httpcall.RetryAfter(h)
	return &httpcall.Retryable{Err: se, After: after, HasAfter: ok}
}

// response is the assembled answer.
func (a *assembler) response() model.Response {
	u := a.usage
	r := model.Response{Text: a.text.String(), FinishReason: a.stop, Model: a.model, Usage: model.Usage{
		PromptTokens:     int(u.input + u.cacheRead + u.cacheWrite),
		CompletionTokens: int(u.output),
		CacheReadTokens:  int(u.cacheRead),
		CacheWriteTokens: int(u.cacheWrite),
	}}
	for _, cb := range a.calls {
		args := bytes.TrimSpace(cb.args)
		if len(args) == 0 {
			args = []byte("{}") // a call without arguments still passes an object
		}
		r.ToolCalls = append(r.ToolCalls, model.ToolCall{ID: cb.id, Name: cb.name, Arguments: json.RawMessage(args)})
	}
	return r
}

// partial is what arrived before a failure.
func (a *assembler) partial() model.Response {
	if a == nil || !a.emitted {
		return model.Response{}
	}
	return a.response()
}

func clip(b []byte) string {
	const n = 200
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}
