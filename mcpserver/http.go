package mcpserver

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNeedsToken refuses to serve HTTP beyond loopback without a token.
var ErrNeedsToken = errors.New("a non-loopback address needs a bearer token")

// ErrShortToken refuses a token too short to guard a non-loopback address.
var ErrShortToken = errors.New("the bearer token is too short")

// The HTTP transport's defaults (see HTTPConfig).
const (
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxSessions    = 256
	DefaultReadTimeout    = 30 * time.Second
	// MinTokenBytes is the shortest token accepted for a non-loopback
	// address: 32 bytes, what `openssl rand -hex 16` prints.
	MinTokenBytes = 32

	readHeaderTimeout = 10 * time.Second
	idleConnTimeout   = 2 * time.Minute
	sessionIDHeader   = "Mcp-Session-Id"
)

// CheckAddr refuses an HTTP listen address that is not loopback
// (127.0.0.0/8, ::1, localhost) unless token guards it, and a token shorter
// than MinTokenBytes there. An address with no host (":8080") listens on
// every interface, so it is not loopback; neither is a name that merely
// starts like one ("127.0.0.1.nip.io" resolves wherever its owner likes).
func CheckAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("http address %q: %w", addr, err)
	}
	switch {
	case isLoopback(host):
		return nil
	case token == "":
		return fmt.Errorf("http address %q: %w (name the variable holding one with --token-env)", addr, ErrNeedsToken)
	case len(token) < MinTokenBytes:
		return fmt.Errorf("http address %q: %w: %d bytes, and a non-loopback address needs at least %d (e.g. the output of `openssl rand -hex 32`)", addr, ErrShortToken, len(token), MinTokenBytes)
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HTTPConfig configures the streamable HTTP transport. The zero value is
// loopback use without a token, with the defaults.
type HTTPConfig struct {
	// Token, when set, must be carried by every request as
	// "Authorization: Bearer <token>"; any other request gets 401.
	Token string
	// AllowedOrigins are browser origins ("https://app.example.com") whose
	// requests are served besides loopback ones. A request with any other
	// Origin header gets 403 (the MCP spec: servers must validate Origin, or
	// any web page could drive a local server); a request with none (not a
	// browser) passes.
	AllowedOrigins []string
	// SessionTimeout closes a session that has had no request in flight for
	// this long. Zero: DefaultSessionTimeout; negative: never.
	SessionTimeout time.Duration
	// MaxSessions caps the live sessions: a new session past it closes the
	// one idle longest (one with a request in flight only when none is
	// idle). Zero: DefaultMaxSessions.
	MaxSessions int
	// ReadTimeout bounds the reading of one request's body, so a client
	// trickling it cannot hold the request open; it gets 408. Zero:
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// Now is the clock session idleness is measured by. Nil: time.Now.
	Now func() time.Time
}

func (c HTTPConfig) withDefaults() HTTPConfig {
	if c.SessionTimeout == 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// HTTPServer returns an http.Server serving HTTPHandler(cfg), with the
// timeouts of the connection itself: request headers must arrive within
// 10 seconds, and an idle keep-alive connection is closed after 2 minutes.
// (No write timeout: a session's event stream is long-lived by design.)
func (s *Server) HTTPServer(cfg HTTPConfig) *http.Server {
	return &http.Server{
		Handler:           s.HTTPHandler(cfg),
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleConnTimeout,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
}

// HTTPHandler serves the server over streamable HTTP: each request's Origin
// checked, then its token, its body read within cfg.ReadTimeout, and the
// sessions expired and capped as cfg says.
func (s *Server) HTTPHandler(cfg HTTPConfig) http.Handler {
	cfg = cfg.withDefaults()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{Logger: s.logger})
	table := newSessionTable(s, cfg)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); !originAllowed(origin, cfg.AllowedOrigins) {
			s.logger.Warn("refuse http request: origin not allowed", slog.String("origin", origin), slog.String("remote", r.RemoteAddr))
			http.Error(w, fmt.Sprintf("forbidden: origin %q is not allowed (loopback origins are; helios mcp --allow-origin allows another)", origin), http.StatusForbidden)
			return
		}
		if cfg.Token != "" && !bearerMatches(r.Header.Get("Authorization"), cfg.Token) {
			s.logger.Warn("refuse http request: missing or wrong bearer token", slog.String("remote", r.RemoteAddr))
			w.Header().Set("WWW-Authenticate", `Bearer realm="helios"`)
			http.Error(w, "unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			if code, err := readBody(w, r, cfg.ReadTimeout); err != nil {
				s.logger.Warn("refuse http request", slog.String("remote", r.RemoteAddr), slog.Any("error", err))
				http.Error(w, err.Error(), code)
				return
			}
		}
		id := r.Header.Get(sessionIDHeader)
		use := table.begin(id)
		h.ServeHTTP(w, r)
		table.end(use)
		if id == "" {
			if created := w.Header().Get(sessionIDHeader); created != "" {
				table.add(created)
			}
		}
	})
}

// bearerMatches checks an Authorization header against the token: the
// scheme is case-insensitive (RFC 7235), the token compared in constant
// time and whole.
func bearerMatches(header, token string) bool {
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(cred), []byte(token)) == 1
}

// originAllowed passes a request without an Origin (not a browser), from a
// loopback origin (a page on this machine: the user's own tools), or from
// an origin the user allowed. Everything else, "null" included, is a page
// of some other site driving the user's browser.
func originAllowed(origin string, allowed []string) bool {
	if origin == "" {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return isLoopback(u.Hostname())
}

// readBody reads the request's body within timeout and at most the SDK's
// limit, and hands it on buffered: a client trickling its body gets 408
// instead of holding the request, and its connection, open. It returns the
// status to answer with when it fails.
func readBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) (int, error) {
	rc := http.NewResponseController(w)
	// The connection's deadline is real time, whatever clock sessions use.
	deadlineSet := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	if err != nil || len(body) > mcp.DefaultMaxRequestBodyBytes {
		// What is left of the body is never read: the connection closes
		// after the answer (net/http would otherwise wait for the rest
		// before answering).
		w.Header().Set("Connection", "close")
	} else if deadlineSet {
		rc.SetReadDeadline(time.Time{}) // an event stream may follow
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, fmt.Errorf("request timeout: the body did not arrive within %s", timeout)
	case err != nil:
		return http.StatusBadRequest, fmt.Errorf("bad request: reading the body: %w", err)
	case len(body) > mcp.DefaultMaxRequestBodyBytes:
		return http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %d bytes", mcp.DefaultMaxRequestBodyBytes)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return 0, nil
}
