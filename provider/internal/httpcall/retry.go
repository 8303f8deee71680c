package httpcall

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter is the longest Retry-After waited for: a server asking for
// minutes is reporting a quota, not a blip, and the caller should hear it.
const MaxRetryAfter = time.Minute

// Retryable marks an attempt's failure as worth another attempt.
type Retryable struct {
	Err      error
	After    time.Duration // the server's Retry-After, when HasAfter
	HasAfter bool
}

func (r *Retryable) Error() string { return r.Err.Error() }
func (r *Retryable) Unwrap() error { return r.Err }

// Policy says how often and how long Do retries.
type Policy struct {
	// MaxRetries is how many times a failed attempt is retried; 0 never.
	MaxRetries int
	// Backoff is the wait before retry number n (1, 2, ...) when the
	// server sends no Retry-After. Nil means DefaultBackoff.
	Backoff func(n int) time.Duration
	// Logger receives each retry (Warn); nil discards. It is told the
	// attempt's error as it is: the adapters hide their key where an error
	// quotes the server, so what is retried holds none.
	Logger *slog.Logger
	// Op names the call in the log ("chat completion", "messages").
	Op string
}

// Do runs attempt until it succeeds or fails in a way another attempt
// cannot heal. attempt reports whether it passed output to the caller: a
// retry after that would show the same words twice, so it is never made.
// Only errors wrapping *Retryable are retried. Cancelling ctx ends the wait
// and Do returns ctx.Err().
func Do(ctx context.Context, p Policy, attempt func() (emitted bool, err error)) error {
	backoff := p.Backoff
	if backoff == nil {
		backoff = DefaultBackoff
	}
	for n := 0; ; n++ {
		emitted, err := attempt()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if emitted {
			return fmt.Errorf("failed after output began (not retried): %w", err)
		}
		var r *Retryable
		if !errors.As(err, &r) {
			return err
		}
		if n >= p.MaxRetries {
			return fmt.Errorf("giving up after %d attempts: %w", n+1, r.Err)
		}
		wait := r.After
		switch {
		case !r.HasAfter:
			wait = backoff(n + 1)
		case r.After > MaxRetryAfter:
			return fmt.Errorf("server asked to retry after %s: %w", r.After, r.Err)
		}
		if p.Logger != nil {
			p.Logger.Warn(p.Op+" failed; retrying", slog.Int("retry", n+1), slog.Duration("wait", wait), slog.Any("error", r.Err))
		}
		if err := Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// Retries reads the adapters' MaxRetries convention: zero means 3,
// negative means never retry.
func Retries(configured int) int {
	switch {
	case configured == 0:
		return 3
	case configured < 0:
		return 0
	}
	return configured
}

// StatusRetryable reports whether an HTTP status is worth another attempt:
// 429 (rate limited) and 5xx (Anthropic's 529 "overloaded" among them).
func StatusRetryable(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// RetryAfter reads Retry-After-Ms (OpenAI) or Retry-After in seconds or as
// an HTTP date.
func RetryAfter(h http.Header) (time.Duration, bool) {
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

// TransportError classifies a failure to get response headers: worth
// retrying unless it is a certificate problem, which will not go away.
func TransportError(err error) error {
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		return err
	}
	return &Retryable{Err: err}
}

// DefaultBackoff: 500ms, 1s, 2s, ... capped at 10s, each drawn from
// [d/2, d) so that clients rejected together do not return together.
func DefaultBackoff(attempt int) time.Duration {
	d := 10 * time.Second
	if attempt >= 1 && attempt <= 5 {
		d = 500 * time.Millisecond << (attempt - 1)
	}
	return d/2 + rand.N(d/2)
}

// Sleep waits d or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
