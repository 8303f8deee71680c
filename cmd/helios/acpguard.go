package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// maxACPLine bounds one JSON-RPC message from the client. The SDK's reader
// ends the whole connection on a line over 10 MiB; a longer one is
// answered here with an error and dropped, the connection unaffected.
const maxACPLine = 8 << 20

// lineWriter is the connection's stdout: the SDK's messages and the
// guard's errors, one whole line per Write, never interleaved. waitFor
// lets a caller wait for a line containing some text (a response).
type lineWriter struct {
	w io.Writer

	mu      sync.Mutex
	waiters map[string]chan struct{}
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	for s, ch := range l.waiters {
		if bytes.Contains(p, []byte(s)) {
			close(ch)
			delete(l.waiters, s)
		}
	}
	return n, err
}

// waitFor returns a channel closed once a line containing s is written.
func (l *lineWriter) waitFor(s string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waiters == nil {
		l.waiters = map[string]chan struct{}{}
	}
	ch, ok := l.waiters[s]
	if !ok {
		ch = make(chan struct{})
		l.waiters[s] = ch
	}
	return ch
}

// rpcError is a JSON-RPC error response; the error object is the SDK's.
type rpcError struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Error   *acp.RequestError `json:"error"`
}

func (l *lineWriter) replyError(id json.RawMessage, e *acp.RequestError) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(rpcError{JSONRPC: "2.0", ID: id, Error: e})
	if err != nil {
		return err
	}
	_, err = l.Write(append(b, '\n'))
	return err
}

// guardLines copies the client's messages from in to the SDK (out), one
// line each, and answers on w what the SDK would drop silently or die of:
// a line that is not JSON (a parse error), not a JSON-RPC object (an
// invalid request), or longer than limit (an invalid request naming the
// size, with the request's id when the line's start or end shows it).
func guardLines(in io.Reader, out io.Writer, w *lineWriter, limit int) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, size, head, tail, err := readLine(r, limit)
		if size > limit {
			id := idOf(head)
			if id == nil {
				id = idOf(tail)
			}
			method := "a message"
			if m := methodRE.FindSubmatch(head); m != nil {
				method = string(m[1])
			}
			if werr := w.replyError(id, acp.NewInvalidRequest(map[string]any{"error": fmt.Sprintf(
				"%s of %d bytes: longer than the %d MiB a message may have; dropped", method, size, limit>>20)})); werr != nil {
				return werr
			}
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			if bad := checkMessage(t); bad != nil {
				if werr := w.replyError(idOf(t), bad); werr != nil {
					return werr
				}
			} else if _, werr := out.Write(append(t, '\n')); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line. Within limit it returns it whole; past limit it
// keeps only its first and last 4 KiB (head, tail) and its size.
func readLine(r *bufio.Reader, limit int) (line []byte, size int, head, tail []byte, err error) {
	const keep = 4 << 10
	for {
		chunk, rerr := r.ReadSlice('\n')
		size += len(chunk)
		if size <= limit {
			line = append(line, chunk...)
		} else {
			if line != nil {
				head, line = line[:min(len(line), keep)], nil
			}
			if head == nil {
				head = append([]byte(nil), chunk[:min(len(chunk), keep)]...)
			}
			tail = append(tail, chunk...)
			if len(tail) > keep {
				tail = append([]byte(nil), tail[len(tail)-keep:]...)
			}
		}
		if !errors.Is(rerr, bufio.ErrBufferFull) {
			if size > limit && head == nil {
				head = tail
			}
			return line, size, head, tail, rerr
		}
	}
}

var (
	idRE     = regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+)`)
	methodRE = regexp.MustCompile(`"method"\s*:\s*"([^"\\]{1,64})"`)
)

// idOf finds a request's id in (part of) a line; nil when none shows.
func idOf(b []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(b, &m) == nil && len(m.ID) > 0 {
		return m.ID
	}
	if sub := idRE.FindSubmatch(b); sub != nil {
		return json.RawMessage(sub[1])
	}
	return nil
}

// checkMessage returns the error a line gets when it is no JSON-RPC
// message: not JSON at all, or not an object with a method or an id.
func checkMessage(line []byte) *acp.RequestError {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return acp.NewParseError(map[string]any{"error": "malformed JSON-RPC: not valid JSON: " + strings.TrimPrefix(fmt.Sprint(err), "json: ")})
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return acp.NewInvalidRequest(map[string]any{"error": "malformed JSON-RPC: a message must be a JSON object"})
	}
	_, hasMethod := m["method"]
	_, hasID := m["id"]
	if !hasMethod && !hasID {
		return acp.NewInvalidRequest(map[string]any{"error": `malformed JSON-RPC: a message needs a "method" (a request or notification) or an "id" (a response)`})
	}
	if v, ok := m["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return acp.NewInvalidRequest(map[string]any{"error": `malformed JSON-RPC: "jsonrpc" must be "2.0"`})
	}
	return nil
}
