package assembly

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A helios.config.json found in the work dir is untrusted until the user
// trusts that exact content (`helios trust`): it can start programs
// (plugins) and send the API key to any server (model.baseURL), and the
// folder may be a repository someone else wrote. An untrusted file is not
// applied at all. A config the user names (--config, Load) is their own
// choice and always applied.

// TrustFileName is the trust store's file in Helios's state dir.
const TrustFileName = "trust.json"

// ErrTrustStore is wrapped by the errors of a trust store that cannot be
// read or parsed: a corrupted store trusts nothing.
var ErrTrustStore = errors.New("trust store unreadable")

// TrustStore records the configs the user trusted: each file's absolute
// path and the SHA-256 of its content. Any edit makes the file untrusted
// again. It is a JSON file, written whole through a temp file and a rename.
type TrustStore struct {
	path string
}

// TrustEntry is one trusted config.
type TrustEntry struct {
	// Config is the config file's absolute path, its folder's symlinks
	// resolved.
	Config string `json:"config"`
	// SHA256 is the hex digest of the content the user trusted.
	SHA256 string `json:"sha256"`
	// Trusted is when.
	Trusted time.Time `json:"trusted"`
}

// trustFile is the store's content.
type trustFile struct {
	Version int          `json:"version"`
	Trusted []TrustEntry `json:"trusted"`
}

const trustVersion = 1

// DefaultTrustStore is ~/.helios/trust.json.
func DefaultTrustStore() (*TrustStore, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	return NewTrustStore(filepath.Join(home, ".helios", TrustFileName)), nil
}

// NewTrustStore is the store in the file at path (made on the first Trust).
func NewTrustStore(path string) *TrustStore { return &TrustStore{path: path} }

// Path is the store's file.
func (s *TrustStore) Path() string { return s.path }

// TrustState is what the store says of a config's content.
type TrustState int

const (
	// Untrusted: the user never trusted this file.
	Untrusted TrustState = iota
	// Trusted: the user trusted exactly this content.
	Trusted
	// Changed: the user trusted this file, with other content.
	Changed
)

// Check says whether the content data of the config file at path (as a
// TrustEntry names it: absolute, its folder resolved) is trusted. An error (wrapping ErrTrustStore) says the store is
// corrupted; the state is then Untrusted: nothing is trusted.
func (s *TrustStore) Check(path string, data []byte) (TrustState, error) {
	f, err := s.load()
	if err != nil {
		return Untrusted, err
	}
	sum := digest(data)
	state := Untrusted
	for _, e := range f.Trusted {
		if e.Config != path {
			continue
		}
		if e.SHA256 == sum {
			return Trusted, nil
		}
		state = Changed
	}
	return state, nil
}

// Trust records the current content of the config file at path, which must
// parse as a config (trusting a file that cannot run is no use). It
// replaces an earlier entry of the same file. A corrupted store is replaced
// by one holding only this entry; the returned error then wraps
// ErrTrustStore beside a valid entry.
func (s *TrustStore) Trust(path string) (TrustEntry, error) {
	abs, err := configKey(path)
	if err != nil {
		return TrustEntry{}, fmt.Errorf("trust %s: %w", path, err)
	}
	data, err := readConfigFile(abs)
	if err != nil {
		return TrustEntry{}, fmt.Errorf("trust %s: %w", path, err)
	}
	if _, err := ParseConfig(abs, data); err != nil {
		return TrustEntry{}, fmt.Errorf("trust %s: fix the config first: %w", path, err)
	}
	f, loadErr := s.load()
	if loadErr != nil && !errors.Is(loadErr, ErrTrustStore) {
		return TrustEntry{}, loadErr
	}
	e := TrustEntry{Config: abs, SHA256: digest(data), Trusted: time.Now().UTC().Truncate(time.Second)}
	f.Trusted = slices.DeleteFunc(f.Trusted, func(o TrustEntry) bool { return o.Config == abs })
	f.Trusted = append(f.Trusted, e)
	if err := s.save(f); err != nil {
		return TrustEntry{}, err
	}
	return e, loadErr
}

