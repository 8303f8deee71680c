package mcpclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// maxToolName is the longest tool name model APIs accept (Anthropic's
// ^[a-zA-Z0-9_-]{1,64}$, OpenAI's 64).
const maxToolName = 64

// MaxServerName is the longest server name: mcp__<server>__ and one
// character of a tool still fit in maxToolName.
const MaxServerName = maxToolName - len("mcp__") - len("__") - 1

// hashedTail is what a shortened name ends with: "_" and 8 hex digits.
const hashedTail = 9

// ToolName is what the model calls a server's tool by:
// mcp__<server>__<tool>, with every character a model API refuses in a tool
// name (outside A-Z a-z 0-9 _ -) replaced by "_". A name over 64
// characters keeps its first 55 and ends with "_" and 8 hex digits of a
// hash of the server's and the tool's names, so that it stays unique —
// when those 55 hold the whole mcp__<server>__ and a character of the
// tool. Else (a long server name, as a plugin's plugin_<plugin>_<server>
// can be) it is "": the tool cannot be named and is left out.
func ToolName(server, tool string) string {
	var b strings.Builder
	b.WriteString("mcp__")
	b.WriteString(server)
	b.WriteString("__")
	for _, r := range tool {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	n := b.String()
	if len(n) <= maxToolName {
		return n
	}
	if len("mcp__"+server+"__") >= maxToolName-hashedTail {
		return ""
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return n[:maxToolName-hashedTail] + "_" + hex.EncodeToString(sum[:4])
}

// remoteTool is one of the server's tools with the name and description
// the model sees.
type remoteTool struct {
	name   string
	desc   string
	tool   *mcp.Tool
	schema json.RawMessage
}

// tools returns the session's tools, listing them again first when the
// server said they changed. A listing that fails keeps the last one (with
// a warning); one that times out marks the server as hung.
func (s *Server) tools(ctx context.Context, x *session) ([]remoteTool, error) {
	x.refresh.Lock()
	defer x.refresh.Unlock()
	if x.dirty.Swap(false) {
		ts, err := s.listTools(ctx, x)
		if err != nil {
			x.dirty.Store(true)
			if last := x.tools.Load(); last != nil {
				s.logger.Warn("mcp server: listing its tools failed; keeping the last list", slog.Any("error", err))
				return *last, nil
			}
			return nil, err
		}
		x.tools.Store(&ts)
	}
	if ts := x.tools.Load(); ts != nil {
		return *ts, nil
	}
	return nil, nil
}

// listTools reads every page of the server's tool list, names each tool for
// the model and drops (with a warning) one whose name collides with an
// earlier one's.
func (s *Server) listTools(ctx context.Context, x *session) ([]remoteTool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	var out []remoteTool
	seen := map[string]string{}
	for t, err := range x.cs.Tools(ctx, nil) {
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				go s.suspectHang(x)
			}
			return nil, err
		}
		name := ToolName(s.cfg.Name, t.Name)
		if name == "" {
			s.logger.Warn(fmt.Sprintf("mcp server: tool %q left out: mcp__%s__%s is over %d characters, the longest tool name the model APIs accept, and the server's name leaves no room to shorten it", t.Name, s.cfg.Name, t.Name, maxToolName), slog.String("tool", t.Name))
			continue
		}
		if first, dup := seen[name]; dup {
			s.logger.Warn("mcp server: two tools get the same name; keeping the first", slog.String("name", name), slog.String("kept", first), slog.String("dropped", t.Name))
			continue
		}
		seen[name] = t.Name
		schema, err := json.Marshal(t.InputSchema)
		if err != nil || t.InputSchema == nil {
			schema = nil // the kernel gives the model an empty object schema
		}
		out = append(out, remoteTool{name: name, desc: s.description(t), tool: t, schema: schema})
	}
	return out, nil
}

