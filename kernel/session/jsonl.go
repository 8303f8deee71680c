package session

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// JSONLConfig configures NewJSONLStore.
type JSONLConfig struct {
	// Dir holds the session files. Required; created (mode 0700) if
	// missing.
	Dir string
	// Logger receives warnings, such as a torn last line cut off on Open.
	// Nil discards them.
	Logger *slog.Logger
	// Clock stamps events, forks and new IDs. Nil means time.Now.
	Clock func() time.Time
	// MaxLine bounds one line of a session file, in bytes: an Append whose
	// event would encode longer is refused, and reading a longer line is an
	// error naming the file, the line and the limit (reading stops there,
	// so a corrupt file never makes the store hold more than this at once).
	// Zero means DefaultMaxLine.
	MaxLine int
}

// DefaultMaxLine is the default JSONLConfig.MaxLine: 16 MiB, far above an
// event the kernel writes (tool output is cut to tools.maxOutput, a model
// answer to the model client's limits), and small enough that reading a
// corrupt file cannot exhaust memory.
const DefaultMaxLine = 16 << 20

// JSONLStore keeps one file per session, <Dir>/<id>.jsonl, holding one JSON
// Event per line, in Seq order from 1.
//
// Append writes all its events with one write call and fsyncs before it
// returns. A crash can therefore only leave a partial last line, which Open
// cuts off (with a warning naming the file and the bytes dropped); a bad
// line anywhere else is corruption, and Open refuses the file rather than
// lose what follows it. So is a line longer than MaxLine (Append never
// writes one) and an event Append would have refused (no type, input that
// is not JSON, a compaction span outside the events before it).
//
// The lines are Events as encoding/json writes them, with two exceptions
// that keep Input byte-exact: Input is written verbatim, last on the line;
// Input that cannot sit on one line verbatim (it holds a line break, or
// starts or ends with a space) is written as a JSON string under
// "inputText" instead.
//
// A fork's origin is in a sidecar file, <id>.meta.json
// ({"forkOf","forkAt","created"}), so session files hold events only.
//
// Within a process, every Log open on one session shares its events; on
// Linux and the BSDs a session open in one process cannot be opened in
// another (an advisory lock), so two writers never interleave.
type JSONLStore struct {
	dir     string
	log     *slog.Logger
	clock   func() time.Time
	maxLine int

	mu   sync.Mutex
	open map[string]*fileSession
}

// fileSession is a session open in this process.
type fileSession struct {
	core *core
	file *os.File
	meta forkMeta
	refs int // open handles; the file is closed when it drops to 0
}

// forkMeta is the sidecar <id>.meta.json of a fork.
type forkMeta struct {
	ForkOf  string    `json:"forkOf"`
	ForkAt  int64     `json:"forkAt"`
	Created time.Time `json:"created"`
}

var _ Store = (*JSONLStore)(nil)

// NewJSONLStore returns a store over cfg.Dir, creating the directory.
func NewJSONLStore(cfg JSONLConfig) (*JSONLStore, error) {
	if cfg.Dir == "" {
		return nil, errors.New("new jsonl session store: no directory")
	}
	if cfg.MaxLine < 0 {
		return nil, fmt.Errorf("new jsonl session store: negative MaxLine %d", cfg.MaxLine)
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("new jsonl session store: %w", err)
	}
	s := &JSONLStore{dir: cfg.Dir, log: cfg.Logger, clock: cfg.Clock, maxLine: cfg.MaxLine, open: map[string]*fileSession{}}
	if s.maxLine == 0 {
		s.maxLine = DefaultMaxLine
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	return s, nil
}

// Create starts a new, empty session with a fresh ID.
func (s *JSONLStore) Create(ctx context.Context) (Log, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, f, err := s.reserve(s.clock())
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	err = lockFile(f)
	if err == nil {
		err = syncDir(s.dir)
	}
	if err != nil {
		f.Close()
		os.Remove(s.path(id))
		return nil, fmt.Errorf("create session %q: %w", id, err)
	}
	return s.adopt(id, f, 0, nil, forkMeta{}), nil
}

// Open reopens a session. When the file ends in a torn line (a crash
// during an Append that therefore never returned) Open truncates the file
// to its last complete line and logs a warning; a bad line before the last
// is an error naming the file and line, and the file is left as it is.
func (s *JSONLStore) Open(ctx context.Context, id string) (Log, error) {
	if err := precheck(ctx, "open", id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fsess := s.open[id]; fsess != nil {
		fsess.refs++
		return s.handle(fsess), nil
	}
	path := s.path(id)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open session %q: %w", id, err)
	}
	evs, size, err := s.load(f, path)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open session %q: %w", id, err)
	}
	meta, err := s.readMeta(id)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open session %q: %w", id, err)
	}
	return s.adopt(id, f, size, evs, meta), nil
}

