package unit_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/mcpserver"
)

// `helios mcp --http` (issue 22): Origin validated, idle sessions expired
// and capped, a trickling body cut off. Each test serves a real server on
// 127.0.0.1 and speaks raw HTTP to it, as a script or a browser would.

// fakeClock is the sessions' clock, moved by the test.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// mcpHTTPServe serves a one-skill catalog over HTTP with cfg.
func mcpHTTPServe(t *testing.T, cfg mcpserver.HTTPConfig) (*mcpserver.Server, string) {
	t.Helper()
	w := newMCPWorld(t, "off")
	mcpPutSkill(t, w.project, "alpha", "name: alpha\ndescription: First.", "alpha body\n")
	srv := mcpNewServer(t, w.k)
	hs := httptest.NewUnstartedServer(nil)
	hs.Config = srv.HTTPServer(cfg)
	hs.Start()
	t.Cleanup(hs.Close)
	return srv, hs.URL
}

// mcpRequest POSTs one JSON-RPC message with the given headers and returns
// the status and the response's session id.
func mcpRequest(t *testing.T, url, body string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Mcp-Session-Id")
}

const mcpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}`

// mcpOpenSession initializes a session as a script would (no event
// stream) and returns its id.
func mcpOpenSession(t *testing.T, url string) string {
	t.Helper()
	code, id := mcpRequest(t, url, mcpInit, nil)
	require.Equal(t, http.StatusOK, code)
	require.NotEmpty(t, id)
	code, _ = mcpRequest(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
	require.Equal(t, http.StatusAccepted, code)
	return id
}

// mcpPing sends a ping in session id and returns the status: 200 while the
// session lives, 404 once it is closed.
func mcpPing(t *testing.T, url, id string) int {
	t.Helper()
	code, _ := mcpRequest(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
	return code
}

func mcpLiveSessions(srv *mcpserver.Server) int {
	n := 0
	for range srv.MCP().Sessions() {
		n++
	}
	return n
}

// A page of a foreign site (any Origin that is not loopback, "null"
// included, or a name that merely starts like a loopback address) gets
// 403, token or not; loopback origins, an allowed origin and requests
// with no Origin (not a browser) pass.
func TestMCPHTTPOrigin(t *testing.T) {
	token := strings.Repeat("t", mcpserver.MinTokenBytes)
	_, url := mcpHTTPServe(t, mcpserver.HTTPConfig{Token: token, AllowedOrigins: []string{"https://app.example.com"}})
	auth := "Bearer " + token
	for origin, want := range map[string]int{
		"":                             http.StatusOK,
		"http://localhost:3000":        http.StatusOK,
		"http://127.0.0.1:6274":        http.StatusOK,
		"https://127.8.9.10":           http.StatusOK,
		"http://[::1]:8080":            http.StatusOK,
		"https://app.example.com":      http.StatusOK,
		"https://evil.example":         http.StatusForbidden,
		"null":                         http.StatusForbidden,
		"http://127.0.0.1.nip.io":      http.StatusForbidden,
		"http://localhost.evil.com":    http.StatusForbidden,
		"https://app.example.com.evil": http.StatusForbidden,
		"file://":                      http.StatusForbidden,
		"chrome-extension://abcdef":    http.StatusForbidden,
	} {
		h := map[string]string{"Authorization": auth}
		if origin != "" {
			h["Origin"] = origin
		}
		code, _ := mcpRequest(t, url, mcpInit, h)
		assert.Equal(t, want, code, "Origin %q", origin)
	}
	code, _ := mcpRequest(t, url, mcpInit, map[string]string{"Origin": "https://evil.example"})
	assert.Equal(t, http.StatusForbidden, code, "a foreign origin without the token")

	// DNS rebinding: a page of evil.example whose name now resolves to
	// 127.0.0.1 sends its own Host (and, same-origin, no Origin).
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(mcpInit))
	require.NoError(t, err)
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", auth)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusForbidden, res.StatusCode, "a Host that is not loopback on a loopback address")
}

// An idle session (no request in flight) is closed after the timeout; one
// used meanwhile is not; a session with an open event stream is never idle.
func TestMCPHTTPSessionExpiry(t *testing.T) {
	clock := newFakeClock()
	srv, url := mcpHTTPServe(t, mcpserver.HTTPConfig{SessionTimeout: 30 * time.Minute, Now: clock.Now})
	used, idle := mcpOpenSession(t, url), mcpOpenSession(t, url)
	streaming := mcpOpenSession(t, url)
	stream := mcpOpenStream(t, url, streaming)
	defer stream.Close()

	clock.advance(20 * time.Minute)
	require.Equal(t, http.StatusOK, mcpPing(t, url, used))
	clock.advance(11 * time.Minute) // idle: 31 minutes; used: 11
	mcpOpenSession(t, url)          // a new session sweeps the table

	assert.Equal(t, http.StatusNotFound, mcpPing(t, url, idle), "idle past the timeout: closed")
	assert.Equal(t, http.StatusOK, mcpPing(t, url, used))
	assert.Equal(t, http.StatusOK, mcpPing(t, url, streaming), "an open event stream is a client listening")
	assert.Equal(t, 3, mcpLiveSessions(srv))
}

// Sessions past the cap close the one idle longest first, sparing a session
// with a request in flight; a flood of sessions never holds more than the
// cap.
func TestMCPHTTPSessionCap(t *testing.T) {
	clock := newFakeClock()
	srv, url := mcpHTTPServe(t, mcpserver.HTTPConfig{MaxSessions: 3, Now: clock.Now})
	busy := mcpOpenSession(t, url) // the oldest, but listening
	stream := mcpOpenStream(t, url, busy)
	defer stream.Close()
	clock.advance(time.Minute)
	oldest := mcpOpenSession(t, url)
	clock.advance(time.Minute)
	recent := mcpOpenSession(t, url)
	clock.advance(time.Minute)
	require.Equal(t, http.StatusOK, mcpPing(t, url, oldest)) // now the most recently used
	clock.advance(time.Minute)

	newest := mcpOpenSession(t, url)
	assert.Equal(t, http.StatusNotFound, mcpPing(t, url, recent), "the one idle longest is closed")
	for _, id := range []string{busy, oldest, newest} {
		assert.Equal(t, http.StatusOK, mcpPing(t, url, id))
	}

	for range 20 {
		clock.advance(time.Second)
		mcpOpenSession(t, url)
		assert.LessOrEqual(t, mcpLiveSessions(srv), 3)
	}
	assert.Equal(t, http.StatusOK, mcpPing(t, url, busy), "still listening, still spared")
}

// mcpOpenStream opens session id's event stream (GET) and returns it once
// the server answered with its headers.
func mcpOpenStream(t *testing.T, url, id string) io.Closer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	return closerFunc(func() error { cancel(); return res.Body.Close() })
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// A client trickling its request body is answered 408 once the read
// timeout passes, instead of holding the request (and its connection)
// open; requests that send their body go on being served.
func TestMCPHTTPSlowBodyCutOff(t *testing.T) {
	srv, url := mcpHTTPServe(t, mcpserver.HTTPConfig{ReadTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n",
		strings.TrimPrefix(url, "http://"), len(mcpInit))
	stop := make(chan struct{})
	defer close(stop)
	go func() { // one byte every 50ms: the body would take 7 seconds
		for i := 0; i < len(mcpInit)-1; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := conn.Write([]byte{mcpInit[i]}); err != nil {
				return
			}
		}
	}()
	// Generous: only a server that never cuts the body off waits past it.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "the server answers before the body is complete")
	assert.Equal(t, http.StatusRequestTimeout, res.StatusCode)
	assert.Zero(t, mcpLiveSessions(srv), "no session was created")

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	defer cs.Close()
	text, isErr := mcpCall(t, cs, "skill", map[string]any{"name": "alpha"})
	assert.False(t, isErr)
	assert.Contains(t, text, "alpha body")
}
