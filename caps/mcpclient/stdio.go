package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helios-agents/helios/kernel/bytesize"
)

// stopGrace is how long a stdio server has to exit once its stdin is
// closed, and again after SIGTERM, before its process group is killed.
const stopGrace = 2 * time.Second

// connInfo is the transport's own account of why a connection ended (a
// process that exited, a message over the bound), which says more than the
// SDK's "connection closed". The first reason recorded wins.
type connInfo struct {
	mu   sync.Mutex
	err  error
	kill func() // ends the transport at once (a stdio server's process group)
}

// abort ends the transport without a graceful stop: for a server that
// hangs, which would not read the end of its stdin.
func (c *connInfo) abort() {
	c.mu.Lock()
	kill := c.kill
	c.mu.Unlock()
	if kill != nil {
		kill()
	}
}

func (c *connInfo) set(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

func (c *connInfo) reason() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// stdioTransport starts the server's process at Connect and speaks
// newline-delimited JSON-RPC over its stdin and stdout. The process leads
// its own process group, gets exactly the configured environment, and has
// its stderr logged under the server's name.
type stdioTransport struct {
	cfg    ServerConfig
	logger *slog.Logger
	info   *connInfo
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	p, err := startProcess(t.cfg, t.logger, t.info)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	// At the end of its output, the process's exit status is awaited
	// (briefly): it says why the connection ended better than an EOF.
	f := &filter{server: t.cfg.Name, logger: t.logger, info: t.info, out: pw, pending: map[string]bool{},
		eof: func() { p.waitExit(stopGrace) }}
	go func() {
		f.run(p.stdout)
		p.stdout.Close()
	}()
	conn, err := (&mcp.IOTransport{Reader: pr, Writer: p.stdin, MaxLineLength: -1}).Connect(context.Background())
	if err != nil {
		p.stop()
		return nil, err
	}
	return &stdioConn{Connection: conn, p: p, f: f}, nil
}

// stdioConn is the SDK's connection over the process's pipes. It tells the
// filter which requests await an answer, and stops the process on Close.
type stdioConn struct {
	mcp.Connection
	p *process
	f *filter
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.ID.IsValid() {
		c.f.await(r.ID)
	}
	return c.Connection.Write(ctx, msg)
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.f.answered(r.ID)
	}
	return msg, err
}

func (c *stdioConn) Close() error {
	err := c.Connection.Close() // closes stdin: the spec's first step of a shutdown
	c.p.stop()
	return err
}

// process is a running stdio server.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	exited chan struct{} // closed once the leader was reaped
	tail   *stderrTail
}

// startProcess starts the server with its own pipes: not exec's, whose
// copying goroutines would hold Wait until every child that inherited them
// exits. When the leader exits, its process group is killed, so that the
// pipe's other holders let go and the connection ends at once.
func startProcess(cfg ServerConfig, logger *slog.Logger, info *connInfo) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = cfg.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would inherit the kernel's whole environment
	}
	cmd.Dir = cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", commandLine(cfg.Command, cfg.Args), err)
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, exited: make(chan struct{}), tail: &stderrTail{done: make(chan struct{})}}
	info.mu.Lock()
	info.kill = func() { killGroup(cmd.Process.Pid) }
	info.mu.Unlock()
	go p.tail.follow(errR, logger)
	go func() {
		err := cmd.Wait()
		killGroup(cmd.Process.Pid)
		// Its last words on stderr may still be in the pipe.
		select {
		case <-p.tail.done:
		case <-time.After(stopGrace):
		}
		info.set(p.exitError(err))
		close(p.exited)
	}()
	return p, nil
}

// exitError says how the process ended, with its last lines on stderr.
func (p *process) exitError(err error) error {
	var msg string
	var ee *exec.ExitError
	switch {
	case err == nil:
		msg = "the server exited (status 0)"
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		msg = fmt.Sprintf("the server exited with status %d", ee.ExitCode())
	case errors.As(err, &ee):
		msg = fmt.Sprintf("the server was killed (%v)", ee.ProcessState)
	default:
		msg = fmt.Sprintf("the server ended: %v", err)
	}
	if last := p.tail.last(); last != "" {
		msg += "; its stderr ended with: " + last
	}
	return errors.New(msg)
}

// stop closes stdin and gives the server stopGrace to exit, then SIGTERM
// and stopGrace more, then kills its process group, and waits until the
// leader was reaped.
func (p *process) stop() {
	p.stdin.Close()
	if p.waitExit(stopGrace) {
		return
	}
	termGroup(p.cmd.Process.Pid)
	if p.waitExit(stopGrace) {
		return
	}
	killGroup(p.cmd.Process.Pid)
	<-p.exited
}

