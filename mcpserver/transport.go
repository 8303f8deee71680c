package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessage bounds one inbound line of the stdio transport.
const MaxMessage = mcp.DefaultMaxLineLength

// NewStdioTransport returns a newline-delimited JSON-RPC transport over r
// and w (stdin and stdout) that survives bad input: the SDK's own stdio
// transport ends the session at the first line that is not a JSON-RPC
// message, so each line is checked first, and one that is not a message
// (bad JSON, not a request, a batch, over MaxMessage) is answered with a
// JSON-RPC error while the session goes on.
func NewStdioTransport(r io.Reader, w io.Writer) mcp.Transport {
	out := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go filterLines(r, pw, out)
	return &mcp.IOTransport{Reader: pr, Writer: out}
}

// filterLines copies each well-formed message line of r to pw and answers
// the others on out. It closes pw when r ends.
func filterLines(r io.Reader, pw *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := checkMessage(line, tooLong); msg != nil {
				if _, werr := out.Write(msg); werr != nil {
					pw.CloseWithError(werr)
					return
				}
			} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
				return // the session is closed
			}
		}
		if err != nil {
			pw.Close() // EOF: the client is gone and the session ends
			return
		}
	}
}

// readLine reads one line without its newline, keeping at most MaxMessage
// bytes of it.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxMessage+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// checkMessage returns the error response for a line that is not one
// JSON-RPC message, or nil when the line may go to the session.
func checkMessage(line []byte, tooLong bool) []byte {
	switch {
	case tooLong:
		return errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message over %d bytes", MaxMessage))
	case !json.Valid(line):
		return errorLine(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		return errorLine(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		return errorLine(probe.ID, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return nil
}

func errorLine(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 || id[0] == '{' || id[0] == '[' {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: msg}})
	return append(data, '\n')
}

// lockedWriter keeps the session's messages and the filter's error lines
// whole: each is one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
