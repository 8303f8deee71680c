package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/helios-agents/helios/kernel/model"
)

// Step is what the model says for one request. It may look at the request,
// e.g. at the last tool result. It runs on the server's goroutine and must
// not call t.FailNow.
type Step func(req Recorded) Reply

// Reply is one scripted answer.
type Reply struct {
	// Text is what the model says.
	Text string
	// ToolCalls the model makes. A call without an ID gets
	// "call_<request>_<position>" (request counted from 1), unique within
	// the server.
	ToolCalls []model.ToolCall
	// Status, when 400 or above, makes the answer an HTTP error with
	// ErrorMessage as {"error":{"message":...}}; Text and ToolCalls are then
	// ignored. Zero means 200.
	Status int
	// ErrorMessage is the message of an error answer.
	ErrorMessage string
	// Chunked splits the text into several deltas (three runes each) and
	// each call's arguments into several fragments, when streaming.
	Chunked bool
	// Header is added to the answer's headers (Retry-After on a 429, ...).
	Header http.Header
	// Cut, when positive, ends the answer after its first Cut bytes: the
	// server closes the body there, in the middle of an event, as a
	// dropped connection or a crashed proxy does.
	Cut int
}

// Recorded is one request the server received, decoded.
type Recorded struct {
	// Model is the model name the adapter asked for.
	Model string
	// System is the content of a leading system message.
	System string
	// Messages are the other messages, in order; a later system message
	// keeps Role "system".
	Messages []model.Message
	// Tools are the tools offered, in order.
	Tools []model.Tool
	// Stream says the adapter asked for server-sent events.
	Stream bool
	// Header holds the request's headers (Authorization, ...).
	Header http.Header
	// Body is the request body as sent.
	Body json.RawMessage
	// Usage is the token usage the server answered with (filled in once
	// the answer is made: read it from Requests). Tokens are counted as
	// four bytes; the prompt cache is simulated (see NewAnthropicServer;
	// on the Chat Completions wire the cached tokens are the prefix the
	// body shares with an earlier request's).
	Usage model.Usage
	// CacheKey is the request's prompt_cache_key (Chat Completions).
	CacheKey string
	// Refused is why a strict server refused the request (see
	// NewStrictServer); "" when it was answered.
	Refused string

	// Messages API requests only:

	// MaxTokens is max_tokens.
	MaxTokens int
	// Blocks are the request's blocks in the order the prompt cache reads
	// them: each tool, each system block, then each message's content
	// blocks (prefixed by the message's role). Each is its JSON with keys
	// sorted and without cache_control, so two requests share a cached
	// prefix exactly when their first blocks are equal.
	Blocks []string
	// Breakpoints are the indexes in Blocks of the blocks that carry
	// cache_control, in order.
	Breakpoints []int
}

// CachedPrefix is what the request asks the provider to cache: its blocks
// up to and including the last breakpoint, one a line; "" without one.
func (r Recorded) CachedPrefix() string {
	if len(r.Breakpoints) == 0 {
		return ""
	}
	return strings.Join(r.Blocks[:r.Breakpoints[len(r.Breakpoints)-1]+1], "\n")
}

