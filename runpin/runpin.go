package runpin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// ErrChanged is wrapped by Check's error when a file is not the one the
// user trusted: its content changed, it is gone, or it was not there to be
// hashed when the config was trusted.
var ErrChanged = errors.New("changed since the config was trusted")

// Pins are the recorded digests of the files a config runs that lie
// inside the model-writable roots. A nil *Pins checks nothing: an embedder
// that trusts its own folder. Its methods are safe for concurrent use.
type Pins struct {
	roots []string
	sums  map[string]string

	mu     sync.Mutex
	warned map[string]bool
}

// New is the pins of sums (a file's absolute path to the hex SHA-256 of
// its content, as Record returns), guarding the files under roots (the
// work dir and the sandbox's writable paths, absolute).
func New(roots []string, sums map[string]string) *Pins {
	return &Pins{roots: cleanRoots(roots), sums: sums}
}

// Record hashes each of files that lies under roots and exists, and
// returns their digests by absolute path: what a trust records.
func Record(roots, files []string) map[string]string {
	roots = cleanRoots(roots)
	out := map[string]string{}
	for _, f := range files {
		if !under(roots, f) {
			continue
		}
		if sum, err := hashFile(f); err == nil {
			out[f] = sum
		}
	}
	return out
}

// Guarded says whether path lies under a model-writable root: whether
// Check looks at it.
func (p *Pins) Guarded(path string) bool { return p != nil && under(p.roots, path) }

// Check hashes again each of files that lies under the roots. The error
// (wrapping ErrChanged, or fs.ErrNotExist for a file that is gone) names
// the first file that is not as recorded and what to do.
func (p *Pins) Check(files []string) error {
	if p == nil {
		return nil
	}
	for _, f := range files {
		if !under(p.roots, f) {
			continue
		}
		got, err := hashFile(f)
		if err != nil {
			return fmt.Errorf("%s cannot be run: %w", f, err)
		}
		want, ok := p.sums[f]
		if !ok {
			return fmt.Errorf("%s lies where the model can write and was not there when the config was trusted: %w; read it, then run `helios trust` again", f, ErrChanged)
		}
		if got != want {
			return fmt.Errorf("%s lies where the model can write and %w; read it, then run `helios trust` again", f, ErrChanged)
		}
	}
	return nil
}

// First says whether key (a hook's or server's name and the file) is
// reported for the first time: a disabled run warns once.
func (p *Pins) First(key string) bool {
	if p == nil {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.warned[key] {
		return false
	}
	if p.warned == nil {
		p.warned = map[string]bool{}
	}
	p.warned[key] = true
	return true
}

// interpreters run the script their first operand names.
var interpreters = []string{"bash", "sh", "dash", "zsh", "ksh", "fish", "python", "python3", "python2", "node", "nodejs", "deno", "bun", "tsx", "ts-node", "ruby", "perl", "php", "pwsh", "lua", "Rscript"}

// Argv returns the files argv runs, absolute (a relative path resolved
// against dir): its program when it is a path (a bare name is looked up
// on PATH, outside the roots), and the script of an interpreter (the first
// operand after its options: `python3 -u x.py` runs x.py; `python3 -m mod`
// and `node -e …` run no file).
func Argv(argv []string, dir string) []string {
	if len(argv) == 0 {
		return nil
	}
	var out []string
	prog := argv[0]
	if strings.ContainsRune(prog, '/') {
		out = append(out, abs(prog, dir))
	}
	if !slices.Contains(interpreters, strings.TrimSuffix(filepath.Base(prog), ".exe")) {
		return out
	}
	for _, a := range argv[1:] {
		switch {
		case a == "-m", a == "-c", a == "-e", a == "--eval", a == "-":
			return out
		case strings.HasPrefix(a, "-"):
			continue
		}
		return append(out, abs(a, dir))
	}
	return out
}

// Command returns the files a shell command runs: Argv of each simple
// command of it (split at ; & | && || and newlines), its words unquoted
// and $NAME / ${NAME} expanded with env. A word with a command
// substitution or a glob is not followed.
func Command(command string, env func(string) string, dir string) []string {
	var out []string
	for _, argv := range simpleCommands(command, env) {
		out = append(out, Argv(argv, dir)...)
	}
	return out
}

// simpleCommands splits command into the argv of each simple command.
// Assignments before the program (A=1 ./x.sh) are skipped.
func simpleCommands(command string, env func(string) string) [][]string {
	var cmds [][]string
	var argv []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			w := word.String()
			if !(len(argv) == 0 && isAssignment(w)) {
				argv = append(argv, w)
			}
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(argv) > 0 {
			cmds = append(cmds, argv)
		}
		argv = nil
	}
	expandAt := func(s string, i int) (string, int) { // s[i] == '$'
		if i+1 < len(s) && s[i+1] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "$", i + 1
			}
			name := s[i+2 : i+end]
			name, _, _ = strings.Cut(name, ":-")
			return env(name), i + end + 1
		}
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || j > i+1 && s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i+1 {
			return "$", j
		}
		return env(s[i+1 : j]), j
	}
	s := command
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
			i++
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			endCmd()
			i++
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				end = len(s) - i - 1
			}
			word.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 2
		case c == '"':
			inWord = true
			i++
			for i < len(s) && s[i] != '"' {
				switch {
				case s[i] == '\\' && i+1 < len(s):
					word.WriteByte(s[i+1])
					i += 2
				case s[i] == '$':
					v, j := expandAt(s, i)
					word.WriteString(v)
					i = j
				default:
					word.WriteByte(s[i])
					i++
				}
			}
			i++
		case c == '\\' && i+1 < len(s):
			word.WriteByte(s[i+1])
			inWord = true
			i += 2
		case c == '$':
			v, j := expandAt(s, i)
			word.WriteString(v)
			inWord = true
			i = j
		default:
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	endCmd()
	return cmds
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	return strings.IndexFunc(name, func(r rune) bool {
		return r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9')
	}) < 0
}

func abs(p, dir string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// cleanRoots are roots, clean, each also with its symlinks resolved (a
// work dir under /tmp may be reached through a link).
func cleanRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if r == "" {
			continue
		}
		out = append(out, filepath.Clean(r))
		if real, err := filepath.EvalSymlinks(r); err == nil && real != filepath.Clean(r) {
			out = append(out, real)
		}
	}
	return out
}

// under says whether path lies under one of roots, by name and with its
// folder's symlinks resolved (a link inside the work dir to a script
// elsewhere is still the work dir's to change).
func under(roots []string, path string) bool {
	path = filepath.Clean(path)
	in := func(p string) bool {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) || r == string(filepath.Separator) {
				return true
			}
		}
		return false
	}
	if in(path) {
		return true
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && in(real) {
		return true
	}
	return false
}

// hashFile is the hex SHA-256 of the file at path, its links followed.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