// waitExit waits up to d for the leader to exit.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// stderrTail logs a server's stderr line by line and keeps the last lines,
// for the reason of a failed start.
type stderrTail struct {
	done  chan struct{} // closed at the end of stderr
	mu    sync.Mutex
	lines []string
}

const (
	stderrKeep    = 3
	stderrLineMax = 1024
)

func (t *stderrTail) follow(r *os.File, logger *slog.Logger) {
	defer close(t.done)
	defer r.Close()
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := br.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			if len(line) > stderrLineMax {
				line = line[:stderrLineMax] + "…"
			}
			logger.Info("mcp server stderr", slog.String("line", line))
			t.mu.Lock()
			t.lines = append(t.lines, line)
			if len(t.lines) > stderrKeep {
				t.lines = t.lines[1:]
			}
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (t *stderrTail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, " | ")
}

// filter copies the server's stdout to the SDK line by line, holding each
// line to MaxMessage and to being a JSON-RPC message, so that bad output
// costs a call, never the session:
//
//   - a line that is not JSON (a banner, a log line) is skipped with a
//     warning;
//   - a message over MaxMessage, or JSON that is not a JSON-RPC message,
//     that answers one of our requests becomes an error answer to it naming
//     the server and the limit; one that answers nothing is skipped;
//   - a message over MaxMessage whose request cannot be told ends the
//     connection (and so the calls in flight), naming the limit.
type filter struct {
	server string
	logger *slog.Logger
	info   *connInfo
	out    *io.PipeWriter

	eof func() // called at the end of the output, before the SDK sees it

	mu      sync.Mutex
	pending map[string]bool // requests sent and not yet answered
	skipped int
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func (f *filter) await(id jsonrpc.ID) {
	f.mu.Lock()
	f.pending[idKey(id)] = true
	f.mu.Unlock()
}

func (f *filter) answered(id jsonrpc.ID) {
	f.mu.Lock()
	delete(f.pending, idKey(id))
	f.mu.Unlock()
}

func (f *filter) awaited(id jsonrpc.ID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending[idKey(id)]
}

// keep is how much of the start and the end of an oversized line is kept
// to find its id.
const keep = 4096

func (f *filter) run(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, over, err := readLine(br)
		switch {
		case over != nil:
			if !f.oversized(over) {
				return
			}
		case len(bytes.TrimSpace(line)) > 0:
			if werr := f.pass(line); werr != nil {
				return
			}
		}
		if err != nil {
			f.eof()
			if r := f.info.reason(); r != nil {
				f.out.CloseWithError(r)
			} else if errors.Is(err, io.EOF) {
				f.out.Close()
			} else {
				f.out.CloseWithError(err)
			}
			return
		}
	}
}

// pass hands a well-formed message to the SDK, and handles the others.
func (f *filter) pass(line []byte) error {
	if !json.Valid(line) {
		f.skip(fmt.Sprintf("a line on stdout that is not JSON was skipped: %s", clip(string(line), 200)))
		return nil
	}
	if err := checkMessage(line); err != nil {
		var probe struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		if id, ierr := jsonrpc.MakeID(probe.ID); ierr == nil && id.IsValid() && f.awaited(id) {
			return f.answer(id, fmt.Sprintf("MCP server %q answered with a malformed message: %v", f.server, err))
		}
		f.skip(fmt.Sprintf("a message that is not JSON-RPC was skipped (%v): %s", err, clip(string(line), 200)))
		return nil
	}
	_, err := f.out.Write(append(line, '\n'))
	return err
}

// checkMessage says why a line of valid JSON is not a message the SDK
// accepts (its decoder would end the session): what jsonrpc.DecodeMessage
// checks, read without copying the result or params.
func checkMessage(line []byte) error {
	if line[0] != '{' {
		return errors.New("not a JSON object (batches are not part of the protocol since 2025-06-18)")
	}
	var m struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      any              `json:"id"`
		Method  *string          `json:"method"`
		Error   *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return err
	}
	id, err := jsonrpc.MakeID(m.ID)
	switch {
	case m.JSONRPC != "2.0":
		return fmt.Errorf("version %q, not \"2.0\"", m.JSONRPC)
	case err != nil:
		return err
	case m.Method == nil && !id.IsValid():
		return errors.New("neither a method nor an id")
	case m.Error != nil:
		var e struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(*m.Error, &e); err != nil {
			return fmt.Errorf("error: %w", err)
		}
	}
	return nil
}

