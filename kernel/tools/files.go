package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/workfs"
)

const (
	// defaultReadLines is how many lines Read returns without a limit.
	defaultReadLines = 2000
	// maxLineBytes cuts longer lines in Read's output: one minified line
	// should not take the whole page.
	maxLineBytes = 2000
	// maxReadBytes bounds the files Read and Edit load: the port reads whole
	// files, and a huge log belongs to Bash (head, tail, grep).
	maxReadBytes = 16 << 20
)

func (s *Set) readDescription() string {
	return texts.Text("read.md.tmpl", map[string]any{"Lines": defaultReadLines, "MaxOutput": s.maxOutput, "MaxLine": maxLineBytes})
}

// globArgs are Glob's arguments.
type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"Glob pattern, relative to the work dir or absolute inside it, e.g. \"**/*.go\" or \"src/*.ts\"."`
}

func (s *Set) glob(_ context.Context, in globArgs) contract.ToolResult {
	if in.Pattern == "" {
		return contract.ErrorResult(`invalid arguments: "pattern" is empty`)
	}
	matches, err := s.fs.Glob(in.Pattern)
	var esc *workfs.EscapeError
	switch {
	case errors.As(err, &esc):
		return contract.ErrorResult("refused: pattern %q reaches outside the work dir %s: %s. Glob only finds files inside the work dir.",
			in.Pattern, esc.Dir, esc.Reason)
	case errors.Is(err, filepath.ErrBadPattern):
		return contract.ErrorResult("bad pattern %q: %v", in.Pattern, filepath.ErrBadPattern)
	case err != nil:
		return contract.ErrorResult("%v", err)
	}
	if s.hidden != nil {
		matches = slices.DeleteFunc(matches, s.hidden)
	}
	if len(matches) == 0 {
		return contract.ToolResult{Content: fmt.Sprintf("no files match %q", in.Pattern)}
	}
	var b strings.Builder
	for i, m := range matches {
		line := s.rel(m) + "\n"
		if b.Len() > 0 && b.Len()+len(line) > s.maxOutput {
			fmt.Fprintf(&b, "(%d more matches not shown; %d in all: narrow the pattern)\n", len(matches)-i, len(matches))
			break
		}
		b.WriteString(line)
	}
	return contract.ToolResult{Content: b.String()}
}

// readArgs are Read's arguments.
type readArgs struct {
	Path   string `json:"path" jsonschema:"The file to read: relative to the work dir or absolute inside it."`
	Offset *int   `json:"offset,omitempty" jsonschema:"The line to start at, 1-based. Default 1."`
	Limit  *int   `json:"limit,omitempty" jsonschema:"How many lines to return at most. Default 2000."`
}

func (s *Set) read(_ context.Context, in readArgs) contract.ToolResult {
	if in.Path == "" {
		return contract.ErrorResult(`invalid arguments: "path" is empty`)
	}
	start, limit := 1, defaultReadLines
	if in.Offset != nil {
		if *in.Offset < 1 {
			return contract.ErrorResult(`invalid arguments: "offset" must be at least 1 (the first line is 1), not %d`, *in.Offset)
		}
		start = *in.Offset
	}
	if in.Limit != nil {
		if *in.Limit < 1 {
			return contract.ErrorResult(`invalid arguments: "limit" must be at least 1, not %d`, *in.Limit)
		}
		limit = *in.Limit
	}
	data, res, ok := s.load(in.Path)
	if !ok {
		return res
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return contract.ErrorResult("%q is a binary file (it contains NUL bytes); Read shows text files only", in.Path)
	}
	if len(data) == 0 {
		return contract.ToolResult{Content: fmt.Sprintf("(%s is empty)", in.Path)}
	}
	text := string(data)
	total := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		total++
	}
	if start > total {
		return contract.ErrorResult("offset %d is past the end of %q, which has %d lines", start, in.Path, total)
	}
	rest := text
	for range start - 1 {
		_, rest, _ = strings.Cut(rest, "\n")
	}
	var b strings.Builder
	last, full := start-1, false
	for last < total && last-start+1 < limit {
		line, after, _ := strings.Cut(rest, "\n")
		entry := fmt.Sprintf("%6d\t%s\n", last+1, cutLine(line))
		if b.Len() > 0 && b.Len()+len(entry) > s.maxOutput {
			full = true
			break
		}
		b.WriteString(entry)
		rest = after
		last++
	}
	if last < total {
		why := ""
		if full {
			why = fmt.Sprintf(" (output is limited to %d bytes)", s.maxOutput)
		}
		fmt.Fprintf(&b, "(showing lines %d-%d of %d%s; call Read with offset %d to continue)\n", start, last, total, why, last+1)
	}
	return contract.ToolResult{Content: b.String()}
}

// writeArgs are Write's arguments.
type writeArgs struct {
	Path    string `json:"path" jsonschema:"The file to write: relative to the work dir or absolute inside it."`
	Content string `json:"content" jsonschema:"The file's complete new content."`
}

func (s *Set) write(_ context.Context, in writeArgs) contract.ToolResult {
	if in.Path == "" {
		return contract.ErrorResult(`invalid arguments: "path" is empty`)
	}
	abs, err := s.fs.Resolve(in.Path)
	if err != nil {
		return fsResult(in.Path, err)
	}
	existed := false
	switch fi, err := s.fs.Stat(in.Path); {
	case err == nil && fi.IsDir():
		return contract.ErrorResult("%q is a directory; Write needs a file path", in.Path)
	case err == nil:
		existed = true
	case !errors.Is(err, fs.ErrNotExist):
		return fsResult(in.Path, err)
	}
	if err := s.fs.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
		return fsResult(in.Path, err)
	}
	s.wrote(abs)
	what := "created"
	if existed {
		what = "replaced its content"
	}
	return contract.ToolResult{Content: fmt.Sprintf("Wrote %d bytes to %s (%s).", len(in.Content), s.rel(abs), what)}
}

// editArgs are Edit's arguments.
type editArgs struct {
	Path       string `json:"path" jsonschema:"The file to edit: relative to the work dir or absolute inside it."`
	OldString  string `json:"old_string" jsonschema:"The exact text to replace, whitespace and indentation included."`
	NewString  string `json:"new_string" jsonschema:"The text to put in its place; must differ from old_string."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_string instead of exactly one."`
}

