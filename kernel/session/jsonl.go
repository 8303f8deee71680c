package session

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/helios-agents/helios/kernel/bytesize"
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

// plain is Event without its methods (it has none today), for embedding.
type plain Event

// outLine is how an Event is written. Input is left out here and spliced
// in verbatim, since encoding/json would compact it.
type outLine struct {
	plain
	Input     *struct{} `json:"input,omitempty"` // always nil; hides plain.Input
	InputText string    `json:"inputText,omitempty"`
}

// inLine is how a line is read back.
type inLine struct {
	plain
	InputText *string `json:"inputText"`
}

// encodeEvents renders evs as JSONL lines, refusing a line over maxLine
// bytes (its newline not counted) so that no line is written that the store
// would not read back. HTML is not escaped, so the file reads as written (a
// catalog's <available_skills> stays as is).
func encodeEvents(evs []Event, maxLine int) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range evs {
		start := buf.Len()
		inline := len(e.Input) > 0 && oneLine(e.Input)
		ol := outLine{plain: plain(e)}
		if len(e.Input) > 0 && !inline {
			ol.InputText = string(e.Input)
		}
		if err := enc.Encode(ol); err != nil {
			return nil, fmt.Errorf("encode event %d: %w", e.Seq, err)
		}
		if inline {
			buf.Truncate(buf.Len() - len("}\n"))
			buf.WriteString(`,"input":`)
			buf.Write(e.Input)
			buf.WriteString("}\n")
		}
		if n := buf.Len() - start - 1; n > maxLine {
			return nil, fmt.Errorf("encode event %d: %w: %d bytes, over the limit of %s", e.Seq, ErrLineTooLong, n, bytesize.Text(maxLine))
		}
	}
	return buf.Bytes(), nil
}

