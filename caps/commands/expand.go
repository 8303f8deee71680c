package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

// ErrBashNotAllowed is returned by Expand for a !`cmd` of a command whose
// allowed-tools does not allow it.
var ErrBashNotAllowed = errors.New("!`command` needs Bash in allowed-tools")

// The Bash tool's sandbox is a Runner.
var _ Runner = (*sandbox.Sandbox)(nil)

// Expansion is a command made into a prompt.
type Expansion struct {
	Command Command
	// Prompt is the text to send: the body with the arguments and command
	// outputs in place, then the attached files.
	Prompt string
	// Warnings name what was refused (an @path outside the project and
	// home, a binary file) or failed (a !`cmd` exiting non-zero).
	Warnings []string
}

// Expand reads command name ("/name" too) and expands it with args.
func (s *Set) Expand(ctx context.Context, name, args string) (Expansion, error) {
	c, _, err := s.Get(name)
	if err != nil {
		return Expansion{}, err
	}
	if c.Err != nil {
		return Expansion{}, fmt.Errorf("command %q: %w", c.Name, c.Err)
	}
	return s.expand(ctx, c, args)
}

var (
	// bangRe is Claude Code's !`cmd`.
	bangRe = regexp.MustCompile("!`([^`\n]+)`")
	// atRe is @path after the start of a line or a space.
	atRe = regexp.MustCompile(`(^|\s)@([^\s` + "`" + `]+)`)
	// argRe is a placeholder; $10 is $1 then "0", as in Claude Code.
	argRe = regexp.MustCompile(`\$ARGUMENTS|\$[1-9]`)
)

func (s *Set) expand(ctx context.Context, c Command, args string) (Expansion, error) {
	ex := Expansion{Command: c}
	words := splitArgs(args)
	subst := func(text string) string {
		return argRe.ReplaceAllStringFunc(text, func(m string) string {
			if m == "$ARGUMENTS" {
				return args
			}
			i, _ := strconv.Atoi(m[1:])
			if i <= len(words) {
				return words[i-1]
			}
			return ""
		})
	}
	var (
		b        strings.Builder
		attached []string
		seen     = map[string]bool{}
	)
	for _, seg := range segments(c.body) {
		if seg.fenced {
			b.WriteString(subst(seg.text))
			continue
		}
		text := seg.text
		for _, m := range atRe.FindAllStringSubmatch(text, -1) {
			p := strings.TrimRight(m[2], ".,;:!?)]}'\"")
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			content, warn := s.attach(p, c.Source == SourceUser)
			if warn != "" {
				ex.Warnings = append(ex.Warnings, fmt.Sprintf("%s: @%s: %s", c.Path, p, warn))
			}
			if content != "" {
				attached = append(attached, fmt.Sprintf("<file path=%q>\n%s\n</file>", p, strings.TrimRight(content, "\n")))
			}
		}
		last := 0
		for _, loc := range bangRe.FindAllStringSubmatchIndex(text, -1) {
			b.WriteString(subst(text[last:loc[0]]))
			last = loc[1]
			line := subst(text[loc[2]:loc[3]])
			if err := allowed(c.AllowedTools, line); err != nil {
				return Expansion{}, fmt.Errorf("command %q (%s): !`%s`: %w", c.Name, c.Path, line, err)
			}
			out, warn := s.run(ctx, line)
			if warn != "" {
				ex.Warnings = append(ex.Warnings, fmt.Sprintf("%s: !`%s`: %s", c.Path, line, warn))
			}
			b.WriteString(out)
		}
		b.WriteString(subst(text[last:]))
	}
	body := b.String()
	if args != "" && !argRe.MatchString(c.body) {
		body = strings.TrimRight(body, "\n") + "\n\nARGUMENTS: " + args + "\n"
	}
	if len(attached) > 0 {
		body = strings.TrimRight(body, "\n") + "\n\n" + strings.Join(attached, "\n\n") + "\n"
	}
	ex.Prompt = body
	return ex, nil
}