// Read returns a copy of a session's events without opening it for
// appending: it takes no lock, so it works while another process runs the
// session, and it never modifies the file (a torn last line, an Append in
// flight, is left out, not cut off).
func (s *JSONLStore) Read(ctx context.Context, id string) ([]Event, error) {
	if err := precheck(ctx, "read", id); err != nil {
		return nil, err
	}
	evs, err := s.readFile(id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read session %q: %w", id, err)
	}
	return evs, nil
}

// load locks f, decodes it and cuts a torn last line off.
func (s *JSONLStore) load(f *os.File, path string) ([]Event, int64, error) {
	if err := lockFile(f); err != nil {
		return nil, 0, err
	}
	evs, good, size, err := decodeLog(f, path, s.maxLine)
	if err != nil {
		return nil, 0, err
	}
	if dropped := size - good; dropped > 0 {
		if err := f.Truncate(good); err != nil {
			return nil, 0, fmt.Errorf("cut torn last line: %w", err)
		}
		if err := f.Sync(); err != nil {
			return nil, 0, fmt.Errorf("cut torn last line: %w", err)
		}
		s.log.Warn("session log: cut off a torn last line", "file", path, "droppedBytes", dropped, "events", len(evs))
	}
	return evs, good, nil
}

// readFile decodes a session file without locking it, leaving out a torn
// last line.
func (s *JSONLStore) readFile(id string) ([]Event, error) {
	f, err := os.Open(s.path(id))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	evs, _, _, err := decodeLog(f, s.path(id), s.maxLine)
	return evs, err
}

// List describes every session, most recently updated first. It reads the
// files of sessions not open in this process without decoding every line;
// a file it cannot read is left out with a warning.
func (s *JSONLStore) List(ctx context.Context) ([]Info, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var infos []Info
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() || checkID(id) != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		in, err := s.info(id)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since ReadDir
		}
		if err != nil {
			s.log.Warn("session log: cannot describe session", "file", s.path(id), "err", err)
			continue
		}
		infos = append(infos, in)
	}
	sortInfos(infos)
	return infos, nil
}

func (s *JSONLStore) info(id string) (Info, error) {
	s.mu.Lock()
	fsess := s.open[id]
	s.mu.Unlock()
	var (
		sm   summary
		meta forkMeta
	)
	if fsess != nil {
		sm, meta = summarize(fsess.core.snapshot()), fsess.meta
	} else {
		f, err := os.Open(s.path(id))
		if err != nil {
			return Info{}, err
		}
		sm, err = scanSummary(f, s.maxLine)
		f.Close()
		if err != nil {
			return Info{}, fmt.Errorf("%s:%w", s.path(id), err)
		}
		if meta, err = s.readMeta(id); err != nil {
			return Info{}, err
		}
	}
	created := meta.Created
	if created.IsZero() && sm.n == 0 {
		st, err := os.Stat(s.path(id))
		if err != nil {
			return Info{}, err
		}
		created = st.ModTime().UTC()
	}
	return sm.info(id, created, meta.ForkOf, meta.ForkAt), nil
}