// oneLine reports whether raw JSON reads back byte for byte when written
// verbatim as a value on one line.
func oneLine(raw []byte) bool {
	first, last := raw[0], raw[len(raw)-1]
	return bytes.IndexAny(raw, "\r\n") < 0 &&
		first != ' ' && first != '\t' && last != ' ' && last != '\t'
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

// decodeLog decodes a session file from r, holding at most one line of
// maxLine bytes at a time besides the events. A last line that is
// unterminated or not valid JSON is torn: it is not returned, and good (the
// length of the content before it) is less than size, the bytes read. Any
// other bad line, a line over maxLine, or a Seq out of order is an error
// naming name:line.
func decodeLog(r io.Reader, name string, maxLine int) (evs []Event, good, size int64, err error) {
	lr := newLineReader(r, maxLine)
	for line := 1; ; line++ {
		data, complete, err := lr.next()
		if err == io.EOF {
			return evs, good, size, nil
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		size += int64(len(data))
		if !complete {
			return evs, good, size, nil // unterminated: torn
		}
		size++ // the newline
		e, err := decodeEvent(data)
		if err != nil {
			if lr.atEOF() {
				return evs, good, size, nil // torn
			}
			return nil, 0, 0, fmt.Errorf("%s:%d: corrupt session log: %w", name, line, err)
		}
		if want := int64(len(evs)) + 1; e.Seq != want {
			return nil, 0, 0, fmt.Errorf("%s:%d: corrupt session log: seq %d, want %d", name, line, e.Seq, want)
		}
		if err := checkRead(e); err != nil {
			return nil, 0, 0, fmt.Errorf("%s:%d: corrupt session log: %w", name, line, err)
		}
		evs = append(evs, e)
		good = size
	}
}

// checkRead refuses an event Append would never have written, so what is
// read keeps the log's invariants (and a Fork writes a readable file).
func checkRead(e Event) error {
	switch {
	case e.Type == "":
		return errors.New("no type")
	case e.Type == Compaction && (e.From < 1 || e.From > e.To || e.To >= e.Seq):
		return fmt.Errorf("compaction span [%d, %d] outside 1..%d", e.From, e.To, e.Seq-1)
	case len(e.Input) > 0 && !json.Valid(e.Input):
		return errors.New("inputText is not JSON")
	}
	return nil
}

func decodeEvent(line []byte) (Event, error) {
	var in inLine
	if err := json.Unmarshal(line, &in); err != nil {
		return Event{}, err
	}
	e := Event(in.plain)
	if in.InputText != nil {
		e.Input = json.RawMessage(*in.InputText)
	}
	return e, nil
}

// scanSummary summarizes a session file without decoding every line: it
// counts the complete lines (less a torn last one) and decodes the first,
// the last and the first user message. It holds at most two lines.
func scanSummary(r io.Reader, maxLine int) (summary, error) {
	type head struct {
		Time time.Time `json:"time"`
		Type Type      `json:"type"`
		Text string    `json:"text"`
	}
	var (
		sm         summary
		last, prev []byte // the last two complete lines
		titled     bool
		bad        error // a line that does not decode; torn if it is the last
		badLine    int
	)
	lr := newLineReader(r, maxLine)
	for n := 1; bad == nil; n++ {
		line, complete, err := lr.next()
		if err == io.EOF || (err == nil && !complete) {
			break
		}
		if err != nil {
			return summary{}, fmt.Errorf("%d: %w", n, err)
		}
		sm.n = n
		prev, last = last, append(prev[:0], line...)
		if n == 1 {
			var first head
			if err := json.Unmarshal(line, &first); err != nil {
				bad, badLine = err, n
			}
			sm.first = first.Time
		}
		if !titled && bad == nil && bytes.Contains(line, []byte(`"user"`)) {
			var h head
			if err := json.Unmarshal(line, &h); err != nil {
				bad, badLine = err, n
			} else if h.Type == User {
				sm.title, titled = shortTitle(h.Text), true
			}
		}
	}
	if bad != nil {
		// Reading stopped at the bad line: it is torn only if no complete
		// line follows it.
		if _, complete, err := lr.next(); err != io.EOF && !(err == nil && !complete) {
			return summary{}, fmt.Errorf("%d: %w", badLine, bad)
		}
	}
	if sm.n > 0 && !json.Valid(last) { // torn
		sm.n--
		last = prev
	}
	if sm.n == 0 {
		return summary{}, nil
	}
	if bad != nil && badLine <= sm.n {
		return summary{}, fmt.Errorf("%d: %w", badLine, bad)
	}
	var lh head
	if err := json.Unmarshal(last, &lh); err != nil {
		return summary{}, fmt.Errorf("%d: %w", sm.n, err)
	}
	sm.last = lh.Time
	return sm, nil
}

// lineReader reads lines of at most max bytes.
type lineReader struct {
	r    *bufio.Reader
	max  int
	long []byte // a line longer than the reader's buffer
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, min(max+1, 64<<10)), max: max}
}

// next returns the next line without its newline, valid until the next
// call, and whether a newline ended it; io.EOF at the end. A line longer
// than max is an ErrLineTooLong naming the limit, and no more of it is read.
func (l *lineReader) next() (line []byte, complete bool, err error) {
	line, err = l.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], line...)
		for err == bufio.ErrBufferFull && len(l.long) <= l.max {
			line, err = l.r.ReadSlice('\n')
			l.long = append(l.long, line...)
		}
		line = l.long
	}
	content := len(line)
	if err == nil {
		content-- // the newline
	}
	if content > l.max {
		return nil, false, fmt.Errorf("%w: longer than the limit of %s", ErrLineTooLong, bytesize.Text(l.max))
	}
	switch {
	case err == nil:
		return line[:content], true, nil
	case err == io.EOF && content > 0:
		return line, false, nil
	}
	return nil, false, err
}

// atEOF reports whether nothing follows the line last returned.
func (l *lineReader) atEOF() bool {
	_, err := l.r.Peek(1)
	return err == io.EOF
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
