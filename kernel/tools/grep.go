package tools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/workfs"
)

// Grep's output modes.
const (
	grepFiles   = "files_with_matches"
	grepContent = "content"
	grepCount   = "count"
)

// binarySniff is how much of a file Grep looks at for a NUL byte, as
// ripgrep and git do: a file with one there is binary and not searched.
const binarySniff = 8 << 10

// vcsDirs are the version-control folders Grep never enters.
var vcsDirs = []string{workfs.GitName, ".hg", ".svn", ".bzr", ".jj", ".sl"}

// grepTypes are the file types Grep's "type" names, by base-name pattern.
var grepTypes = map[string][]string{
	"c":    {"*.c", "*.h"},
	"cpp":  {"*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"},
	"go":   {"*.go"},
	"java": {"*.java"},
	"js":   {"*.js", "*.mjs", "*.cjs", "*.jsx"},
	"json": {"*.json"},
	"md":   {"*.md", "*.markdown"},
	"py":   {"*.py", "*.pyi"},
	"rust": {"*.rs"},
	"sh":   {"*.sh", "*.bash", "*.zsh"},
	"ts":   {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"yaml": {"*.yaml", "*.yml"},
}

// grepArgs are Grep's arguments, by Claude Code's names: hooks and
// permission rules read them so.
type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"The regular expression to search for (Go RE2 syntax), e.g. \"func \\w+Handler\" or \"TODO|FIXME\"."`
	Path       string `json:"path,omitempty" jsonschema:"The file or folder to search: relative to the work dir or absolute inside it. Default the work dir."`
	Glob       string `json:"glob,omitempty" jsonschema:"Search only files whose path matches this glob, e.g. \"*.go\" or \"src/**/*.{ts,tsx}\"; a leading ! leaves them out instead."`
	Type       string `json:"type,omitempty" jsonschema:"Search only files of this type: c, cpp, go, java, js, json, md, py, rust, sh, ts or yaml."`
	OutputMode string `json:"output_mode,omitempty" jsonschema:"files_with_matches (default): the paths of the files that match; content: the matching lines; count: the number of matching lines per file."`
	IgnoreCase bool   `json:"-i,omitempty" jsonschema:"Match case-insensitively."`
	LineNums   *bool  `json:"-n,omitempty" jsonschema:"Show line numbers (content mode). Default true."`
	After      *int   `json:"-A,omitempty" jsonschema:"Lines of context to show after each match (content mode)."`
	Before     *int   `json:"-B,omitempty" jsonschema:"Lines of context to show before each match (content mode)."`
	Context    *int   `json:"-C,omitempty" jsonschema:"Lines of context to show before and after each match (content mode)."`
	HeadLimit  *int   `json:"head_limit,omitempty" jsonschema:"Return at most this many lines or entries. Default all that fit."`
	Multiline  bool   `json:"multiline,omitempty" jsonschema:"Let the pattern span lines: . matches a newline and the whole file is matched at once."`
}

func (s *Set) grepDescription() string {
	return texts.Text("grep.md.tmpl", map[string]any{"MaxOutput": s.maxOutput, "MaxFile": maxReadBytes})
}

// grepSchema tells the model the output modes and the bounds.
func grepSchema(sc *jsonschema.Schema) {
	sc.Properties["output_mode"].Enum = []any{grepFiles, grepContent, grepCount}
	sc.Properties["output_mode"].Default = json.RawMessage(`"` + grepFiles + `"`)
	sc.Properties["-n"].Default = json.RawMessage("true")
	for _, p := range []string{"-A", "-B", "-C", "head_limit"} {
		sc.Properties[p].Minimum = jsonschema.Ptr(0.0)
	}
}

// grepQuery is a checked Grep call.
type grepQuery struct {
	re            *regexp.Regexp
	mode          string
	lineNums      bool
	before, after int
	multiline     bool
	glob          string
	globOut       bool // glob leaves its matches out
	types         []string
	root          string // the search root, relative to the work dir
}

func (s *Set) grep(ctx context.Context, in grepArgs) contract.ToolResult {
	q, res, ok := s.grepQuery(in)
	if !ok {
		return res
	}
	fi, err := s.fs.Stat(q.root)
	if err != nil {
		return fsResult(cmp.Or(in.Path, "."), err)
	}
	var files []string
	if fi.IsDir() {
		files = s.grepWalk(q)
	} else {
		files = []string{q.root} // a file named is searched even if ignored
	}
	files = slices.DeleteFunc(files, func(rel string) bool {
		return s.hidden != nil && s.hidden(filepath.Join(s.fs.Dir(), rel))
	})
	slices.Sort(files)

	out := &grepOutput{max: s.maxOutput, limit: -1}
	if in.HeadLimit != nil && *in.HeadLimit > 0 {
		out.limit = *in.HeadLimit
	}
	big := 0
	for _, rel := range files {
		if ctx.Err() != nil {
			return contract.ErrorResult("search interrupted: %v", ctx.Err())
		}
		data, tooBig := s.grepLoad(rel)
		if tooBig {
			big++
		}
		if data != nil {
			q.search(out, rel, data)
		}
	}
	var b strings.Builder
	b.WriteString(out.text.String())
	if out.shown+out.cut == 0 {
		fmt.Fprintf(&b, "no matches for %q in %s\n", in.Pattern, cmp.Or(in.Path, "the work dir"))
	}
	if out.cut > 0 {
		what := "narrow the search with path, glob, type or a more specific pattern"
		if out.full {
			fmt.Fprintf(&b, "(output is limited to %d bytes: %d more lines not shown; %s)\n", s.maxOutput, out.cut, what)
		} else {
			fmt.Fprintf(&b, "(head_limit %d: %d more lines not shown)\n", out.limit, out.cut)
		}
	}
	if big > 0 {
		fmt.Fprintf(&b, "(%d files larger than %d bytes were not searched; use Bash for them)\n", big, maxReadBytes)
	}
	return contract.ToolResult{Content: b.String()}
}

// grepQuery checks the arguments.
func (s *Set) grepQuery(in grepArgs) (*grepQuery, contract.ToolResult, bool) {
	if in.Pattern == "" {
		return nil, contract.ErrorResult(`invalid arguments: "pattern" is empty`), false
	}
	q := &grepQuery{mode: cmp.Or(in.OutputMode, grepFiles), lineNums: in.LineNums == nil || *in.LineNums, multiline: in.Multiline}
	if q.mode != grepFiles && q.mode != grepContent && q.mode != grepCount {
		return nil, contract.ErrorResult(`invalid arguments: "output_mode" is %q; use %s, %s or %s`, in.OutputMode, grepFiles, grepContent, grepCount), false
	}
	for _, n := range []struct {
		name string
		v    *int
	}{{"-A", in.After}, {"-B", in.Before}, {"-C", in.Context}, {"head_limit", in.HeadLimit}} {
		if n.v != nil && *n.v < 0 {
			return nil, contract.ErrorResult(`invalid arguments: %q must not be negative, not %d`, n.name, *n.v), false
		}
	}
	if in.Context != nil {
		q.before, q.after = *in.Context, *in.Context
	}
	if in.Before != nil {
		q.before = *in.Before
	}
	if in.After != nil {
		q.after = *in.After
	}
	flags := ""
	if in.IgnoreCase {
		flags += "i"
	}
	if in.Multiline {
		flags += "sm"
	}
	expr := in.Pattern
	if flags != "" {
		expr = "(?" + flags + ")" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, contract.ErrorResult("bad pattern %q: %v", in.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: ")), false
	}
	q.re = re
	if in.Glob != "" {
		q.glob, q.globOut = strings.CutPrefix(in.Glob, "!")
		if !doublestar.ValidatePattern(q.glob) {
			return nil, contract.ErrorResult("bad glob %q: %v", in.Glob, doublestar.ErrBadPattern), false
		}
	}
	if in.Type != "" {
		types, ok := grepTypes[in.Type]
		if !ok {
			known := make([]string, 0, len(grepTypes))
			for k := range grepTypes {
				known = append(known, k)
			}
			slices.Sort(known)
			return nil, contract.ErrorResult(`unknown type %q; Grep knows %s (or use glob)`, in.Type, strings.Join(known, ", ")), false
		}
		q.types = types
	}
	abs, err := s.fs.Resolve(cmp.Or(in.Path, "."))
	if err != nil {
		return nil, fsResult(in.Path, err), false
	}
	q.root = s.rel(abs)
	return q, contract.ToolResult{}, true
}

// grepWalk lists the files under q.root (relative paths) that the query's
// glob and type select, in no set order: it leaves out version-control
// folders and what .gitignore files ignore, and follows no symlink, as
// ripgrep does.
func (s *Set) grepWalk(q *grepQuery) []string {
	var ignores []gitignore.Pattern
	// The .gitignore files of the folders above the root, inside the work dir.
	if q.root != "." {
		parts := strings.Split(q.root, string(filepath.Separator))
		ignores = s.gitignores(".", nil)
		for i := range len(parts) - 1 {
			ignores = append(ignores, s.gitignores(filepath.Join(parts[:i+1]...), parts[:i+1])...)
		}
	}
	var files []string
	var walk func(dir string, ignores []gitignore.Pattern)
	walk = func(dir string, ignores []gitignore.Pattern) {
		entries, err := s.fs.ReadDir(dir)
		if err != nil {
			return
		}
		var domain []string
		if dir != "." {
			domain = strings.Split(dir, string(filepath.Separator))
		}
		ignores = append(ignores[:len(ignores):len(ignores)], s.gitignores(dir, domain)...)
		for _, e := range entries {
			rel := filepath.Join(dir, e.Name())
			isDir := e.IsDir()
			// An entry describes itself, not what a symlink points to: a
			// link is neither a folder nor a regular file, so it is neither
			// entered nor searched, wherever it points.
			switch {
			case isDir && slices.Contains(vcsDirs, e.Name()):
				continue
			case ignored(ignores, append(domain[:len(domain):len(domain)], e.Name()), isDir):
				continue
			case isDir:
				walk(rel, ignores)
			case e.Type().IsRegular() && q.selects(q.root, rel):
				files = append(files, rel)
			}
		}
	}
	walk(q.root, ignores)
	return files
}

// gitignores reads the .gitignore file of dir (relative), its patterns
// anchored at domain (dir's path elements).
func (s *Set) gitignores(dir string, domain []string) []gitignore.Pattern {
	data, err := s.fs.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || len(data) > maxReadBytes {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if !strings.HasPrefix(line, "#") && strings.TrimSpace(line) != "" {
			ps = append(ps, gitignore.ParsePattern(line, domain))
		}
	}
	return ps
}

// ignored reports whether the last pattern that matches path excludes it,
// as git reads a stack of .gitignore files: a deeper file's "!x" re-includes.
func ignored(ps []gitignore.Pattern, path []string, isDir bool) bool {
	for i := len(ps) - 1; i >= 0; i-- {
		switch ps[i].Match(path, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// selects reports whether the glob and the type let the file rel (relative
// to the work dir) be searched. A glob with a slash matches the path
// relative to the search root, one without matches the base name.
func (q *grepQuery) selects(root, rel string) bool {
	base := filepath.Base(rel)
	if q.types != nil && !slices.ContainsFunc(q.types, func(p string) bool {
		ok, _ := path.Match(p, base)
		return ok
	}) {
		return false
	}
	if q.glob == "" {
		return true
	}
	name := base
	if strings.Contains(q.glob, "/") {
		r, err := filepath.Rel(root, rel)
		if err != nil {
			return false
		}
		name = filepath.ToSlash(r)
	}
	return doublestar.MatchUnvalidated(q.glob, name) != q.globOut
}

// grepLoad reads the regular file rel for Grep: nil for a binary or
// unreadable file, and for one over maxReadBytes, which tooBig reports.
func (s *Set) grepLoad(rel string) (data []byte, tooBig bool) {
	f, err := s.fs.Open(rel)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil, !fi.Mode().IsRegular():
		return nil, false
	case fi.Size() > maxReadBytes:
		return nil, true
	}
	data, err = io.ReadAll(io.LimitReader(f, maxReadBytes+1))
	switch {
	case err != nil:
		return nil, false
	case len(data) > maxReadBytes:
		return nil, true
	case bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0:
		return nil, false
	}
	return data, false
}

// search adds what the query finds in the file rel to out.
func (q *grepQuery) search(out *grepOutput, rel string, data []byte) {
	lines := splitLines(data)
	matched := q.matchedLines(data, lines)
	n := 0
	for _, m := range matched {
		if m {
			n++
		}
	}
	if n == 0 {
		return
	}
	switch q.mode {
	case grepFiles:
		out.add(rel)
		return
	case grepCount:
		out.add(fmt.Sprintf("%s:%d", rel, n))
		return
	}
	// Content: each match with its context; "--" between runs that do not
	// touch, as grep and ripgrep print them.
	last := -1 // the last line printed
	for i, m := range matched {
		if !m {
			continue
		}
		from, to := max(i-q.before, last+1), min(i+q.after, len(lines)-1)
		if q.before+q.after > 0 && (last >= 0 && from > last+1 || last < 0 && out.shown+out.cut > 0) {
			out.add("--")
		}
		for j := from; j <= to; j++ {
			sep := "-"
			if matched[j] {
				sep = ":"
			}
			line := cutLine(strings.TrimSuffix(string(lines[j]), "\r"))
			if q.lineNums {
				out.add(fmt.Sprintf("%s%s%d%s%s", rel, sep, j+1, sep, line))
			} else {
				out.add(rel + sep + line)
			}
		}
		last = max(last, to)
	}
}

// matchedLines says for each line whether the pattern matches it (or, in
// multiline mode, whether a match spans it).
func (q *grepQuery) matchedLines(data []byte, lines [][]byte) []bool {
	matched := make([]bool, len(lines))
	if !q.multiline {
		for i, l := range lines {
			matched[i] = q.re.Match(l)
		}
		return matched
	}
	// starts[i] is the offset of line i.
	starts := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
	}
	lineOf := func(o int) int {
		i, found := slices.BinarySearch(starts, o)
		if !found {
			i--
		}
		return max(i, 0)
	}
	for _, m := range q.re.FindAllIndex(data, -1) {
		end := m[1]
		if end > m[0] {
			end-- // the last byte of the match, not the one after it
		}
		for i := lineOf(m[0]); i <= lineOf(end) && i < len(lines); i++ {
			matched[i] = true
		}
	}
	return matched
}

// splitLines splits data at "\n"; a final newline ends the last line
// rather than starting an empty one.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// grepOutput collects Grep's lines up to max bytes and limit lines (-1:
// no limit), and counts the rest.
type grepOutput struct {
	text         strings.Builder
	max, limit   int
	shown, cut   int
	full         bool // max bytes reached (rather than limit)
	limitReached bool
}

func (o *grepOutput) add(line string) {
	switch {
	case o.full || o.limitReached:
	case o.limit >= 0 && o.shown >= o.limit:
		o.limitReached = true
	case o.text.Len() > 0 && o.text.Len()+len(line)+1 > o.max:
		o.full = true
	default:
		o.text.WriteString(line)
		o.text.WriteByte('\n')
		o.shown++
		return
	}
	o.cut++
}