// Tools returns the server's tools as the model sees them; none while it
// is down. The first call waits for the server's first start.
func (s *Server) Tools(ctx context.Context) ([]contract.Tool, error) {
	x := s.ready(ctx)
	if x == nil {
		return nil, nil
	}
	ts, err := s.tools(ctx, x)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: list tools: %w", s.cfg.Name, err)
	}
	out := make([]contract.Tool, len(ts))
	for i, t := range ts {
		remote, name := t.tool.Name, t.name
		out[i] = contract.Tool{
			Name:        name,
			Description: t.desc,
			Schema:      t.schema,
			Annotations: annotations(t.tool),
			Call: func(ctx context.Context, args json.RawMessage) (contract.ToolResult, error) {
				return s.call(ctx, remote, name, args)
			},
		}
	}
	return out, nil
}

// description is the text the model reads about a tool: its description
// (its title when it has none) with hidden characters made visible (C19),
// and one warning naming the tool when there were any. It runs once per
// listing, so the warning is not repeated at every step.
func (s *Server) description(t *mcp.Tool) string {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	desc, found := sanitize.Clean(desc)
	if found.Count > 0 {
		s.logger.Warn("mcp server: a tool's description holds "+found.String()+"; the model reads them escaped", slog.String("tool", t.Name))
	}
	return desc
}

// annotations are a tool's MCP annotations resolved with MCP's defaults;
// nil when the server gave none.
func annotations(t *mcp.Tool) *contract.ToolAnnotations {
	a := t.Annotations
	if a == nil {
		return nil
	}
	return &contract.ToolAnnotations{
		Title:       a.Title,
		ReadOnly:    a.ReadOnlyHint,
		Destructive: !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint),
		Idempotent:  a.IdempotentHint,
		OpenWorld:   a.OpenWorldHint == nil || *a.OpenWorldHint,
	}
}

// call runs one tool call. Everything that goes wrong on the server's side
// is an error result naming the server; only a cancelled ctx is a Go error.
func (s *Server) call(ctx context.Context, remote, name string, args json.RawMessage) (contract.ToolResult, error) {
	if err := ctx.Err(); err != nil {
		return contract.ToolResult{}, err
	}
	if s.sh.Telemetry.Enabled() {
		trace.SpanFromContext(ctx).SetAttributes(telemetry.MCPServer.String(s.cfg.Name))
	}
	x := s.current()
	if x == nil {
		return contract.ErrorResult("%s is unavailable: MCP server %q %s", name, s.cfg.Name, s.unavailable()), nil
	}
	ts, err := s.tools(ctx, x)
	if err != nil {
		return contract.ErrorResult("%s: MCP server %q: %v", name, s.cfg.Name, err), nil
	}
	if !offers(ts, remote) {
		return contract.ErrorResult("%s is no longer offered by MCP server %q; its tools now are: %s", name, s.cfg.Name, toolNames(ts)), nil
	}
	if !isObject(args) {
		return contract.ErrorResult("%s takes a JSON object of arguments", name), nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	res, err := x.cs.CallTool(cctx, &mcp.CallToolParams{Name: remote, Arguments: args, Meta: traceMeta(ctx)})
	if err != nil {
		if ctx.Err() != nil {
			return contract.ToolResult{}, ctx.Err()
		}
		return s.callError(cctx, x, name, err), nil
	}
	return s.result(res), nil
}

// endRecordWait bounds how long a call that found its server gone waits for
// the supervisor to record the end.
const endRecordWait = 5 * time.Second

// callError turns a failed call into the error result the model reads.
func (s *Server) callError(cctx context.Context, x *session, name string, err error) contract.ToolResult {
	var werr *jsonrpc.Error
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		go s.suspectHang(x)
		return contract.ErrorResult("MCP server %q did not answer the call to %s within %v (its timeout)", s.cfg.Name, name, s.cfg.timeout())
	case errors.As(err, &werr) && strings.HasPrefix(werr.Message, "MCP server "):
		return contract.ErrorResult("%s", werr.Message) // the client's own words: an answer too large or malformed
	case errors.As(err, &werr):
		return contract.ErrorResult("MCP server %q refused the call to %s: %s", s.cfg.Name, name, werr.Message)
	case errors.Is(err, mcp.ErrConnectionClosed) || x.conn.reason() != nil || x.dropped.Load() != nil:
		// The supervisor records the end, which takes the server's tools
		// out of the next request, on its own goroutine: wait for it, so
		// that the model is not offered the tools of a server it is told
		// went away (bounded: a transport slow to wind down costs at most
		// a request that still lists them).
		select {
		case <-x.over:
		case <-time.After(endRecordWait):
		}
		return contract.ErrorResult("MCP server %q went away during the call to %s (%v); it is restarted, and its tools are back once it is", s.cfg.Name, name, x.endReason(err))
	}
	return contract.ErrorResult("MCP server %q: the call to %s failed: %v", s.cfg.Name, name, err)
}

