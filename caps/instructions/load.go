package instructions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/workfs"
)

// DefaultMaxBytes is the budget of the instructions when Config.MaxBytes is 0.
const DefaultMaxBytes = 32 << 10

// maxDepth bounds how deep @path imports nest.
const maxDepth = 5

// maxImports bounds the imports of one load, whatever their depth.
const maxImports = 256

// The instruction file names, in order of preference within a directory.
var dirNames = []string{"AGENTS.override.md", "AGENTS.md", "CLAUDE.md"}

// localName adds to its directory's file.
const localName = "CLAUDE.local.md"

// State says what became of a file.
type State string

const (
	// Included: the model gets the file.
	Included State = "included"
	// Cut: the budget left the file out.
	Cut State = "cut"
	// Refused: the file could not be used (binary, invalid UTF-8, outside
	// the project and home, not a regular file); a warning says why.
	Refused State = "refused"
)

// File is one instruction file of a load.
type File struct {
	// Path is the file as the model sees it named: relative to the project
	// root, or under "~/" for the user's own.
	Path string `json:"path"`
	// Bytes is the size of its text with its imports expanded.
	Bytes int `json:"bytes"`
	// State says whether it was included, cut or refused.
	State State `json:"state"`

	abs  string
	text string
}

// Result is one load of the instructions.
type Result struct {
	// Files are the instruction files, farthest first, then the imports
	// and files that were refused.
	Files []File
	// Message is exactly what the model gets at the start of a session;
	// empty when no file was included.
	Message string
	// Warnings say what was cut, refused or made visible, naming the file
	// (and line, for an import).
	Warnings []contract.Warning
	// Budget is the budget the files were held to, in bytes.
	Budget int
}

// Config configures the capability. Its zero fields take the defaults.
type Config struct {
	// Port is the guarded work-dir port (required).
	Port *workfs.FS
	// Home is the user's home; "" means os.UserHomeDir. Without a home
	// there are no user-level files and no ~/ imports.
	Home string
	// MaxBytes is the budget of the instructions in bytes; 0 means
	// DefaultMaxBytes.
	MaxBytes int
	// Logger receives the warnings of each load that differ from the last
	// one's; nil discards them.
	Logger *slog.Logger
	// OnLoaded, when set, is told which files a session's model was just
	// given: at its start, and a nested folder's (the instructions:loaded
	// point, Claude Code's InstructionsLoaded).
	OnLoaded func(ctx context.Context, in kernel.InstructionsLoadedIn)
}

// Capability is the instructions capability.
type Capability struct {
	cfg     Config
	workDir string
	root    string
	proj    *workfs.FS
	ownProj bool
	home    *workfs.FS
	homeDir string
	logged  string

	// looked is, per session, the Seq up to which tool calls were looked
	// at for nested folders: each step looks only at the calls since.
	mu     sync.Mutex
	looked map[string]int64
}

