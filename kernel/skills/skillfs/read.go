package skillfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/helios-agents/helios/kernel/skills"
)

// Default limits (see Limits).
const (
	DefaultMaxFrontmatter = 64 << 10
	defaultMaxFileSize    = 8 << 20
)

// Limits bounds every read of a skill file. The zero value is the defaults.
type Limits struct {
	// MaxFrontmatter is how many bytes discovery reads from the start of a
	// SKILL.md to find the end of its frontmatter; discovery never reads the
	// body. A frontmatter not closed within it is skipped with a warning
	// naming the limit. Zero means DefaultMaxFrontmatter (64 KiB); config
	// key skills.maxFrontmatter.
	MaxFrontmatter int
	// MaxFileSize is the largest skill file a load reads; a larger one is
	// refused with an error the model reads. Zero means defaultMaxFileSize
	// (8 MiB); config key skills.maxFileSize.
	MaxFileSize int64
}

func (l Limits) frontmatter() int {
	if l.MaxFrontmatter <= 0 {
		return DefaultMaxFrontmatter
	}
	return l.MaxFrontmatter
}

func (l Limits) fileSize() int64 {
	if l.MaxFileSize <= 0 {
		return defaultMaxFileSize
	}
	return l.MaxFileSize
}

// ErrTooLarge is wrapped by a load refusing a file over Limits.MaxFileSize.
var ErrTooLarge = errors.New("skill file is too large")

// headChunk is the first read of a file's head: most frontmatter, and the
// first 8 KiB the binary check looks at, fit in it.
const headChunk = 8 << 10

// headBufs recycles the buffers of discovery's reads: nothing parsed keeps a
// reference to them (the parser copies what it keeps).
var headBufs = sync.Pool{New: func() any { b := make([]byte, 0, headChunk); return &b }}

func putHeadBuf(b *[]byte) {
	if cap(*b) > headChunk {
		return // a long frontmatter's buffer: let it go
	}
	*b = (*b)[:0]
	headBufs.Put(b)
}

// readHead reads the start of a skill file into buf until its frontmatter is
// known to end (frontmatter.HeadLen), at most limit bytes. end is where the
// frontmatter (with its closing line) ends in data; the bytes after it, up
// to what the last read returned, are the start of the body. over reports
// that limit bytes were read and the frontmatter is still open.
func readHead(r io.Reader, limit int, buf []byte) (data []byte, end int, over bool, err error) {
	buf = buf[:0]
	if cap(buf) == 0 {
		buf = make([]byte, 0, min(limit, headChunk))
	}
	if cap(buf) > limit {
		buf = buf[:0:limit]
	}
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= limit {
				return buf, 0, true, nil
			}
			grown := make([]byte, len(buf), min(2*cap(buf), limit))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			return buf, 0, false, err
		}
		if end, done := frontmatter.HeadLen(buf, eof); done {
			return buf, end, false, nil
		}
	}
}

// ErrFrontmatterTooLarge is wrapped by ReadHead's error for a frontmatter
// not closed within the limit.
var ErrFrontmatterTooLarge = errors.New("frontmatter is too large")

// ReadHead reads the start of a regular file through fsys up to the end of
// its frontmatter, at most limit bytes (zero or less: DefaultMaxFrontmatter),
// for a reader that needs only the frontmatter (EXTENSION.md). A frontmatter
// still open after limit bytes is an error naming the limit.
func ReadHead(fsys FS, file string, limit int) ([]byte, error) {
	limit = Limits{MaxFrontmatter: limit}.frontmatter()
	f, err := openRegular(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	defer f.Close()
	data, _, over, err := readHead(f, limit, nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", file, err)
	case over:
		return nil, fmt.Errorf("read %s: %w: not closed within the first %d bytes (the limit skills.maxFrontmatter)", file, ErrFrontmatterTooLarge, limit)
	}
	return data, nil
}

func loadFile(ctx context.Context, fsys FS, file, folder string, maxSize int64) (skills.Content, error) {
	if err := ctx.Err(); err != nil {
		return skills.Content{}, err
	}
	data, err := readBounded(fsys, file, maxSize)
	if err != nil {
		return skills.Content{}, fmt.Errorf("load skill %s: %w", file, err)
	}
	meta, body, findings := ParseSkill(file, folder, data)
	for _, f := range findings {
		if f.Severity == Unusable {
			return skills.Content{}, fmt.Errorf("load skill %s: %s", file, f.Message)
		}
	}
	return skills.Content{Name: meta.Name, Body: body}, nil
}

// readBounded reads a whole regular file of at most maxSize bytes.
func readBounded(fsys FS, file string, maxSize int64) ([]byte, error) {
	f, err := openRegular(fsys, file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func(size string) error {
		return fmt.Errorf("%w: the file is %s, over the limit of %d bytes (skills.maxFileSize); shorten it or split it into files the skill references", ErrTooLarge, size, maxSize)
	}
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
		if size > maxSize {
			return nil, tooLarge(fmt.Sprintf("%d bytes", size))
		}
	}
	// The file may grow between Stat and the read: read one byte past the
	// limit to know.
	buf := bytes.NewBuffer(make([]byte, 0, min(size, maxSize)+1))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxSize+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > maxSize {
		return nil, tooLarge("more than that")
	}
	return buf.Bytes(), nil
}
