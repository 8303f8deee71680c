package host

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// hclogger adapts the kernel's *slog.Logger to the hclog.Logger go-plugin
// logs through (its own messages: starting, exited, failed to exit).
//
// The plugin's stderr does not come through here: go-plugin would parse its
// JSON lines with unchecked type assertions, so that one line such as
// {"@message": 5} from a hostile plugin would panic the kernel. The logger
// go-plugin names after the plugin's executable for that purpose is
// switched off (go-plugin then skips the parsing), and the lines reach
// lineLogger through ClientConfig.Stderr instead.
type hclogger struct {
	l       *slog.Logger
	name    string
	off     bool
	stderr  string // the name go-plugin gives the stderr logger
	implied []any
}

var _ hclog.Logger = (*hclogger)(nil)

func (h *hclogger) Log(level hclog.Level, msg string, args ...any) {
	if h.off || level == hclog.Off || level == hclog.NoLevel {
		return
	}
	args = append(slices.Clone(h.implied), args...)
	// go-plugin calls the executable's path "plugin"; here that key is the
	// plugin's configured name.
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == "plugin" {
			args[i] = "command"
		}
	}
	if h.name != "" {
		args = append(args, "logger", h.name)
	}
	h.l.Log(context.Background(), slogLevel(level), msg, args...)
}

func (h *hclogger) Trace(msg string, args ...any) { h.Log(hclog.Trace, msg, args...) }
func (h *hclogger) Debug(msg string, args ...any) { h.Log(hclog.Debug, msg, args...) }
func (h *hclogger) Info(msg string, args ...any)  { h.Log(hclog.Info, msg, args...) }
func (h *hclogger) Warn(msg string, args ...any)  { h.Log(hclog.Warn, msg, args...) }
func (h *hclogger) Error(msg string, args ...any) { h.Log(hclog.Error, msg, args...) }

func (h *hclogger) enabled(l hclog.Level) bool {
	return !h.off && h.l.Enabled(context.Background(), slogLevel(l))
}

func (h *hclogger) IsTrace() bool { return h.enabled(hclog.Trace) }
func (h *hclogger) IsDebug() bool { return h.enabled(hclog.Debug) }
func (h *hclogger) IsInfo() bool  { return h.enabled(hclog.Info) }
func (h *hclogger) IsWarn() bool  { return h.enabled(hclog.Warn) }
func (h *hclogger) IsError() bool { return h.enabled(hclog.Error) }

func (h *hclogger) ImpliedArgs() []any { return h.implied }

func (h *hclogger) With(args ...any) hclog.Logger {
	c := *h
	c.implied = append(slices.Clone(h.implied), args...)
	return &c
}

func (h *hclogger) Name() string { return h.name }

func (h *hclogger) Named(name string) hclog.Logger {
	c := *h
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	c.off = c.off || name == h.stderr
	return &c
}

func (h *hclogger) ResetNamed(name string) hclog.Logger {
	c := *h
	c.name = name
	c.off = name == h.stderr
	return &c
}

// SetLevel is ignored: the kernel's handler decides what is kept.
func (h *hclogger) SetLevel(hclog.Level) {}

func (h *hclogger) GetLevel() hclog.Level {
	if h.off {
		return hclog.Off
	}
	return hclog.Trace
}

func (h *hclogger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(h.StandardWriter(opts), "", 0)
}

func (h *hclogger) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return &lineLogger{l: h.l, stream: "go-plugin"}
}

func slogLevel(l hclog.Level) slog.Level {
	switch l {
	case hclog.Trace, hclog.Debug:
		return slog.LevelDebug
	case hclog.Info:
		return slog.LevelInfo
	case hclog.Warn:
		return slog.LevelWarn
	}
	return slog.LevelError
}

// maxLine bounds one logged line; the rest of a longer line is dropped.
const maxLine = 64 << 10

// tailLines is how many of the last lines a lineLogger keeps, to explain a
// plugin that failed to start.
const tailLines = 5

// lineLogger re-logs a plugin's output stream line by line under the
// plugin's name. A JSON line in the hclog format (what plugins/sdk writes:
// @level, @message) keeps its level, message and fields; any other line is
// logged as it is, at info, or at error from a Go panic on. Malformed input
// is logged, never trusted.
type lineLogger struct {
	l      *slog.Logger
	stream string

	mu      sync.Mutex
	buf     []byte
	drop    bool // the current line passed maxLine
	inPanic bool
	tail    []string
}

func (w *lineLogger) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.add(p)
			break
		}
		w.add(p[:i])
		w.flush()
		p = p[i+1:]
	}
	return n, nil
}

func (w *lineLogger) add(p []byte) {
	if room := maxLine - len(w.buf); len(p) > room {
		p = p[:max(room, 0)]
		w.drop = true
	}
	w.buf = append(w.buf, p...)
}

func (w *lineLogger) flush() {
	line := strings.TrimRight(string(w.buf), "\r")
	if w.drop {
		line += " …(truncated)"
	}
	w.buf, w.drop = w.buf[:0], false
	if strings.TrimSpace(line) == "" {
		return
	}
	w.tail = append(w.tail, line)
	if len(w.tail) > tailLines {
		w.tail = w.tail[1:]
	}
	if level, msg, attrs, ok := parseHCLogLine(line); ok {
		w.l.Log(context.Background(), level, msg, append(attrs, slog.String("stream", w.stream))...)
		return
	}
	if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
		w.inPanic = true
	}
	level := slog.LevelInfo
	if w.inPanic {
		level = slog.LevelError
	}
	w.l.Log(context.Background(), level, line, slog.String("stream", w.stream))
}

// Tail returns the last few lines, oldest first.
func (w *lineLogger) Tail() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.tail)
}

// parseHCLogLine reads one JSON log line of a plugin. Anything that is not
// an object with a string @message is not one.
func parseHCLogLine(line string) (slog.Level, string, []any, bool) {
	if !strings.HasPrefix(line, "{") {
		return 0, "", nil, false
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return 0, "", nil, false
	}
	msg, ok := m["@message"].(string)
	if !ok {
		return 0, "", nil, false
	}
	lvl, _ := m["@level"].(string)
	level := slog.LevelInfo
	switch hclog.LevelFromString(lvl) {
	case hclog.Trace, hclog.Debug:
		level = slog.LevelDebug
	case hclog.Warn:
		level = slog.LevelWarn
	case hclog.Error:
		level = slog.LevelError
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		switch k {
		case "@message", "@level", "@timestamp":
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	attrs := make([]any, 0, len(keys))
	for _, k := range keys {
		attrs = append(attrs, slog.Any(strings.TrimPrefix(k, "@"), m[k]))
	}
	return level, msg, attrs, true
}
