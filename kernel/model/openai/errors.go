package openai

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/helios-agents/helios/kernel/redact"
)

// ErrMalformed is wrapped by the errors for answers that are not the Chat
// Completions format (an SSE event or a body that is not the expected JSON).
var ErrMalformed = errors.New("malformed response")

// StatusError is an HTTP error status from the endpoint, with the message
// the server gave.
type StatusError struct {
	// StatusCode is the HTTP status, 400 or above.
	StatusCode int
	// Message is the server's error message ({"error":{"message":...}} and
	// its variants), or the start of the body when it has none.
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
		b.WriteString(" (check the base URL and the model name)")
	}
	return b.String()
}

// retryable marks an attempt's failure as worth another attempt.
type retryable struct {
	err      error
	after    time.Duration // the server's Retry-After, when hasAfter
	hasAfter bool
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// statusError reads the error body of a non-2xx response. The message
// hides the secrets (the key a proxy may repeat), so a StatusError found
// with errors.As holds none either.
func statusError(res *http.Response, keySent bool, secrets *redact.Secrets) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	msg, code := serverMessage(raw)
	if msg == "" {
		msg = strings.TrimSpace(secrets.String(string(raw)))
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
	}
	msg = secrets.String(msg)
	err := &StatusError{StatusCode: res.StatusCode, Message: msg, KeySent: keySent}
	retry := res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500
	// An exhausted quota also comes as 429; waiting does not refill it.
	if code == "insufficient_quota" {
		retry = false
	}
	if !retry {
		return err
	}
	after, ok := retryAfter(res.Header)
	return &retryable{err: err, after: after, hasAfter: ok}
}

// serverMessage finds the message in the error shapes servers use:
// {"error":{"message":..., "code":...}} (OpenAI, DeepSeek, llama.cpp,
// Ollama), {"error":"..."}, {"message":...} (vLLM) and {"detail":"..."}.
func serverMessage(raw []byte) (msg, code string) {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return "", ""
	}
	if len(body.Error) > 0 {
		var obj struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
			Type    string          `json:"type"`
		}
		var s string
		switch {
		case json.Unmarshal(body.Error, &obj) == nil && obj.Message != "":
			var c string
			if json.Unmarshal(obj.Code, &c) != nil || c == "" {
				c = obj.Type
			}
			return obj.Message, c
		case json.Unmarshal(body.Error, &s) == nil && s != "":
			return s, ""
		}
	}
	if body.Message != "" {
		return body.Message, ""
	}
	var s string
	if json.Unmarshal(body.Detail, &s) == nil && s != "" {
		return s, ""
	}
	if len(body.Detail) > 0 && string(body.Detail) != "null" {
		return string(body.Detail), ""
	}
	return "", ""
}

// retryAfter reads Retry-After-Ms (OpenAI) or Retry-After in seconds or as
// an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			s = 0
		}
		if s > 24*3600 {
			s = 24 * 3600 // time.Duration overflows far above this
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// transportError classifies a failure to get response headers: worth
// retrying unless it is the caller's cancellation or a certificate problem,
// which will not go away.
func transportError(err error) error {
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		return err
	}
	return &retryable{err: err}
}
