package cmdhooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/sandbox"
)

// inherited is env (nil: Helios's own) without the secrets Helios holds:
// a variable named in hide or with sandbox.ReservedPrefix, or whose value
// is a secret of secrets. A value is compared whole, not searched: a short
// database password ("postgres") must not take PATH away from a hook.
func inherited(env, hide []string, secrets *redact.Secrets) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		switch {
		case !ok, slices.Contains(hide, name), strings.HasPrefix(name, sandbox.ReservedPrefix):
			continue
		case val != "" && secrets.String(val) == redact.Mark:
			continue
		}
		out = append(out, kv)
	}
	return out
}

// envOf is the environment of a command run for session id: the
// inherited one, and CLAUDE_ENV_FILE when the session has an env file,
// which is made (with its folder) if it is missing, so that a hook can
// append to it. A file that cannot be made is a warning and no variable.
func (c *Hooks) envOf(id string) ([]string, error) {
	if c.envFile == nil {
		return c.env, nil
	}
	path := c.envFile(id)
	if path == "" {
		return c.env, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return c.env, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return c.env, err
	}
	if err := f.Close(); err != nil {
		return c.env, err
	}
	return append(slices.Clip(c.env), "CLAUDE_ENV_FILE="+path), nil
}

// envLookup is env's value of a name, the last setting winning, as a shell
// sees it.
func envLookup(env []string) func(string) string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(name string) string { return m[name] }
}