// New opens the capability on cfg.Port's work dir.
func New(cfg Config) (*Capability, error) {
	if cfg.Port == nil {
		return nil, errors.New("instructions: no work-dir port")
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Capability{cfg: cfg, workDir: cfg.Port.Dir(), proj: cfg.Port, looked: map[string]int64{}}
	c.root = projectRoot(c.workDir)
	if c.root != c.workDir {
		p, err := workfs.New(c.root)
		if err != nil {
			return nil, fmt.Errorf("instructions: open project root: %w", err)
		}
		c.proj, c.ownProj = p, true
	}
	home := cfg.Home
	if home == "" {
		home, _ = os.UserHomeDir() // no home: no user-level files
	}
	if home != "" {
		if h, err := workfs.New(home); err == nil {
			c.home, c.homeDir = h, h.Dir()
		}
	}
	return c, nil
}

// Name is "instructions".
func (c *Capability) Name() string { return "instructions" }

// Root returns the project root: the nearest ancestor of the work dir
// holding .git, else the work dir.
func (c *Capability) Root() string { return c.root }

// Close releases the guards the capability opened.
func (c *Capability) Close() error {
	var errs []error
	if c.ownProj {
		errs = append(errs, c.proj.Close())
	}
	if c.home != nil {
		errs = append(errs, c.home.Close())
	}
	return errors.Join(errs...)
}

// projectRoot is the nearest ancestor of dir (dir included) holding .git,
// else dir.
func projectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// Load reads the instructions as a session opened now would get them.
func (c *Capability) Load(ctx context.Context) Result {
	l := c.newLoader()
	units := l.base()
	res := l.budget(units)
	res.Message = renderFirst(res)
	c.log(res.Warnings)
	return res
}

// log logs warnings when they differ from the last load's.
func (c *Capability) log(warns []contract.Warning) {
	var key strings.Builder
	for _, w := range warns {
		key.WriteString(w.String())
		key.WriteByte('\n')
	}
	if key.String() == c.logged {
		return
	}
	c.logged = key.String()
	for _, w := range warns {
		c.cfg.Logger.Warn("instructions", slog.String("path", w.Path), slog.String("message", w.Message))
	}
}

type loader struct {
	c       *Capability
	files   []File // refused ones, listed after the units
	warns   []contract.Warning
	imports int
}

func (c *Capability) newLoader() *loader { return &loader{c: c} }

func (l *loader) warn(path, format string, args ...any) {
	l.warns = append(l.warns, contract.Warning{Source: "instructions", Path: path, Message: fmt.Sprintf(format, args...)})
}

// base is the user's file, then each directory's from the root down to the
// work dir: farthest first.
func (l *loader) base() []File {
	var units []File
	if l.c.home != nil {
		for _, name := range []string{filepath.Join(".helios", "AGENTS.md"), filepath.Join(".claude", "CLAUDE.md")} {
			if u, ok := l.file(filepath.Join(l.c.homeDir, name)); ok {
				units = append(units, u...)
				break
			}
		}
	}
	for _, d := range l.c.chain() {
		units = append(units, l.dir(d)...)
	}
	return units
}

// chain is the directories from the project root down to the work dir.
func (c *Capability) chain() []string {
	dirs := []string{c.root}
	rel, err := filepath.Rel(c.root, c.workDir)
	if err != nil || rel == "." {
		return dirs
	}
	d := c.root
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, seg)
		dirs = append(dirs, d)
	}
	return dirs
}

// dir is a directory's instruction file (the first of dirNames there) and
// its CLAUDE.local.md. The directory is listed once rather than each name
// tried: that is what a session start costs per directory.
func (l *loader) dir(d string) []File {
	g, ok := l.c.guard(d)
	if !ok {
		return nil
	}
	entries, err := g.ReadDir(d)
	if err != nil {
		return nil // a folder that is gone or unreadable holds no instructions
	}
	has := func(name string) bool {
		_, found := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		return found
	}
	var units []File
	for _, name := range dirNames {
		if has(name) {
			if u, ok := l.file(filepath.Join(d, name)); ok {
				units = append(units, u...)
				break
			}
		}
	}
	if has(localName) {
		if u, ok := l.file(filepath.Join(d, localName)); ok {
			units = append(units, u...)
		}
	}
	return units
}

// file reads one top-level instruction file with its imports. ok is false
// when it does not exist; a refused file is ok with no unit (it is listed).
func (l *loader) file(abs string) ([]File, bool) {
	name := l.c.display(abs)
	text, err := l.read(abs, l.c.cfg.MaxBytes, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		l.refuse(name, err)
		return nil, true
	}
	text = l.expand(abs, name, text, 0, []string{abs})
	return []File{{Path: name, Bytes: len(text), State: Included, abs: abs, text: text}}, true
}

func (l *loader) refuse(name string, err error) {
	l.files = append(l.files, File{Path: name, State: Refused})
	l.warn(name, "refused: %v", err)
}