// result renders a tool's result for the model: text as text, images and
// audio as a line naming their type and size, resource links as their URI,
// embedded resources as their text (or a line for a blob), and the
// structured content as JSON only when no text part carries it (see
// holds): the model never reads the same content twice. Cut to MaxOutput
// bytes.
func (s *Server) result(res *mcp.CallToolResult) contract.ToolResult {
	var parts []string
	var texts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			texts = append(texts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %s]", orUnknown(c.MIMEType), sizeText(len(c.Data))))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s]", orUnknown(c.MIMEType), sizeText(len(c.Data))))
		case *mcp.ResourceLink:
			parts = append(parts, resourceLine("resource link", c.URI, c.Name, c.MIMEType))
		case *mcp.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[content of a kind not shown: %T]", c))
		}
	}
	if sc := res.StructuredContent; sc != nil && !holds(texts, sc) {
		if data, err := json.Marshal(sc); err == nil {
			parts = append(parts, string(data))
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" && res.IsError {
		text = "the tool reported an error without a message"
	}
	// Text from a server is sanitized (C19): a result cannot smuggle
	// instructions to the model in characters nobody sees.
	return contract.ToolResult{Content: cut(sanitize.Text(text), s.sh.maxOutput), IsError: res.IsError}
}

func embedded(r *mcp.ResourceContents) string {
	switch {
	case r == nil:
		return "[an empty embedded resource]"
	case r.Text != "":
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s: %s, %s]", r.URI, orUnknown(r.MIMEType), sizeText(len(r.Blob)))
}

func resourceLine(kind, uri, name, mimeType string) string {
	var extra []string
	if name != "" && name != uri {
		extra = append(extra, name)
	}
	if mimeType != "" {
		extra = append(extra, mimeType)
	}
	if len(extra) == 0 {
		return fmt.Sprintf("[%s: %s]", kind, uri)
	}
	return fmt.Sprintf("[%s: %s (%s)]", kind, uri, strings.Join(extra, ", "))
}

// holds reports whether the text parts carry the structured content
// already, so that the model reads it once: a text part is its JSON (the
// SDKs write it there for older clients), or every value in it (each
// string, number, boolean and null, at any depth) stands in a text part as
// a whole token: servers such as @modelcontextprotocol/server-filesystem
// answer {"content": X} beside the text X. A string is also carried by
// being a string of a text part that is JSON, where it is escaped. Without
// a text part nothing carries it.
func holds(texts []string, sc any) bool {
	if len(texts) == 0 {
		return false
	}
	want, err := json.Marshal(sc)
	if err != nil {
		return false
	}
	var w any
	if json.Unmarshal(want, &w) != nil {
		return false
	}
	c := carrier{texts: texts, inJSON: map[string]bool{}, budget: carryBudget}
	for _, t := range texts {
		var v any
		if json.Unmarshal([]byte(t), &v) != nil {
			continue
		}
		if jsonEqual(v, w) {
			return true
		}
		jsonLeaves(v, c.inJSON)
	}
	return c.carried(w)
}

// carryBudget bounds the bytes of text holds searches for strings: past
// it, the structured content counts as not carried and is sent, so that a
// large answer costs at most a few hundred milliseconds here.
const carryBudget = 256 << 20

// carrier looks the values of structured content up in the text parts.
type carrier struct {
	texts []string
	// inJSON holds the values of the text parts that are JSON: each
	// string, and each number, boolean and null as written.
	inJSON map[string]bool
	// words are the words and numbers of the texts, made on first use.
	words  map[string]bool
	budget int
}