// Revoke forgets the config file at path; false when it was not trusted.
func (s *TrustStore) Revoke(path string) (bool, error) {
	abs, err := configKey(path)
	if err != nil {
		return false, fmt.Errorf("revoke %s: %w", path, err)
	}
	f, err := s.load()
	if err != nil {
		return false, err
	}
	n := len(f.Trusted)
	f.Trusted = slices.DeleteFunc(f.Trusted, func(o TrustEntry) bool { return o.Config == abs })
	if len(f.Trusted) == n {
		return false, nil
	}
	return true, s.save(f)
}

// List returns the trusted configs, by path.
func (s *TrustStore) List() ([]TrustEntry, error) {
	f, err := s.load()
	slices.SortFunc(f.Trusted, func(a, b TrustEntry) int { return strings.Compare(a.Config, b.Config) })
	return f.Trusted, err
}

// load reads the store; a missing file is an empty store. A file that
// cannot be read or parsed is an error wrapping ErrTrustStore, with an
// empty store.
func (s *TrustStore) load() (trustFile, error) {
	data, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return trustFile{Version: trustVersion}, nil
	case err != nil:
		return trustFile{Version: trustVersion}, fmt.Errorf("%w: %s: %w", ErrTrustStore, s.path, err)
	}
	var f trustFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return trustFile{Version: trustVersion}, fmt.Errorf("%w: %s: %w", ErrTrustStore, s.path, err)
	}
	if f.Version != trustVersion {
		return trustFile{Version: trustVersion}, fmt.Errorf("%w: %s: version %d (this Helios reads %d)", ErrTrustStore, s.path, f.Version, trustVersion)
	}
	for i, e := range f.Trusted {
		if !filepath.IsAbs(e.Config) || len(e.SHA256) != sha256.Size*2 {
			return trustFile{Version: trustVersion}, fmt.Errorf("%w: %s: trusted[%d] is not a config path with a SHA-256", ErrTrustStore, s.path, i)
		}
	}
	return f, nil
}

// save writes f whole: a temp file beside the store, renamed over it, so a
// reader sees the old store or the new one. The folder is the user's alone.
func (s *TrustStore) save(f trustFile) error {
	f.Version = trustVersion
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust store %s: %w", s.path, err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust store %s: %w", s.path, err)
	}
	tmp, err := os.CreateTemp(dir, TrustFileName+".*")
	if err != nil {
		return fmt.Errorf("trust store %s: %w", s.path, err)
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
		return fmt.Errorf("trust store %s: %w", s.path, err)
	}
	return nil
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

// WorkDirConfig is what ReadWorkDirConfig found in a work dir.
type WorkDirConfig struct {
	// Config and Base are the config to build with and the folder its
	// relative paths resolve against: the file's when it was applied, the
	// defaults and the work dir otherwise.
	Config Config
	Base   string
	// Path is the config file applied; "" when none was.
	Path string
	// Ignored is the untrusted config file found and not applied.
	Ignored string
	// Notices are what to tell the user, once: the ignored file, why, and
	// the command that trusts it; a corrupted trust store.
	Notices []string
}

// ReadWorkDirConfig finds <workDir>/helios.config.json and applies it only
// when store says the user trusted exactly its content. The file is read
// once: what is hashed is what is parsed. Without a file, or with an
// untrusted one, the config is the defaults, relative to workDir.
func ReadWorkDirConfig(workDir string, store *TrustStore) (WorkDirConfig, error) {
	out := WorkDirConfig{Base: workDir}
	path, err := FindConfig(workDir)
	if err != nil || path == "" {
		return out, err
	}
	abs, err := configKey(path)
	if err != nil {
		return out, fmt.Errorf("config %s: %w", path, err)
	}
	data, err := readConfigFile(abs)
	if err != nil {
		return out, err
	}
	state, storeErr := store.Check(abs, data)
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
	cfg, err := ParseConfig(abs, data)
	if err != nil {
		return out, err
	}
	out.Config, out.Base, out.Path = cfg, filepath.Dir(abs), path
	return out, nil
}

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
