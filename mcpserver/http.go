package mcpserver

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNeedsToken refuses to serve HTTP beyond loopback without a token.
var ErrNeedsToken = errors.New("a non-loopback address needs a bearer token")

// CheckAddr refuses an HTTP listen address that is not loopback
// (127.0.0.0/8, ::1, localhost) unless a token guards it. An address with
// no host (":8080") listens on every interface, so it is not loopback.
func CheckAddr(addr string, hasToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("http address %q: %w", addr, err)
	}
	if hasToken || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("http address %q: %w (name the variable holding one with --token-env)", addr, ErrNeedsToken)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HTTPHandler serves the server over streamable HTTP. With a token, every
// request must carry "Authorization: Bearer <token>"; any other gets 401.
func (s *Server) HTTPHandler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{Logger: s.logger})
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			s.logger.Warn("mcp: http request refused: missing or wrong bearer token", slog.String("remote", r.RemoteAddr))
			w.Header().Set("WWW-Authenticate", `Bearer realm="helios"`)
			http.Error(w, "unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