// carried reports whether every value of v stands in the texts: a string
// as a whole token or as a string of a JSON text, a number, boolean or
// null as a word.
func (c *carrier) carried(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if !c.carried(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !c.carried(e) {
				return false
			}
		}
		return true
	case string:
		if v == "" || c.inJSON[v] {
			return true
		}
		for _, t := range c.texts {
			c.budget -= len(t)
		}
		return c.budget >= 0 && hasToken(c.texts, v)
	}
	lit, err := json.Marshal(v)
	if err != nil {
		return false
	}
	if c.inJSON[string(lit)] {
		return true
	}
	if c.words == nil {
		c.words = words(c.texts)
	}
	return c.words[string(lit)]
}

// jsonLeaves adds the values found in a decoded JSON value to set: strings
// as they are, numbers, booleans and null as written.
func jsonLeaves(v any, set map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			jsonLeaves(e, set)
		}
	case []any:
		for _, e := range v {
			jsonLeaves(e, set)
		}
	case string:
		set[v] = true
	default:
		if lit, err := json.Marshal(v); err == nil {
			set[string(lit)] = true
		}
	}
}

// words splits the texts into words and numbers ("42", "-1.5", "true"),
// each also without a sentence's trailing dot.
func words(texts []string) map[string]bool {
	set := map[string]bool{}
	for _, t := range texts {
		for _, f := range strings.FieldsFunc(t, func(r rune) bool { return !isWordRune(r) && r != '.' && r != '-' && r != '+' }) {
			set[f] = true
			set[strings.TrimRight(f, ".")] = true
		}
	}
	return set
}

// hasToken reports whether tok occurs in one of hay and is not part of a
// longer word or number there: "42" stands in "sum: 42." but not in
// "1423".
func hasToken(hay []string, tok string) bool {
	for _, h := range hay {
		for off := 0; ; {
			i := strings.Index(h[off:], tok)
			if i < 0 {
				break
			}
			i += off
			if !wordJoin(h[:i], tok) && !wordJoin(tok, h[i+len(tok):]) {
				return true
			}
			off = i + 1
		}
	}
	return false
}

// wordJoin reports whether a ends and b begins with a letter or digit, so
// that a+b runs one word into the next.
func wordJoin(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	x, _ := utf8.DecodeLastRuneInString(a)
	y, _ := utf8.DecodeRuneInString(b)
	return isWordRune(x) && isWordRune(y)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// cut keeps at most n bytes of text (at a rune boundary) and says how much
// was cut.
func cut(text string, n int) string {
	if len(text) <= n {
		return text
	}
	head := clip(text, n)
	head = strings.TrimSuffix(head, "…")
	return fmt.Sprintf("%s\n[… %d more bytes cut: the model gets at most %d bytes of a tool result (tools.maxOutput)]", head, len(text)-len(head), n)
}

func offers(ts []remoteTool, remote string) bool {
	for _, t := range ts {
		if t.tool.Name == remote {
			return true
		}
	}
	return false
}

func toolNames(ts []remoteTool) string {
	if len(ts) == 0 {
		return "none"
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.name
	}
	return strings.Join(names, ", ")
}

func isObject(args json.RawMessage) bool {
	t := bytes.TrimSpace(args)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

func sizeText(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// traceContext puts the caller's span context into a request's _meta
// (traceparent, tracestate), so that a server that records spans joins the
// kernel's trace. Without a valid span (telemetry off) it adds nothing.
var traceContext = propagation.TraceContext{}

func traceMeta(ctx context.Context) mcp.Meta {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	m := mcp.Meta{}
	traceContext.Inject(ctx, metaCarrier(m))
	return m
}

// metaCarrier adapts a request's _meta to the propagator.
type metaCarrier mcp.Meta

func (c metaCarrier) Get(key string) string {
	v, _ := c[key].(string)
	return v
}

func (c metaCarrier) Set(key, value string) { c[key] = value }

func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
