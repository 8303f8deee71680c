package redact

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Mark replaces each occurrence of a secret.
const Mark = "[REDACTED]"

// MinLen is the shortest value Add accepts.
const MinLen = 4

// Secrets is a set of secret values. The zero value holds none and is
// ready to use; a nil *Secrets holds none too. It is safe for concurrent
// use: values added later apply to every String from then on.
type Secrets struct {
	mu     sync.RWMutex
	values []string
	r      *strings.Replacer // nil when there is no value
}

// New returns a Secrets holding values (see Add).
func New(values ...string) *Secrets {
	s := &Secrets{}
	s.Add(values...)
	return s
}

// Add adds values to hide; empty values, values shorter than MinLen and
// values already held are ignored. A value's URL query encoding is hidden
// too, when it differs.
func (s *Secrets) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A new slice each time: String reads the old one without the lock.
	held := slices.Clone(s.values)
	for _, v := range values {
		if len(v) < MinLen {
			continue
		}
		for _, form := range []string{v, url.QueryEscape(v)} {
			if !slices.Contains(held, form) {
				held = append(held, form)
			}
		}
	}
	if len(held) == len(s.values) {
		return
	}
	// Longest first, so a value that contains another is hidden whole.
	slices.SortFunc(held, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(held))
	for _, v := range held {
		pairs = append(pairs, v, Mark)
	}
	s.values, s.r = held, strings.NewReplacer(pairs...)
}

// Len returns how many values (encodings included) s hides.
func (s *Secrets) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.values)
}

// String returns text with every secret replaced by Mark.
func (s *Secrets) String(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	values, r := s.values, s.r
	s.mu.RUnlock()
	// Most text holds no secret: a search per value (a few, each at memory
	// speed) is much cheaper than the replacer's scan of every byte, which
	// two or more values make byte by byte.
	for _, v := range values {
		if strings.Contains(text, v) {
			return r.Replace(text)
		}
	}
	return text
}

// Error returns err with its text redacted: err itself when it holds no
// secret (or is nil), else an error whose Error is the redacted text and
// whose Unwrap is err, so errors.Is and errors.As still see the chain.
func (s *Secrets) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := s.String(msg); red != msg {
		return &redacted{msg: red, err: err}
	}
	return err
}

type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

// Writer returns a writer that redacts each Write before passing it to w.
// A secret split across two writes is not found: give it whole lines (as
// fmt.Fprintf and the slog handlers do).
func (s *Secrets) Writer(w io.Writer) io.Writer { return writer{s: s, w: w} }

type writer struct {
	s *Secrets
	w io.Writer
}

func (w writer) Write(p []byte) (int, error) {
	if w.s.Len() == 0 { // nothing to hide: no copy of p
		return w.w.Write(p)
	}
	red := w.s.String(string(p))
	if red == string(p) {
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, red); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Handler returns a slog.Handler that redacts each record's message and
// string, error and other values (groups included) before h handles it.
func (s *Secrets) Handler(h slog.Handler) slog.Handler { return &handler{s: s, h: h} }

type handler struct {
	s *Secrets
	h slog.Handler
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.s.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &handler{s: h.s, h: h.h.WithAttrs(red)}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{s: h.s, h: h.h.WithGroup(name)}
}

// attr redacts one attribute's value: strings, errors and anything else
// that prints (by its text), groups recursively; numbers, booleans,
// times and durations pass as they are.
func (h *handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.s.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = h.attr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.Any(a.Key, h.s.Error(err))
		}
		text := v.String()
		if red := h.s.String(text); red != text {
			return slog.String(a.Key, red)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
