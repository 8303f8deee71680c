package skillinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LockFileName is the lockfile's name: ~/.helios/helios-lock.json for the
// user root, <work dir>/helios-lock.json for the project root.
const LockFileName = "helios-lock.json"

// LockVersion is the lockfile format this package reads and writes.
const LockVersion = 1

// Lock is the lockfile. It is written deterministically — keys sorted, skills
// by name, two-space indent, a final newline — so the same installs give the
// same bytes and a diff of a committed lockfile shows only what moved.
type Lock struct {
	Skills  []Locked `json:"skills"`
	Version int      `json:"version"`
}

// Locked is one installed skill as the lockfile records it.
type Locked struct {
	// Commit is the full hash of the installed commit.
	Commit string `json:"commit"`
	// Files maps each file's slash path in the skill folder to the
	// skills.FileDigest of its bytes (a symlink's: of its target path).
	Files map[string]string `json:"files"`
	// Name is the skill's name and its folder under the root.
	Name string `json:"name"`
	// Path is the skill folder's slash path in the repository ("." for
	// the repository's root).
	Path string `json:"path"`
	// Ref is the branch, tag or commit that update follows.
	Ref string `json:"ref"`
	// Source is the repository: a URL without credentials, or the
	// absolute path of a local repository.
	Source string `json:"source"`
}

// ErrCorruptLock is wrapped by the errors of a lockfile that cannot be used.
var ErrCorruptLock = errors.New("corrupted lockfile")

// ReadLock reads and checks a lockfile. A missing file is an empty lock.
// Every other problem is an error naming the file and wrapping
// ErrCorruptLock, with the line and column of a syntax error.
func ReadLock(file string) (Lock, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Lock{Version: LockVersion, Skills: []Locked{}}, nil
	}
	if err != nil {
		return Lock{}, fmt.Errorf("read lockfile %s: %w", file, err)
	}
	l, err := parseLock(data)
	if err != nil {
		return Lock{}, fmt.Errorf("read lockfile %s: %w: %w", file, ErrCorruptLock, err)
	}
	return l, nil
}

func parseLock(data []byte) (Lock, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return Lock{}, jsonError(data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Lock{}, fmt.Errorf("%s: more after the lock's object", position(data, dec.InputOffset()))
	}
	switch {
	case l.Version == 0:
		return Lock{}, errors.New(`no "version"`)
	case l.Version != LockVersion:
		return Lock{}, fmt.Errorf("version %d is not the version %d this helios reads", l.Version, LockVersion)
	}
	seen := map[string]bool{}
	for i, s := range l.Skills {
		where := fmt.Sprintf("skills[%d]", i)
		if s.Name != "" {
			where = fmt.Sprintf("skill %q", s.Name)
		}
		if err := checkLocked(s); err != nil {
			return Lock{}, fmt.Errorf("%s: %w", where, err)
		}
		if seen[s.Name] {
			return Lock{}, fmt.Errorf("%s is locked twice", where)
		}
		seen[s.Name] = true
	}
	if l.Skills == nil {
		l.Skills = []Locked{}
	}
	return l, nil
}

func checkLocked(s Locked) error {
	if err := checkName(s.Name); err != nil {
		return err
	}
	if s.Source == "" {
		return errors.New(`no "source"`)
	}
	if !isHash(s.Commit) {
		return fmt.Errorf("commit %q is not a full hash", s.Commit)
	}
	if s.Path != "." && !cleanRel(s.Path) {
		return fmt.Errorf("path %q is not a clean relative path", s.Path)
	}
	if len(s.Files) == 0 {
		return errors.New(`no "files"`)
	}
	for f, d := range s.Files {
		if !cleanRel(f) {
			return fmt.Errorf("file %q is not a clean relative path", f)
		}
		if !isDigest(d) {
			return fmt.Errorf("file %q: digest %q is not sha256:<64 hex digits>", f, d)
		}
	}
	return nil
}

// jsonError says where the JSON went wrong, by line and column.
func jsonError(data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s: %w", position(data, se.Offset), err)
	case errors.As(err, &te):
		return fmt.Errorf("%s: %s is %s, not %s", position(data, te.Offset), te.Field, te.Value, te.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the file ends inside the lock", position(data, int64(len(data))))
	default:
		return fmt.Errorf("%s: %w", position(data, dec.InputOffset()), err)
	}
}

func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// encode is the lock's one serialization.
func (l Lock) encode() ([]byte, error) {
	l.Version = LockVersion
	l.Skills = slices.Clone(l.Skills)
	if l.Skills == nil {
		l.Skills = []Locked{}
	}
	slices.SortFunc(l.Skills, func(a, b Locked) int { return strings.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeLock replaces the lockfile in one rename, after its bytes reached the
// disk, so a crash leaves the old lock or the new one.
func writeLock(file string, l Lock) error {
	data, err := l.encode()
	if err != nil {
		return fmt.Errorf("write lockfile %s: %w", file, err)
	}
	if err := writeFileAtomic(file, data); err != nil {
		return fmt.Errorf("write lockfile %s: %w", file, err)
	}
	return nil
}

func writeFileAtomic(file string, data []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(file)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, file); err != nil {
		return err
	}
	return syncDir(dir)
}

// find returns the entry named name.
func (l Lock) find(name string) (Locked, bool) {
	for _, s := range l.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Locked{}, false
}

// with returns l with s added or replacing the entry of the same name.
func (l Lock) with(s Locked) Lock {
	l.Skills = slices.DeleteFunc(slices.Clone(l.Skills), func(e Locked) bool { return e.Name == s.Name })
	l.Skills = append(l.Skills, s)
	return l
}

// without returns l without the entry named name.
func (l Lock) without(name string) Lock {
	l.Skills = slices.DeleteFunc(slices.Clone(l.Skills), func(e Locked) bool { return e.Name == name })
	return l
}

// checkName refuses a skill name that cannot be a folder of the root: it
// must be one visible path segment. Names that bend the Agent Skills spec
// (capitals, spaces) are installed, as the catalog loads them.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty skill name")
	case name == "." || name == ".." || strings.ContainsAny(name, `/\`):
		return fmt.Errorf("skill name %q is not a folder name", name)
	case strings.HasPrefix(name, "."):
		return fmt.Errorf("skill name %q is hidden (starts with a dot)", name)
	case len(name) > 255 || !utf8.ValidString(name):
		return fmt.Errorf("skill name %q is not a valid folder name", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("skill name %q holds control characters", name)
	}
	return nil
}

// cleanRel reports a slash path that stays inside its folder.
func cleanRel(p string) bool {
	return p != "" && p != "." && path.Clean(p) == p && !path.IsAbs(p) && p != ".." &&
		!strings.HasPrefix(p, "../") && !strings.ContainsAny(p, "\\\x00")
}

func isHash(s string) bool { return len(s) == 40 && isLowerHex(s) }

func isDigest(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	return ok && len(h) == 64 && isLowerHex(h)
}

func isLowerHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
