package mcpclient

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helios-agents/helios/kernel/bytesize"
)

// httpTransport speaks streamable HTTP (or HTTP+SSE, when cfg.SSE) to the
// server's URL, with its headers and bearer token on every request, and
// every answer bounded.
func (s *Server) httpTransport() mcp.Transport {
	base := http.DefaultTransport.(*http.Transport).Clone()
	client := &http.Client{Transport: &headerTransport{base: base, cfg: s.cfg}}
	if s.cfg.SSE {
		return sseTransport{&mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, MaxEventSize: MaxMessage}}
	}
	return &mcp.StreamableClientTransport{
		Endpoint:     s.cfg.URL,
		HTTPClient:   client,
		MaxEventSize: MaxMessage,
	}
}

// headerTransport adds the configured headers to each request and bounds
// each JSON answer; a stream's events are bounded by the SDK (MaxEventSize).
type headerTransport struct {
	base http.RoundTripper
	cfg  ServerConfig
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.cfg.Headers {
		req.Header.Set(k, v)
	}
	if t.cfg.BearerToken != "" {
		req.Header.Set("Authorization", "Bearer "+t.cfg.BearerToken)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body = &boundedBody{rc: resp.Body, left: MaxMessage, server: t.cfg.Name}
	}
	return resp, nil
}

// boundedBody fails a read past MaxMessage, naming the server and the
// limit.
type boundedBody struct {
	rc     io.ReadCloser
	left   int64
	server string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, b.err()
	}
	return n, err
}

func (b *boundedBody) err() error {
	return fmt.Errorf("MCP server %q sent an answer over the limit of %s", b.server, bytesize.Text(MaxMessage))
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// sseTransport keeps an HTTP+SSE server's event stream open past the
// start: the SDK ties the stream to the context Connect is given, which is
// the start's, cancelled once the server is up. The start's context still
// bounds the connecting; the stream ends when the connection is closed.
type sseTransport struct{ inner *mcp.SSEClientTransport }

func (t sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.inner.Connect(life)
	if !stop() { // the start timed out or was stopped meanwhile
		if err == nil {
			conn.Close()
		}
		return nil, cmp.Or(ctx.Err(), err)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &sseConn{Connection: conn, cancel: cancel}, nil
}

// sseConn ends the event stream when it is closed.
type sseConn struct {
	mcp.Connection
	cancel context.CancelFunc
}

func (c *sseConn) Close() error {
	defer c.cancel()
	return c.Connection.Close()
}
