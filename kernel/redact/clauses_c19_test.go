package redact_test

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/kernel/redact"
)

// secretValuer logs as the secret it holds, resolved only when logged.
type secretValuer struct{ v string }

func (s secretValuer) LogValue() slog.Value { return slog.StringValue("token " + s.v) }

// Protects (C19): secrets are redacted from everything logged, however
// the logger was derived: after WithGroup (a package's logger under its
// name), With after WithGroup, and from values that resolve themselves
// (slog.LogValuer), alone or inside a group.
func TestHandlerRedactsEveryDerivedLogger(t *testing.T) {
	s := redact.New(key)
	var out bytes.Buffer
	base := slog.New(s.Handler(slog.NewJSONHandler(&out, nil)))
	loggers := map[string]*slog.Logger{
		"base":            base,
		"group":           base.WithGroup("mcp"),
		"group then with": base.WithGroup("mcp").With("server", "srv", "auth", "Bearer "+key),
		"nested groups":   base.WithGroup("a").WithGroup("b"),
		"with then group": base.With("auth", key).WithGroup("c"),
	}
	for name, log := range loggers {
		out.Reset()
		log.Warn("refused "+key, "err", errors.New("401 for "+key), "v", secretValuer{key}, slog.Group("g", "lv", secretValuer{key}))
		line := out.String()
		assert.NotContains(t, line, key, "%s: %s", name, line)
		assert.Contains(t, line, `"refused [REDACTED]"`, name)
		assert.Contains(t, line, `"token [REDACTED]"`, name)
	}
}