// segment is a run of the body's lines, inside a fenced code block or not.
type segment struct {
	text   string
	fenced bool
}

// segments cuts body at its ``` and ~~~ fences.
func segments(body string) []segment {
	var (
		out   []segment
		cur   strings.Builder
		fence string
	)
	flush := func(fenced bool) {
		if cur.Len() > 0 {
			out = append(out, segment{cur.String(), fenced})
			cur.Reset()
		}
	}
	for _, line := range strings.SplitAfter(body, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			flush(false)
			fence = t[:3]
			cur.WriteString(line)
		case fence != "" && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			cur.WriteString(line)
			flush(true)
			fence = ""
		default:
			cur.WriteString(line)
		}
	}
	flush(fence != "")
	return out
}

// allowed says whether tools let line run: "Bash" allows any command,
// "Bash(git status:*)" a command starting with "git status" and
// "Bash(git status)" exactly that one, with no shell operator after the
// pattern that could start another command.
func allowed(tools []string, line string) error {
	line = strings.TrimSpace(line)
	for _, t := range tools {
		if t == "Bash" {
			return nil
		}
		pat, ok := strings.CutPrefix(t, "Bash(")
		if !ok || !strings.HasSuffix(pat, ")") {
			continue
		}
		pat = strings.TrimSuffix(pat, ")")
		if prefix, ok := strings.CutSuffix(pat, ":*"); ok {
			rest, ok := strings.CutPrefix(line, prefix)
			if ok && (rest == "" || rest[0] == ' ') && !strings.ContainsAny(rest, ";&|`$()<>\n") {
				return nil
			}
			continue
		}
		if line == pat {
			return nil
		}
	}
	if len(tools) == 0 {
		return fmt.Errorf("%w (it has none)", ErrBashNotAllowed)
	}
	return fmt.Errorf("%w (it has %s)", ErrBashNotAllowed, strings.Join(tools, ", "))
}

// expandSeq numbers the sandbox sessions of !`cmd` runs.
var expandSeq atomic.Uint64

// maxOutput bounds what one !`cmd` inserts.
const maxOutput = 64 << 10