// Last returns the last message, or the zero Message when there is none.
func (r Recorded) Last() model.Message {
	if len(r.Messages) == 0 {
		return model.Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Say answers with text.
func Say(text string) Step {
	return func(Recorded) Reply { return Reply{Text: text} }
}

// Call answers with one tool call; argsJSON is the arguments object.
func Call(name, argsJSON string) Step {
	return Calls(model.ToolCall{Name: name, Arguments: json.RawMessage(argsJSON)})
}

// Calls answers with several tool calls at once (parallel calls).
func Calls(calls ...model.ToolCall) Step {
	return func(Recorded) Reply { return Reply{ToolCalls: calls} }
}

// Fail answers with an HTTP error status and message.
func Fail(status int, message string) Step {
	return func(Recorded) Reply { return Reply{Status: status, ErrorMessage: message} }
}

// Server is a scripted model endpoint speaking one wire format. It is safe
// for concurrent use and closes when the test ends.
type Server struct {
	t         reporter
	srv       *httptest.Server
	anthropic bool // the Messages API, not Chat Completions
	strict    bool // Chat Completions: tool messages checked (NewStrictServer)
	mu        sync.Mutex
	steps     []Step
	next      int
	reqs      []Recorded
	// cache holds the prefixes written to the simulated prompt cache
	// (Messages API: by digest of the blocks; Chat Completions: bodies).
	cache  map[[32]byte]bool
	bodies [][]byte
}

// NewServer starts a Chat Completions server that answers the i-th request
// with steps[i]. When the test ends, the server closes and reports unused
// steps.
func NewServer(t testing.TB, steps ...Step) *Server {
	t.Helper()
	return newServer(t, t, false, steps)
}

func newServer(t reporter, tb testing.TB, anthropic bool, steps []Step) *Server {
	s := &Server{t: t, steps: steps, anthropic: anthropic, cache: map[[32]byte]bool{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	if tb == nil {
		return s
	}
	tb.Cleanup(func() {
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.next < len(s.steps) && !tb.Failed() {
			tb.Errorf("script not finished: %d of %d steps were never requested", len(s.steps)-s.next, len(s.steps))
		}
	})
	return s
}

// NewStrictServer is NewServer checking each request's tool messages as
// OpenAI-compatible APIs do, which refuse the request with HTTP 400:
//
//   - an assistant message with tool_calls must be followed by one tool
//     message for each call's ID before any other message;
//   - a tool message must answer a call of the assistant message before it.
//
// A refused request consumes no step; it is recorded with Refused set, and
// the adapter reports the 400 as it would a real provider's.
func NewStrictServer(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s := NewServer(t, steps...)
	s.strict = true
	return s
}

// reporter is where a server reports requests off the script.
type reporter interface {
	Errorf(format string, args ...any)
}

// Start starts a server outside a test, for Example functions (which have no
// *testing.T) and programs: what NewServer would report as a test failure is
// written to standard error, and the request is answered with an HTTP error
// that the adapter reports. Close stops it.
func Start(steps ...Step) *Server {
	return newServer(stderr{}, nil, false, steps)
}

// Close stops a server made by Start. (NewServer's closes with its test.)
func (s *Server) Close() { s.srv.Close() }

type stderr struct{}

func (stderr) Errorf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// URL is the base URL to configure the adapter with: it ends in /v1 for
// Chat Completions; for the Messages API it is the root (the adapter
// appends /v1/messages).
func (s *Server) URL() string {
	if s.anthropic {
		return s.srv.URL
	}
	return s.srv.URL + "/v1"
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Recorded, len(s.reqs))
	copy(out, s.reqs)
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path, wireName, decodeFn, errorFn := "/v1/chat/completions", "Chat Completions", decode, writeError
	if s.anthropic {
		path, wireName, decodeFn, errorFn = "/v1/messages", "Messages API", decodeAnthropic, writeAnthropicError
	}
	if r.Method != http.MethodPost || r.URL.Path != path {
		s.t.Errorf("unexpected %s %s (only POST %s is served)", r.Method, r.URL.Path, path)
		errorFn(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		errorFn(w, http.StatusBadRequest, "read body: "+err.Error())
		return
	}
	rec, err := decodeFn(body)
	if err == nil && s.anthropic && r.Header.Get("anthropic-version") == "" {
		err = fmt.Errorf("no anthropic-version header")
	}
	if err != nil {
		s.t.Errorf("request is not a valid %s request: %v\n%s", wireName, err, body)
		errorFn(w, http.StatusBadRequest, err.Error())
		return
	}
	rec.Header = r.Header.Clone()
	if s.strict {
		if rec.Refused = checkToolMessages(rec.Messages); rec.Refused != "" {
			s.mu.Lock()
			s.reqs = append(s.reqs, rec)
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, rec.Refused)
			return
		}
	}

	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	n := len(s.reqs)
	var step Step
	scripted := s.next < len(s.steps)
	if scripted {
		step = s.steps[s.next]
		s.next++
	}
	total := len(s.steps)
	s.mu.Unlock()

	if !scripted {
		msg := fmt.Sprintf("script exhausted: request %d has no step (%d scripted)", n, total)
		s.t.Errorf("%s; last message: %+v", msg, rec.Last())
		errorFn(w, http.StatusInternalServerError, msg)
		return
	}
	var reply Reply
	if step != nil {
		reply = step(rec)
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if reply.Status >= 400 {
		errorFn(w, reply.Status, reply.ErrorMessage)
		return
	}
	s.respond(w, rec, body, n, reply)
}

// respond writes reply to request n (rec, read from body) in the server's
// wire: tool calls the script left without an id get one, and the usage is
// counted and recorded.
func (s *Server) respond(w http.ResponseWriter, rec Recorded, body []byte, n int, reply Reply) {
	calls := make([]model.ToolCall, len(reply.ToolCalls))
	for i, c := range reply.ToolCalls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d_%d", n, i)
			if s.anthropic {
				c.ID = fmt.Sprintf("toolu_%d_%d", n, i)
			}
		}
		calls[i] = c
	}
	out := len(reply.Text)
	for _, c := range calls {
		out += len(c.Name) + len(c.Arguments)
	}
	usage := s.usage(&rec, body)
	usage.CompletionTokens = out / 4
	s.mu.Lock()
	s.reqs[n-1].Usage = usage
	s.mu.Unlock()

	a := answer{id: fmt.Sprintf("chatcmpl-modeltest-%d", n), model: rec.Model, text: reply.Text, calls: calls, usage: usage}
	cw := &cutWriter{ResponseWriter: w, left: reply.Cut}
	switch {
	case s.anthropic && rec.Stream:
		a.id = fmt.Sprintf("msg_modeltest_%d", n)
		a.messagesStream(cw, reply.Chunked)
	case s.anthropic:
		a.id = fmt.Sprintf("msg_modeltest_%d", n)
		a.message(cw)
	case rec.Stream:
		var opts wireRequest
		_ = json.Unmarshal(body, &opts) // decoded once already
		a.stream(cw, reply.Chunked, opts.StreamOptions != nil && opts.StreamOptions.IncludeUsage)
	default:
		a.complete(cw)
	}
}

// usage counts the request's tokens and simulates the provider's prompt
// cache: what an earlier request wrote, this one reads.
func (s *Server) usage(rec *Recorded, body []byte) model.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.anthropic {
		read, write, rest := s.cacheBlocks(rec.Blocks, rec.Breakpoints)
		return model.Usage{PromptTokens: (read + write + rest) / 4, CacheReadTokens: read / 4, CacheWriteTokens: write / 4}
	}
	shared := 0
	for _, b := range s.bodies {
		n := 0
		for n < len(b) && n < len(body) && b[n] == body[n] {
			n++
		}
		shared = max(shared, n)
	}
	s.bodies = append(s.bodies, body)
	return model.Usage{PromptTokens: len(body) / 4, CacheReadTokens: shared / 4}
}

// cutWriter passes on the first left bytes of the answer (all of it when
// left is 0) and drops the rest.
type cutWriter struct {
	http.ResponseWriter
	left int
	cut  bool
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if c.left <= 0 && !c.cut {
		return c.ResponseWriter.Write(p)
	}
	if c.cut {
		return len(p), nil
	}
	if len(p) >= c.left {
		c.ResponseWriter.Write(p[:c.left])
		c.cut = true
		c.Flush()
		return len(p), nil
	}
	c.left -= len(p)
	return c.ResponseWriter.Write(p)
}

func (c *cutWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// answer is one scripted reply, written in either wire (chat.go,
// anthropic.go).
type answer struct {
	id, model, text string
	calls           []model.ToolCall
	usage           model.Usage
}
