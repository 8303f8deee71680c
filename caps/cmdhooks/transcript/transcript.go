package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/kernel/session"
)

// Config configures a Store.
type Config struct {
	// Dir holds the transcripts, one <session id>.jsonl each; it is made
	// (0700) on the first write. Required.
	Dir string
	// WorkDir is each line's "cwd".
	WorkDir string
	// Secrets are replaced by [REDACTED] in every line. Nil: none.
	Secrets *redact.Secrets
}

// Store is a session store whose open sessions have a transcript. It
// passes everything else to the store it wraps.
type Store struct {
	inner session.Store
	cfg   Config

	mu   sync.Mutex
	open map[string]*file // by session id: the sessions open in this process
}

var (
	_ session.Store  = (*Store)(nil)
	_ session.Reader = (*Store)(nil)
)

// New wraps inner.
func New(inner session.Store, cfg Config) *Store {
	return &Store{inner: inner, cfg: cfg, open: map[string]*file{}}
}

// file is the transcript of one open session.
type file struct {
	mu     sync.Mutex
	log    session.Log
	path   string
	known  bool   // done and parent were read from the file
	done   int    // the log's events already considered
	parent string // the uuid of the last line
}

// Path brings the transcript of session id up to date with its log and
// returns the file's name. It returns "" and no error for a session not
// open through s in this process.
func (s *Store) Path(id string) (string, error) {
	s.mu.Lock()
	f := s.open[id]
	s.mu.Unlock()
	if f == nil {
		return "", nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := s.flush(f); err != nil {
		f.known = false // the file is read again: a write may have been cut short
		return "", fmt.Errorf("transcript %s: %w", f.path, err)
	}
	return f.path, nil
}

// flush appends a line for each event of the log not yet in the file.
func (s *Store) flush(f *file) error {
	if !f.known {
		if err := s.resume(f); err != nil {
			return err
		}
		f.known = true
	}
	n := f.log.Len()
	var buf bytes.Buffer
	parent := f.parent
	for i := f.done; i < n; i++ {
		l, ok := s.line(f.log, i, parent)
		if !ok {
			continue
		}
		buf.Write(l.encode(s.redact))
		parent = l.UUID
	}
	if err := os.MkdirAll(s.cfg.Dir, 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(f.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = out.Write(buf.Bytes())
	if err = errors.Join(err, out.Close()); err != nil {
		return err
	}
	f.done, f.parent = n, parent
	return nil
}

// redact replaces the secrets in text.
func (s *Store) redact(text string) string { return s.cfg.Secrets.String(text) }

// resume finds where the file ends in the log: after the event whose
// uuid its last line has. A torn last line is cut off first. Only the
// file's tail is read.
func (s *Store) resume(f *file) error {
	f.done, f.parent = 0, ""
	whole, last, err := lastLine(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if whole.torn {
		if err := os.Truncate(f.path, whole.size); err != nil {
			return fmt.Errorf("cut off its torn last line: %w", err)
		}
	}
	if whole.size == 0 {
		return nil
	}
	uuid := lastUUID(last)
	id := f.log.ID()
	for i := f.log.Len() - 1; i >= 0; i-- {
		if uuidOf(id, f.log.At(i).Seq) == uuid {
			f.done, f.parent = i+1, uuid
			return nil
		}
	}
	return fmt.Errorf("its last line (uuid %q) is no event of session %s", uuid, id)
}

// extent is where a file's whole lines end: size bytes, and whether a
// torn line follows them.
type extent struct {
	size int64
	torn bool
}

// lastLine reads a file backward, in chunks that double, until it holds
// the last whole line, and returns that line.
func lastLine(path string) (extent, []byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return extent{}, nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return extent{}, nil, err
	}
	size := st.Size()
	var tail []byte // the file from pos to size
	pos, chunk := size, int64(64<<10)
	for {
		if nl := bytes.LastIndexByte(tail, '\n'); nl >= 0 {
			body := tail[:nl]
			if start := bytes.LastIndexByte(body, '\n'); start >= 0 || pos == 0 {
				end := pos + int64(nl) + 1
				return extent{size: end, torn: end < size}, body[start+1:], nil
			}
		} else if pos == 0 {
			return extent{size: 0, torn: size > 0}, nil, nil
		}
		n := min(chunk, pos)
		pos -= n
		buf := make([]byte, n, n+int64(len(tail)))
		if _, err := fh.ReadAt(buf, pos); err != nil {
			return extent{}, nil, err
		}
		tail, chunk = append(buf, tail...), 2*chunk
	}
}

// track registers a log opened through s.
func (s *Store) track(l session.Log, err error) (session.Log, error) {
	if err != nil {
		return nil, err
	}
	f := &file{log: l, path: filepath.Join(s.cfg.Dir, l.ID()+".jsonl")}
	s.mu.Lock()
	s.open[l.ID()] = f
	s.mu.Unlock()
	return &tracked{Log: l, s: s, f: f}, nil
}

// tracked is a log opened through the Store: closing it forgets it.
type tracked struct {
	session.Log
	s *Store
	f *file
}

func (t *tracked) Close() error {
	t.s.mu.Lock()
	if t.s.open[t.ID()] == t.f {
		delete(t.s.open, t.ID())
	}
	t.s.mu.Unlock()
	return t.Log.Close()
}

// Create starts a session and its transcript.
func (s *Store) Create(ctx context.Context) (session.Log, error) {
	return s.track(s.inner.Create(ctx))
}

// Open reopens a session; its transcript goes on after its last line.
func (s *Store) Open(ctx context.Context, id string) (session.Log, error) {
	return s.track(s.inner.Open(ctx, id))
}

// Fork forks a session; the fork's transcript starts with the events it
// copied.
func (s *Store) Fork(ctx context.Context, id string, at int64) (session.Log, error) {
	return s.track(s.inner.Fork(ctx, id, at))
}

// List lists the wrapped store's sessions.
func (s *Store) List(ctx context.Context) ([]session.Info, error) { return s.inner.List(ctx) }

// Read reads a session through the wrapped store, when it is a
// session.Reader.
func (s *Store) Read(ctx context.Context, id string) ([]session.Event, error) {
	r, ok := s.inner.(session.Reader)
	if !ok {
		return nil, fmt.Errorf("read session %q: the store cannot read without opening", id)
	}
	return r.Read(ctx, id)
}

// Close closes the wrapped store when it holds something to close.
func (s *Store) Close() error {
	if c, ok := s.inner.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
