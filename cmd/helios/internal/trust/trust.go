// Package trust decides whether the CLI applies a helios.config.json found
// in the work dir. Such a file is untrusted until the user trusts that
// exact content (`helios trust`): it can start programs (plugins) and send
// the API key to any server (model.baseURL), and the folder may be a
// repository someone else wrote. An untrusted file is not applied at all.
// A config the user names (--config, assembly.Load) is their own choice
// and always applied.
package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/helios-agents/helios/assembly"
)

// FileName is the trust store's file in Helios's state dir.
const FileName = "trust.json"

// ErrStore is wrapped by the errors of a trust store that cannot be read
// or parsed: a corrupted store trusts nothing.
var ErrStore = errors.New("trust store unreadable")

// Store records the configs the user trusted: each file's absolute
// path and the SHA-256 of its content. Any edit makes the file untrusted
// again. It is a JSON file, written whole through a temp file and a rename.
type Store struct {
	path string
}

// Entry is one trusted config.
type Entry struct {
	// Config is the config file's absolute path, its folder's symlinks
	// resolved.
	Config string `json:"config"`
	// SHA256 is the hex digest of the content the user trusted.
	SHA256 string `json:"sha256"`
	// Trusted is when.
	Trusted time.Time `json:"trusted"`
	// Runs are the SHA-256 digests, by absolute path, of the files the
	// config's hooks, MCP stdio servers and plugins run that lay where the
	// model can write when the user trusted it (assembly.RunDigests):
	// before each run they are hashed again, and one that changed keeps
	// its hook, server or plugin off until the user trusts again. Absent
	// in an entry written before Helios recorded them: those are then
	// hashed when the config is loaded.
	Runs map[string]string `json:"runs"`
}

// trustFile is the store's content.
type trustFile struct {
	Version int     `json:"version"`
	Trusted []Entry `json:"trusted"`
}

const trustVersion = 1

// DefaultStore is ~/.helios/trust.json.
func DefaultStore() (*Store, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("find trust store: %w", err)
	}
	return NewStore(filepath.Join(home, ".helios", FileName)), nil
}

// NewStore is the store in the file at path (made on the first Trust).
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// State is what the store says of a config's content.
type State int

const (
	// Untrusted: the user never trusted this file.
	Untrusted State = iota
	// Trusted: the user trusted exactly this content.
	Trusted
	// Changed: the user trusted this file, with other content.
	Changed
)

// Check says whether the content data of the config file at path (as a
// Entry names it: absolute, its folder resolved) is trusted. An error (wrapping ErrStore) says the store is
// corrupted; the state is then Untrusted: nothing is trusted.
func (s *Store) Check(path string, data []byte) (State, error) {
	state, _, err := s.check(path, data)
	return state, err
}

// check is Check, with the entry that trusts the content.
func (s *Store) check(path string, data []byte) (State, Entry, error) {
	f, err := s.load()
	if err != nil {
		return Untrusted, Entry{}, err
	}
	sum := digest(data)
	state := Untrusted
	for _, e := range f.Trusted {
		if e.Config != path {
			continue
		}
		if e.SHA256 == sum {
			return Trusted, e, nil
		}
		state = Changed
	}
	return state, Entry{}, nil
}

