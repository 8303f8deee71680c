package openai

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/provider/internal/httpcall"
)

// The model port's error classes, under the names this package has always
// used: see model.ErrMalformed, model.ErrTooLarge and model.StatusError.
var (
	// ErrMalformed is wrapped by the errors for answers that are not the
	// Chat Completions format (an SSE event or a body that is not the
	// expected JSON, or a stream in Anthropic's Messages format).
	ErrMalformed = model.ErrMalformed
	// ErrTooLarge is wrapped by the error of an answer that exceeds one of
	// the client's limits; the message names the limit. It is not retried.
	ErrTooLarge = model.ErrTooLarge
)

// StatusError is an HTTP error status from the endpoint, with the message
// the server gave (the API key removed from it).
type StatusError = model.StatusError

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
	retry := httpcall.StatusRetryable(res.StatusCode)
	// An exhausted quota also comes as 429; waiting does not refill it.
	if code == "insufficient_quota" {
		retry = false
	}
	if !retry {
		return err
	}
	after, ok := httpcall.RetryAfter(res.Header)
	return &httpcall.Retryable{Err: err, After: after, HasAfter: ok}
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
