package model

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Errors every adapter wraps, so that a caller tells failures apart
// whatever the provider.
var (
	// ErrMalformed is wrapped by the errors for answers that are not the
	// wire format the adapter speaks: an event or a body that is not the
	// expected JSON, a stream in another provider's format (the message
	// then names the provider setting to check), a page that is not an API.
	ErrMalformed = errors.New("malformed response")
	// ErrTooLarge is wrapped by the error of an answer that exceeds one of
	// an adapter's limits; the message names the limit. It is not retried.
	ErrTooLarge = errors.New("model answer exceeds a limit")
)

// StatusError is an HTTP error status from the endpoint, with the message
// the server gave. Adapters remove the API key from Message before they
// return it: a server that echoes the key it refused must not put it in a
// log or a terminal.
type StatusError struct {
	// StatusCode is the HTTP status, 400 or above.
	StatusCode int
	// Message is the server's error message, or the start of the body when
	// it has none.
	Message string
	// KeySent reports whether an API key was sent; it shapes the hint.
	KeySent bool
}

// Error says the status, the server's message and a hint at the likely fix.
func (e *StatusError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	switch {
	case e.StatusCode == http.StatusUnauthorized && e.KeySent:
		b.WriteString(" (the API key was refused)")
	case e.StatusCode == http.StatusUnauthorized:
		b.WriteString(" (no API key was sent; the endpoint requires one)")
	case e.StatusCode == http.StatusForbidden:
		b.WriteString(" (the API key lacks access to this model or endpoint)")
	case e.StatusCode == http.StatusNotFound:
		b.WriteString(" (check the base URL and the model name, and that model.provider names the API the server speaks)")
	}
	return b.String()
}