// Trust records the current content of the config file at path, which must
// parse as a config (trusting a file that cannot run is no use). It
// replaces an earlier entry of the same file. A corrupted store is replaced
// by one holding only this entry; the returned error then wraps
// ErrStore beside a valid entry.
func (s *Store) Trust(path string) (Entry, error) {
	abs, err := configKey(path)
	if err != nil {
		return Entry{}, fmt.Errorf("trust %s: %w", path, err)
	}
	data, err := readConfigFile(abs)
	if err != nil {
		return Entry{}, fmt.Errorf("trust %s: %w", path, err)
	}
	cfg, err := assembly.ParseConfig(abs, data)
	if err != nil {
		return Entry{}, fmt.Errorf("trust %s: fix the config first: %w", path, err)
	}
	// The work dir is the config's folder (or its workDir), as ReadWorkDir
	// applies it.
	runs, err := assembly.RunDigests(cfg, assembly.Options{BaseDir: filepath.Dir(abs), WorkDir: workDirOf(cfg, filepath.Dir(abs))})
	if err != nil {
		return Entry{}, fmt.Errorf("trust %s: %w", path, err)
	}
	f, loadErr := s.load()
	if loadErr != nil && !errors.Is(loadErr, ErrStore) {
		return Entry{}, loadErr
	}
	e := Entry{Config: abs, SHA256: digest(data), Trusted: time.Now().UTC().Truncate(time.Second), Runs: runs}
	f.Trusted = slices.DeleteFunc(f.Trusted, func(o Entry) bool { return o.Config == abs })
	f.Trusted = append(f.Trusted, e)
	if err := s.save(f); err != nil {
		return Entry{}, err
	}
	return e, loadErr
}

// Revoke forgets the config file at path; false when it was not trusted.
func (s *Store) Revoke(path string) (bool, error) {
	abs, err := configKey(path)
	if err != nil {
		return false, fmt.Errorf("revoke %s: %w", path, err)
	}
	f, err := s.load()
	if err != nil {
		return false, err
	}
	n := len(f.Trusted)
	f.Trusted = slices.DeleteFunc(f.Trusted, func(o Entry) bool { return o.Config == abs })
	if len(f.Trusted) == n {
		return false, nil
	}
	return true, s.save(f)
}

// List returns the trusted configs, by path.
func (s *Store) List() ([]Entry, error) {
	f, err := s.load()
	slices.SortFunc(f.Trusted, func(a, b Entry) int { return strings.Compare(a.Config, b.Config) })
	return f.Trusted, err
}

// load reads the store; a missing file is an empty store. A file that
// cannot be read or parsed is an error wrapping ErrStore, with an
// empty store.
func (s *Store) load() (trustFile, error) {
	data, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return trustFile{Version: trustVersion}, nil
	case err != nil:
		return trustFile{Version: trustVersion}, fmt.Errorf("%w: %s: %w", ErrStore, s.path, err)
	}
	var f trustFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return trustFile{Version: trustVersion}, fmt.Errorf("%w: %s: %w", ErrStore, s.path, err)
	}
	if f.Version != trustVersion {
		return trustFile{Version: trustVersion}, fmt.Errorf("%w: %s: version %d (this Helios reads %d)", ErrStore, s.path, f.Version, trustVersion)
	}
	for i, e := range f.Trusted {
		if !filepath.IsAbs(e.Config) || len(e.SHA256) != sha256.Size*2 {
			return trustFile{Version: trustVersion}, fmt.Errorf("%w: %s: trusted[%d] is not a config path with a SHA-256", ErrStore, s.path, i)
		}
	}
	return f, nil
}

// save writes f whole: a temp file beside the store, renamed over it, so a
// reader sees the old store or the new one. The folder is the user's alone.
func (s *Store) save(f trustFile) error {
	f.Version = trustVersion
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("save trust store %s: %w", s.path, err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save trust store %s: %w", s.path, err)
	}
	tmp, err := os.CreateTemp(dir, FileName+".*")
	if err != nil {
		return fmt.Errorf("save trust store %s: %w", s.path, err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("save trust store %s: %w", s.path, err)
	}
	return nil
}

// findConfig returns <workDir>/helios.config.json when it exists, else "".
func findConfig(workDir string) (string, error) {
	p := filepath.Join(workDir, assembly.ConfigFileName)
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("find config %s: %w", p, err)
	case fi.IsDir():
		return "", fmt.Errorf("find config %s: is a directory", p)
	}
	return p, nil
}