// display names abs for the model: relative to the project root, else
// under ~/.
func (c *Capability) display(abs string) string {
	if rel, ok := inside(c.root, abs); ok {
		return filepath.ToSlash(rel)
	}
	if c.homeDir != "" {
		if rel, ok := inside(c.homeDir, abs); ok {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return abs
}

// inside reports whether p is dir or below it, with p relative to dir.
func inside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

var (
	errOutside    = errors.New("it leaves the project and home")
	errNotRegular = errors.New("not a regular file")
	errBinary     = errors.New("binary (holds a NUL byte)")
	errNotUTF8    = errors.New("not valid UTF-8")
)

// guard is the port abs must be read through: the project's, else home's.
func (c *Capability) guard(abs string) (*workfs.FS, bool) {
	if _, ok := inside(c.root, abs); ok {
		return c.proj, true
	}
	if c.home != nil {
		if _, ok := inside(c.homeDir, abs); ok {
			return c.home, true
		}
	}
	return nil, false
}

// read returns the text of abs, read through its guard, at most limit
// bytes (a longer file is cut at a character boundary, with a warning
// naming it), sanitized for the model.
func (l *loader) read(abs string, limit int, name string) (string, error) {
	g, ok := l.c.guard(abs)
	if !ok {
		return "", errOutside
	}
	f, err := g.Open(abs) // non-blocking: a FIFO is refused below, not waited on
	if err != nil {
		if errors.Is(err, workfs.ErrOutsideWorkDir) {
			return "", fmt.Errorf("%w: %w", errOutside, err)
		}
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", errNotRegular
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", errBinary
	}
	if len(data) > limit {
		data = cutRunes(data, limit)
		l.warn(name, "larger than the budget of %d bytes: only its first %d bytes were read", limit, len(data))
	}
	if !utf8.Valid(data) {
		return "", errNotUTF8
	}
	text, found := sanitize.Clean(string(data))
	if found.Count > 0 {
		l.warn(name, "%s made visible", found)
	}
	return text, nil
}

// cutRunes cuts b to at most n bytes without splitting a character.
func cutRunes(b []byte, n int) []byte {
	b = b[:n]
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

// expand replaces each @path line of text (outside fenced code blocks) by
// the text of that file, itself expanded, up to maxDepth levels. stack
// holds the files being expanded, for cycles.
func (l *loader) expand(abs, name, text string, depth int, stack []string) string {
	if !strings.Contains(text, "@") {
		return text
	}
	var b strings.Builder
	fence := ""
	for n, line := range splitLines(text) {
		trimmed := strings.TrimSpace(line)
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
		}
		target, ok := importOf(trimmed)
		if fence != "" || !ok {
			b.WriteString(line)
			continue
		}
		at := fmt.Sprintf("%s:%d", name, n+1)
		p := l.c.resolveImport(abs, target)
		switch {
		case depth+1 > maxDepth:
			l.warn(at, "import %s refused: imports nest at most %d levels deep", trimmed, maxDepth)
			b.WriteString(line)
			continue
		case contains(stack, p):
			l.warn(at, "import %s refused: an import cycle, cut at the repeat", trimmed)
			continue
		case l.imports >= maxImports:
			l.warn(at, "import %s refused: more than %d imports", trimmed, maxImports)
			b.WriteString(line)
			continue
		}
		l.imports++
		sub := l.c.display(p)
		got, err := l.read(p, l.c.cfg.MaxBytes, sub)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				err = errors.New("no such file")
			}
			l.files = append(l.files, File{Path: sub, State: Refused})
			l.warn(at, "import %s refused: %v", trimmed, err)
			b.WriteString(line)
			continue
		}
		got = l.expand(p, sub, got, depth+1, append(stack, p))
		b.WriteString(got)
		if got != "" && !strings.HasSuffix(got, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// resolveImport is target (from an @ line of the file at abs) as an
// absolute, clean path.
func (c *Capability) resolveImport(abs, target string) string {
	switch {
	case strings.HasPrefix(target, "~/"):
		if c.homeDir == "" {
			return filepath.Clean(target)
		}
		return filepath.Join(c.homeDir, target[2:])
	case filepath.IsAbs(target):
		return filepath.Clean(target)
	}
	return filepath.Join(filepath.Dir(abs), target)
}

// importOf is the path of an @path line: a line holding only "@" and a
// path without spaces.
func importOf(trimmed string) (string, bool) {
	if len(trimmed) < 2 || trimmed[0] != '@' || strings.ContainsAny(trimmed, " \t`") {
		return "", false
	}
	return trimmed[1:], true
}

// fenceOf is the fence a line opens or closes ("```" or "~~~"), or "".
func fenceOf(trimmed string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			return f
		}
	}
	return ""
}

// splitLines splits s after each newline; a final newline ends the last
// line rather than starting an empty one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// budget holds units to the budget, cutting the farthest first; the
// nearest one alone over it is cut short.
func (l *loader) budget(units []File) Result {
	max, total := l.c.cfg.MaxBytes, 0
	for _, u := range units {
		total += u.Bytes
	}
	for i := 0; total > max && i < len(units)-1; i++ {
		units[i].State = Cut
		total -= units[i].Bytes
		l.warn(units[i].Path, "cut: the instructions are over their budget of %d bytes (instructions.maxBytes); nearer files come first", max)
	}
	if n := len(units) - 1; n >= 0 && total > max {
		u := &units[n]
		u.text = string(cutRunes([]byte(u.text), max))
		u.Bytes = len(u.text)
		l.warn(u.Path, "cut short to the budget of %d bytes (instructions.maxBytes)", max)
	}
	return Result{Files: append(units, l.files...), Warnings: l.warns, Budget: max}
}

// digest names a text in the session log's bookkeeping.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