// run runs line confined and returns what to insert and a warning.
func (s *Set) run(ctx context.Context, line string) (string, string) {
	if s.cfg.Runner == nil {
		return "[not run: no sandbox to run it in]", "not run: no sandbox to run it in"
	}
	dir := ""
	if s.cfg.Work != nil {
		dir = s.cfg.Work.Dir()
	}
	id := fmt.Sprintf("command-expand-%d-%d", os.Getpid(), expandSeq.Add(1))
	if e, ok := s.cfg.Runner.(interface{ EndSession(string) }); ok {
		defer e.EndSession(id)
	}
	sc, _, err := s.cfg.Runner.Command(id, dir, s.shell(), "-c", line)
	if err != nil {
		return fmt.Sprintf("[not run: %v]", err), fmt.Sprintf("not run: %v", err)
	}
	out := &capped{max: maxOutput}
	sc.Cmd.Stdout, sc.Cmd.Stderr = out, out
	sc.Cmd.WaitDelay = time.Second
	if err := sc.Start(); err != nil {
		return fmt.Sprintf("[not run: %v]", err), fmt.Sprintf("not run: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- sc.Cmd.Wait() }()
	timer := time.NewTimer(s.cfg.Timeout)
	defer timer.Stop()
	var stopped string
	select {
	case err = <-done:
	case <-timer.C:
		kill(sc.Cmd)
		err = <-done
		stopped = fmt.Sprintf("killed after %s", s.cfg.Timeout)
	case <-ctx.Done():
		kill(sc.Cmd)
		err = <-done
		stopped = fmt.Sprintf("cancelled: %v", context.Cause(ctx))
	}
	text := strings.TrimRight(strings.ToValidUTF8(out.String(), "\uFFFD"), "\n")
	var exitErr *exec.ExitError
	switch {
	case stopped != "":
		return text + " [" + stopped + "]", stopped
	case errors.As(err, &exitErr):
		status := fmt.Sprintf("exit code %d", exitErr.ExitCode())
		return text + " [" + status + "]", status
	case err != nil:
		return text + fmt.Sprintf(" [%v]", err), err.Error()
	}
	return text, ""
}

func (s *Set) shell() string {
	if s.cfg.Shell != "" {
		return s.cfg.Shell
	}
	if _, err := exec.LookPath("bash"); err == nil {
		return "bash"
	}
	return "sh"
}

// attach returns the content of the file p names and a warning: p
// relative to the work dir, absolute, or ~/…; it must be a regular UTF-8
// file inside the project or, for a user's own command (home), the home
// folder: a command that came with a repository cannot attach
// ~/.aws/credentials to the prompt. A path that does not exist is no file
// reference (Claude Code's templates write "@package.json or
// @Cargo.toml"): nothing, silently.
func (s *Set) attach(p string, home bool) (string, string) {
	abs := p
	switch {
	case strings.HasPrefix(p, "~/"):
		if s.cfg.Home == "" {
			return "", ""
		}
		abs = filepath.Join(s.cfg.Home, p[2:])
	case !filepath.IsAbs(p):
		if s.cfg.Work == nil {
			return "", ""
		}
		abs = filepath.Join(s.cfg.Work.Dir(), p)
	}
	var (
		data []byte
		err  error
	)
	if s.cfg.Work != nil {
		var fi fs.FileInfo
		if fi, err = s.cfg.Work.Stat(abs); err == nil {
			if !fi.Mode().IsRegular() {
				return "", "refused: not a regular file"
			}
			if fi.Size() > maxFile {
				return "", fmt.Sprintf("refused: %d bytes, over the %d-byte limit", fi.Size(), maxFile)
			}
			data, err = s.cfg.Work.ReadFile(abs)
		}
	} else {
		err = workfs.ErrOutsideWorkDir
	}
	if errors.Is(err, workfs.ErrOutsideWorkDir) {
		if !home {
			if _, serr := os.Stat(abs); serr != nil {
				return "", ""
			}
			return "", "refused: a project's command attaches only files of the project"
		}
		data, err = s.homeFile(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", ""
			}
			return "", "refused: " + err.Error()
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", ""
		}
		return "", "refused: " + err.Error()
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return "", "refused: not UTF-8 text"
	}
	return string(data), ""
}

// errOutside refuses a path outside the project and the home folder.
var errOutside = errors.New("outside the project and the home folder")

// homeFile reads abs when it is, symlinks resolved, a regular file below
// the home folder.
func (s *Set) homeFile(abs string) ([]byte, error) {
	if s.cfg.Home == "" {
		return nil, errOutside
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !within(s.cfg.Home, abs) {
			return nil, errOutside
		}
		return nil, err
	}
	home, err := filepath.EvalSymlinks(s.cfg.Home)
	if err != nil {
		return nil, err
	}
	if !within(home, real) {
		return nil, errOutside
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > maxFile {
		return nil, fmt.Errorf("%d bytes, over the %d-byte limit", fi.Size(), maxFile)
	}
	return os.ReadFile(real)
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// splitArgs splits args into words as a shell would: spaces separate,
// quotes group, a backslash escapes the next character outside single
// quotes.
func splitArgs(args string) []string {
	var (
		out   []string
		cur   strings.Builder
		in    bool
		quote rune
		esc   bool
	)
	for _, r := range args {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, in = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// capped keeps the first max bytes written and counts the rest.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
	} else {
		if room > 0 {
			c.buf.Write(p[:room])
		}
		c.dropped += len(p) - max(room, 0)
	}
	return len(p), nil
}

func (c *capped) String() string {
	if c.dropped > 0 {
		return c.buf.String() + fmt.Sprintf("\n[%d more bytes of output cut]", c.dropped)
	}
	return c.buf.String()
}