// oversized handles a line over MaxMessage, of which head and tail were
// kept. It reports whether the connection goes on.
func (f *filter) oversized(o *overLine) bool {
	limit := bytesize.Text(MaxMessage)
	if id, ok := lineID(o.head, o.tail); ok && f.awaited(id) {
		msg := fmt.Sprintf("MCP server %q answered with a message of %s, over the limit of %s; the answer was dropped", f.server, sizeText(int(o.size)), limit)
		f.logger.Warn("mcp server answer over the limit dropped", slog.Int64("bytes", o.size), slog.String("limit", limit))
		return f.answer(id, msg) == nil
	} else if ok || bytes.Contains(o.head, []byte(`"method"`)) {
		f.skip(fmt.Sprintf("a message of %s that answers no request of ours, over the limit of %s, was skipped", sizeText(int(o.size)), limit))
		return true
	}
	err := fmt.Errorf("the server sent a message of %s, over the limit of %s, answering a request that could not be told; the connection was closed", sizeText(int(o.size)), limit)
	f.info.set(err)
	f.out.CloseWithError(err)
	return false
}

// answer gives the SDK an error answer to request id in the server's stead.
func (f *filter) answer(id jsonrpc.ID, msg string) error {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}})
	if err != nil {
		return err
	}
	_, err = f.out.Write(append(data, '\n'))
	return err
}

// skip logs a skipped line: the first few as warnings, then one in a
// hundred, so a chatty server cannot flood the log.
func (f *filter) skip(msg string) {
	f.mu.Lock()
	f.skipped++
	n := f.skipped
	f.mu.Unlock()
	if n <= 3 || n%100 == 0 {
		f.logger.Warn("mcp server: "+msg, slog.Int("skipped", n))
	}
}

// overLine is what is kept of a line over MaxMessage.
type overLine struct {
	head, tail []byte
	size       int64
}

// readLine reads one line without its newline. A line over MaxMessage is
// read to its end but only its head and tail are kept.
func readLine(br *bufio.Reader) (line []byte, over *overLine, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case over != nil:
			over.size += int64(len(chunk))
			over.tail = lastBytes(append(over.tail, chunk...), keep)
		case len(line)+len(chunk) > MaxMessage+1:
			all := append(line, chunk...)
			over = &overLine{head: bytes.Clone(firstBytes(all, keep)), tail: bytes.Clone(lastBytes(all, keep)), size: int64(len(all))}
			line = nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over != nil {
			over.tail = bytes.TrimRight(over.tail, "\r\n")
			return nil, over, err
		}
		return bytes.TrimRight(line, "\r\n"), nil, err
	}
}

func firstBytes(b []byte, n int) []byte { return b[:min(n, len(b))] }

func lastBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append([]byte(nil), b[len(b)-n:]...)
}

// tailID finds the id at the end of a message whose id comes last, as the
// TypeScript SDK writes them ({"result":…,"jsonrpc":"2.0","id":5}). Only
// the outermost object's last member can end the line so.
var tailID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`)
})

// lineID finds the id of an oversized message from its head (Go's and
// Python's SDKs write it before the result) or its tail.
func lineID(head, tail []byte) (jsonrpc.ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		for {
			k, err := dec.Token()
			key, ok := k.(string)
			if err != nil || !ok {
				break
			}
			v, err := dec.Token()
			if err != nil {
				break
			}
			if key == "id" {
				if id, err := jsonrpc.MakeID(v); err == nil && id.IsValid() {
					return id, true
				}
				break
			}
			if key != "jsonrpc" {
				break // the value is the big one: the id, if any, comes after it
			}
		}
	}
	if m := tailID().FindSubmatch(tail); m != nil {
		var v any
		if json.Unmarshal(m[1], &v) == nil {
			if id, err := jsonrpc.MakeID(v); err == nil && id.IsValid() {
				return id, true
			}
		}
	}
	return jsonrpc.ID{}, false
}

// commandLine renders a command and its arguments for messages.
func commandLine(cmd string, args []string) string {
	parts := append([]string{cmd}, args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\n'\"\\$") {
			parts[i] = fmt.Sprintf("%q", p)
		}
	}
	return strings.Join(parts, " ")
}

// clip shortens s to at most n bytes (at a rune boundary) with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