// Fork writes a new session holding id's events with Seq <= at (at <= 0:
// all of them), Seqs and Times unchanged, and records the origin in the
// new session's sidecar. Its Info has ForkOf id and ForkAt the Seq of the
// last event copied (less than at when at is past the end). A crash during
// Fork can leave an empty session behind, never a partial one.
func (s *JSONLStore) Fork(ctx context.Context, id string, at int64) (Log, error) {
	if err := precheck(ctx, "fork", id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var evs []Event
	if src := s.open[id]; src != nil {
		evs = src.core.snapshot()
	} else {
		// Not open here: read without the lock, ignoring a torn last line
		// (another process may be writing it).
		var err error
		evs, err = s.readFile(id)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("fork session %q: %w", id, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("fork session %q: %w", id, err)
		}
	}
	evs = slices.Clone(prefix(evs, at))
	buf, err := encodeEvents(evs, s.maxLine)
	if err != nil {
		return nil, fmt.Errorf("fork session %q: %w", id, err)
	}
	now := s.clock()
	meta := forkMeta{ForkOf: id, ForkAt: forkPoint(evs), Created: now.UTC()}
	nid, f, err := s.reserve(now)
	if err != nil {
		return nil, fmt.Errorf("fork session %q: %w", id, err)
	}
	f.Close()
	// The reserved file stays empty until the complete copy replaces it.
	f, err = s.writeFork(nid, buf, meta)
	if err != nil {
		os.Remove(s.path(nid))
		os.Remove(s.metaPath(nid))
		return nil, fmt.Errorf("fork session %q: %w", id, err)
	}
	return s.adopt(nid, f, int64(len(buf)), evs, meta), nil
}

func (s *JSONLStore) writeFork(id string, events []byte, meta forkMeta) (*os.File, error) {
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	if err := s.writeAtomic(s.metaPath(id), append(mb, '\n')); err != nil {
		return nil, err
	}
	if err := s.writeAtomic(s.path(id), events); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.path(id), os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// reserve creates an empty file under a new, unused ID.
func (s *JSONLStore) reserve(now time.Time) (string, *os.File, error) {
	for range 100 {
		id := newID(now)
		f, err := os.OpenFile(s.path(id), os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return id, f, nil
	}
	return "", nil, errors.New("no free session id")
}

// adopt registers a session open in this process; s.mu is held.
func (s *JSONLStore) adopt(id string, f *os.File, size int64, evs []Event, meta forkMeta) Log {
	fsess := &fileSession{
		core: newCore(id, s.clock, evs, &fileSink{f: f, size: size, maxLine: s.maxLine}),
		file: f,
		meta: meta,
		refs: 1,
	}
	s.open[id] = fsess
	return s.handle(fsess)
}

func (s *JSONLStore) handle(fsess *fileSession) Log {
	return newHandle(fsess.core, func() error { return s.release(fsess) })
}

// release drops one handle; the last one closes the file (and its lock).
func (s *JSONLStore) release(fsess *fileSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fsess.refs--; fsess.refs > 0 {
		return nil
	}
	if s.open[fsess.core.id] == fsess {
		delete(s.open, fsess.core.id)
	}
	fsess.core.release()
	if err := fsess.file.Close(); err != nil {
		return fmt.Errorf("close session %q: %w", fsess.core.id, err)
	}
	return nil
}

func (s *JSONLStore) readMeta(id string) (forkMeta, error) {
	var m forkMeta
	b, err := os.ReadFile(s.metaPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", s.metaPath(id), err)
	}
	return m, nil
}

// writeAtomic replaces path by a file holding data: written to a temporary
// file, fsynced, renamed over path, and the directory fsynced.
func (s *JSONLStore) writeAtomic(path string, data []byte) error {
	tmp := filepath.Join(s.dir, "."+filepath.Base(path)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(s.dir)
}

func (s *JSONLStore) path(id string) string     { return filepath.Join(s.dir, id+".jsonl") }
func (s *JSONLStore) metaPath(id string) string { return filepath.Join(s.dir, id+".meta.json") }

// fileSink appends to a session file opened with O_APPEND.
type fileSink struct {
	f       *os.File
	size    int64 // of the file's good content
	maxLine int   // zero: DefaultMaxLine
	broken  error // set when the file's tail is in an unknown state
}

// commit writes evs as lines in one call and fsyncs. On a failed write it
// truncates what may have been written, so the next Append does not follow
// a torn line; after a failed fsync the state of the file is unknown (the
// kernel may have dropped the dirty pages), so the log refuses further
// Appends.
func (s *fileSink) commit(_ context.Context, evs []Event) ([]Event, error) {
	if s.broken != nil {
		return nil, s.broken
	}
	p, err := encodeEvents(evs, cmp.Or(s.maxLine, DefaultMaxLine))
	if err != nil {
		return nil, err
	}
	if _, err := s.f.Write(p); err != nil {
		return nil, s.undo(fmt.Errorf("write: %w", err), false)
	}
	if err := s.f.Sync(); err != nil {
		return nil, s.undo(fmt.Errorf("fsync: %w", err), true)
	}
	s.size += int64(len(p))
	return evs, nil
}

func (s *fileSink) undo(err error, fatal bool) error {
	if terr := s.f.Truncate(s.size); terr != nil {
		err = errors.Join(err, fmt.Errorf("truncate after failed append: %w", terr))
		fatal = true
	}
	if fatal {
		s.broken = fmt.Errorf("log unusable after failed append: %w", err)
	}
	return err
}

// precheck refuses an invalid id or a done ctx before op touches a session,
// naming the operation and the id.
func precheck(ctx context.Context, op, id string) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("%s session: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s session %q: %w", op, id, err)
	}
	return nil
}

// syncDir makes a directory's entries (a new or renamed file) durable.
// Windows cannot fsync a directory and does not need to.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
