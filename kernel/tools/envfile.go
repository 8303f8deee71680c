package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/sandbox"
)

// maxEnvFile bounds what is read of a session's env file.
const maxEnvFile = 1 << 20

// exportLine is the one shape of line an env file holds.
var exportLine = regexp.MustCompile(`^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*?)\s*$`)

// sessionEnv is what the env file of the session of ctx adds to a Bash
// command's environment env: its "export NAME=VALUE" lines, in order, as
// "NAME=value" entries. Another line is ignored with a warning naming the
// file and the line, once per file, line and text.
func (s *Set) sessionEnv(ctx context.Context, env []string) []string {
	if s.envFile == nil {
		return nil
	}
	path := s.envFile(contract.SessionID(ctx))
	if path == "" {
		return nil
	}
	data, err := readEnvFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.warnEnv(ctx, path, 0, err.Error())
		}
		if data == nil {
			return nil
		}
	}
	out, problems := parseEnvFile(data, env, s.deny)
	for _, p := range problems {
		s.warnEnv(ctx, path, p.line, p.msg)
	}
	return out
}

// readEnvFile reads path, at most maxEnvFile bytes: with more, it returns
// what it read and an error saying the rest is ignored.
func readEnvFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnvFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxEnvFile {
		cut := strings.LastIndexByte(string(data[:maxEnvFile]), '\n') + 1
		return data[:cut], fmt.Errorf("over %d bytes: the lines past that are ignored", maxEnvFile)
	}
	return data, nil
}

// envProblem is a line of an env file that was ignored, and why.
type envProblem struct {
	line int
	msg  string
}

// parseEnvFile reads data's "export NAME=VALUE" lines. VALUE is a word as
// the shell reads it: plain, 'single-quoted' (as written) or
// "double-quoted" (\" \\ \$ \` escapes); $NAME and ${NAME} outside single
// quotes expand to the variable of env or of an earlier line, or to "".
// Blank lines and # comments are skipped. A line of another shape, a value
// the shell would read otherwise (spaces, command substitution, ;, |, …)
// or a name that may never reach a command (deny, HELIOS_*) is ignored and
// reported.
func parseEnvFile(data []byte, env, deny []string) ([]string, []envProblem) {
	vars := map[string]string{}
	for _, kv := range env {
		if name, val, ok := strings.Cut(kv, "="); ok {
			vars[name] = val
		}
	}
	var out []string
	var problems []envProblem
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		m := exportLine.FindStringSubmatch(line)
		if m == nil {
			problems = append(problems, envProblem{n, fmt.Sprintf("%q is not an \"export NAME=VALUE\" line: ignored", clip(trimmed))})
			continue
		}
		name := m[1]
		if err := sandbox.CheckEnvName(name, deny); err != nil {
			problems = append(problems, envProblem{n, fmt.Sprintf("%v: ignored", err)})
			continue
		}
		val, err := shellWord(m[2], func(k string) string { return vars[k] })
		if err != nil {
			problems = append(problems, envProblem{n, fmt.Sprintf("the value of %s %v: ignored", name, err)})
			continue
		}
		vars[name] = val
		out = append(out, name+"="+val)
	}
	return out, problems
}

// shellWord reads w as one shell word with parameter expansion only.
func shellWord(w string, lookup func(string) string) (string, error) {
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(w); i++ {
		ch := w[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				b.WriteByte(ch)
			}
		case ch == '\\':
			if i+1 == len(w) {
				return "", errors.New("ends in a lone backslash")
			}
			next := w[i+1]
			if quote == '"' && !strings.ContainsRune("\"\\$`", rune(next)) {
				b.WriteByte(ch) // kept, as the shell keeps it
			}
			b.WriteByte(next)
			i++
		case ch == '$':
			name, used, err := parameter(w[i+1:])
			if err != nil {
				return "", err
			}
			b.WriteString(lookup(name))
			i += used
		case ch == '`':
			return "", errors.New("holds a command substitution, which is not run")
		case ch == '"':
			if quote == '"' {
				quote = 0
			} else {
				quote = '"'
			}
		case ch == '\'' && quote == 0:
			quote = '\''
		case quote == 0 && strings.IndexByte(" \t;&|<>()*?[]{}~#", ch) >= 0:
			return "", fmt.Errorf("holds %q outside quotes, which the shell does not read as part of the value", ch)
		default:
			b.WriteByte(ch)
		}
	}
	if quote != 0 {
		return "", fmt.Errorf("has an unclosed %c quote", quote)
	}
	return b.String(), nil
}

// varName matches a variable name at the start of a string.
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)

// parameter reads what follows a "$": a name or {name}, returning the name
// and how many bytes it took.
func parameter(rest string) (string, int, error) {
	if strings.HasPrefix(rest, "{") {
		end := strings.IndexByte(rest, '}')
		if end < 0 || !varName.MatchString(rest[1:end]) || len(varName.FindString(rest[1:end])) != end-1 {
			return "", 0, errors.New("holds a ${...} that is not ${NAME}")
		}
		return rest[1:end], end + 1, nil
	}
	if strings.HasPrefix(rest, "(") {
		return "", 0, errors.New("holds a command substitution, which is not run")
	}
	name := varName.FindString(rest)
	if name == "" {
		return "", 0, errors.New(`holds a "$" that names no variable (write \$ for a dollar sign)`)
	}
	return name, len(name), nil
}

// clip shortens a line for a warning.
func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

// warnEnv reports a problem with line n (0: the whole file) of the env file
// at path, once per path, line and message.
func (s *Set) warnEnv(ctx context.Context, path string, n int, msg string) {
	at := path
	if n > 0 {
		at = fmt.Sprintf("%s:%d", path, n)
	}
	key := at + "\x00" + msg
	if _, seen := s.envWarned.LoadOrStore(key, true); seen {
		return
	}
	contract.Warn(ctx, contract.Warning{Source: "env-file", Path: at, Message: "CLAUDE_ENV_FILE " + msg})
}