func (s *Set) edit(_ context.Context, in editArgs) contract.ToolResult {
	switch {
	case in.Path == "":
		return contract.ErrorResult(`invalid arguments: "path" is empty`)
	case in.OldString == "":
		return contract.ErrorResult(`invalid arguments: "old_string" is empty; to create a file or replace all of it, use Write`)
	case in.OldString == in.NewString:
		return contract.ErrorResult("old_string and new_string are the same; there is nothing to change")
	}
	abs, err := s.fs.Resolve(in.Path)
	if err != nil {
		return fsResult(in.Path, err)
	}
	data, res, ok := s.load(in.Path)
	if !ok {
		return res
	}
	text := string(data)
	n := strings.Count(text, in.OldString)
	switch {
	case n == 0:
		return contract.ErrorResult("old_string not found in %q; it must match the file's text exactly, whitespace and indentation included (Read the file to see it)", in.Path)
	case n > 1 && !in.ReplaceAll:
		return contract.ErrorResult("old_string occurs %d times in %q; add surrounding lines so that it occurs exactly once, or set replace_all to replace every occurrence", n, in.Path)
	}
	if in.ReplaceAll {
		text = strings.ReplaceAll(text, in.OldString, in.NewString)
	} else {
		text = strings.Replace(text, in.OldString, in.NewString, 1)
	}
	// The file exists, so WriteFile truncates it in place and its mode stays.
	if err := s.fs.WriteFile(in.Path, []byte(text), 0o644); err != nil {
		return fsResult(in.Path, err)
	}
	s.wrote(abs)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return contract.ToolResult{Content: fmt.Sprintf("Edited %s: replaced %d occurrence%s of old_string.", s.rel(abs), n, plural)}
}

// load reads the regular file at path for Read and Edit, or says why not.
func (s *Set) load(path string) ([]byte, contract.ToolResult, bool) {
	fi, err := s.fs.Stat(path)
	switch {
	case err != nil:
		return nil, fsResult(path, err), false
	case fi.IsDir():
		return nil, contract.ErrorResult("%q is a directory, not a file; to list its files use Glob with the pattern %q",
			path, filepath.Join(path, "*")), false
	case !fi.Mode().IsRegular():
		// A FIFO or a device could block the call forever.
		return nil, contract.ErrorResult("%q is not a regular file (%s)", path, fi.Mode().Type()), false
	case fi.Size() > maxReadBytes:
		return nil, contract.ErrorResult("%q is %d bytes, more than the %d this tool loads; use Bash (head, tail, grep, sed -n) to look at parts of it",
			path, fi.Size(), maxReadBytes), false
	}
	data, err := s.fs.ReadFile(path)
	if err != nil {
		return nil, fsResult(path, err), false
	}
	return data, contract.ToolResult{}, true
}

// wrote reports a changed file to OnWrite.
func (s *Set) wrote(abs string) {
	if s.onWrite != nil {
		s.onWrite(abs)
	}
}

// rel shows an absolute path under the work dir relative to it.
func (s *Set) rel(abs string) string {
	r, err := filepath.Rel(s.fs.Dir(), abs)
	if err != nil {
		return abs
	}
	return r
}

// cutLine cuts a line longer than maxLineBytes at a rune boundary and says
// how much was left out.
func cutLine(line string) string {
	if len(line) <= maxLineBytes {
		return line
	}
	end := maxLineBytes
	for end > 0 && !utf8.RuneStart(line[end]) {
		end--
	}
	return fmt.Sprintf("%s [... %d more bytes on this line]", line[:end], len(line)-end)
}