// readConfigFile reads the config file at path, at most one byte more than
// assembly.MaxConfigSize (assembly.ParseConfig refuses a larger one). A
// pipe works; its reader blocks as a file's would not.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, assembly.MaxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return data, nil
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// configKey is the name a store entry gives the config file at path:
// absolute, its folder's symlinks resolved (the file may itself be a link:
// what is trusted is the work dir's config, whatever it points to, by its
// content). A folder that is gone keeps the absolute name, so that its
// entry can still be revoked.
func configKey(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if errors.Is(err, fs.ErrNotExist) {
		return abs, nil
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// WorkDirConfig is what ReadWorkDir found in a work dir.
type WorkDirConfig struct {
	// Config and Base are the config to build with and the folder its
	// relative paths resolve against: the file's when it was applied, the
	// defaults and the work dir otherwise.
	Config assembly.Config
	Base   string
	// Path is the config file applied; "" when none was.
	Path string
	// Ignored is the untrusted config file found and not applied.
	Ignored string
	// Notices are what to tell the user, once: the ignored file, why, and
	// the command that trusts it; a corrupted trust store.
	Notices []string
	// Runs are the digests the trust recorded of what the config runs
	// (Entry.Runs), for assembly.Options.Trusted; nil when none were.
	Runs map[string]string
}

// ReadWorkDir finds <workDir>/helios.config.json and applies it only
// when store says the user trusted exactly its content. The file is read
// once: what is hashed is what is parsed. Without a file, or with an
// untrusted one, the config is the defaults, relative to workDir.
func ReadWorkDir(workDir string, store *Store) (WorkDirConfig, error) {
	out := WorkDirConfig{Base: workDir}
	path, err := findConfig(workDir)
	if err != nil || path == "" {
		return out, err
	}
	abs, err := configKey(path)
	if err != nil {
		return out, fmt.Errorf("read config %s: %w", path, err)
	}
	data, err := readConfigFile(abs)
	if err != nil {
		return out, err
	}
	state, entry, storeErr := store.check(abs, data)
	if storeErr != nil {
		out.Notices = append(out.Notices, fmt.Sprintf("warning: %v: nothing is trusted until `helios trust` writes a new store", storeErr))
	}
	if state != Trusted {
		out.Ignored = path
		why := "it is not trusted yet"
		if state == Changed {
			why = "it changed since you trusted it"
		}
		out.Notices = append(out.Notices, fmt.Sprintf("ignoring %s: %s, and a config can start programs and send your API key elsewhere. "+
			"Helios runs on its defaults. Read the file, then trust it with: helios trust %s", terminalSafe(path), why, shellQuote(filepath.Dir(path))))
		return out, nil
	}
	cfg, err := assembly.ParseConfig(abs, data)
	if err != nil {
		return out, err
	}
	out.Config, out.Base, out.Path, out.Runs = cfg, filepath.Dir(abs), path, entry.Runs
	return out, nil
}

// workDirOf is the work dir a config found in dir applies to: its workDir,
// relative to dir, else dir.
func workDirOf(cfg assembly.Config, dir string) string {
	switch {
	case cfg.WorkDir == "":
		return dir
	case filepath.IsAbs(cfg.WorkDir):
		return cfg.WorkDir
	}
	return filepath.Join(dir, cfg.WorkDir)
}

// Command is the command line that trusts the config file at path, quoted
// for a POSIX shell.
func Command(path string) string { return "helios trust " + shellQuote(filepath.Dir(path)) }

// shellQuote quotes s for a POSIX shell when it needs it, so that a hint's
// command can be pasted whatever the folder is called: single quotes, or
// bash's $'...' with escapes when s holds control characters or bytes that
// are not UTF-8 (which must not reach the terminal raw either).
func shellQuote(s string) string {
	safe := func(r rune) bool {
		return r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ',' || r == ':' || r == '@' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	if utf8.ValidString(s) && strings.IndexFunc(s, notPrintable) < 0 {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == utf8.RuneError || notPrintable(r):
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// terminalSafe shows s with its control and invisible characters escaped.
func terminalSafe(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, notPrintable) < 0 {
		return s
	}
	q := fmt.Sprintf("%+q", s) // escapes every non-ASCII rune too: only here, where something was odd
	return q[1 : len(q)-1]
}

// notPrintable: controls, and format characters that hide or reorder text
// (bidi overrides, zero-width).
func notPrintable(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}
