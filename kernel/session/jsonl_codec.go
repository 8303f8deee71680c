package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/helios-agents/helios/kernel/bytesize"
)

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
		Time time.Time         `json:"time"`
		Type Type              `json:"type"`
		Text string            `json:"text"`
		Meta map[string]string `json:"meta"`
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
				sm.title, sm.parent, titled = shortTitle(h.Text), h.Meta[MetaParentSession], true
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
