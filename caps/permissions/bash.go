package permissions

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Bounds on what is parsed: a longer or deeper command, or one with more
// simple commands, is unmatched (only a rule for every Bash call decides
// it), in bounded time and memory.
const (
	maxCommandBytes = 64 << 10
	maxNesting      = 64 // brackets, counted before parsing
	maxWrapDepth    = 8  // bash -c inside eval inside bash -c ...
	maxParts        = 1024
)

// unknownTail stands for the arguments xargs appends: an allow rule must
// accept any tail (a prefix or trailing-'*' rule) to allow an xargs call.
const unknownTail = " \x00"

// parsed is a Bash command cut into the simple commands that run.
type parsed struct {
	raw       string
	ok        bool     // it parsed within the bounds
	parts     []part   // every simple command, wrappers resolved
	redirects []string // output redirection targets; "" when not literal
}

// part is one simple command. deny holds its text as written and as each
// wrapper runs it: a deny or ask rule matching any of them matches. allow
// holds the texts an allow rule must each match; unknown means no rule but
// one for every Bash call can allow it (what it runs cannot be known).
type part struct {
	deny    []string
	allow   []string
	unknown bool
}

// parseCommand parses cmd with a real shell parser (bash dialect) and
// collects every simple command: in pipelines, lists, subshells, command
// and process substitutions, here-strings, function bodies and the
// commands wrappers run.
func parseCommand(cmd string) parsed {
	p := parsed{raw: strings.Join(strings.Fields(cmd), " ")}
	if len(cmd) > maxCommandBytes || nesting(cmd) > maxNesting {
		return p
	}
	w := walker{}
	if !w.parse(cmd, 0, nil, nil, false) || len(w.parts) > maxParts {
		return p
	}
	p.ok, p.parts, p.redirects = true, w.parts, w.redirects
	return p
}

// nesting is the deepest bracket nesting of s, quotes ignored: a cheap
// bound checked before the parser recurses.
func nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[', '`':
			depth++
			deepest = max(deepest, depth)
		case ')', '}', ']':
			depth = max(depth-1, 0) // a stray closer cannot pay for later depth
		}
	}
	return deepest
}

// parsers are reused: a parser's buffers are most of a parse's allocations.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

type walker struct {
	parts     []part
	redirects []string
	failed    bool
}

// parse parses src and adds its simple commands; deny and allow are the
// texts of the wrappers around it; tail marks xargs's unknown arguments.
func (w *walker) parse(src string, depth int, deny, allow []string, tail bool) bool {
	if depth > maxWrapDepth {
		return false
	}
	parser := parsers.Get().(*syntax.Parser)
	f, err := parser.Parse(strings.NewReader(src), "")
	parsers.Put(parser)
	if err != nil {
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if w.failed || len(w.parts) > maxParts {
			w.failed = true
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				w.call(src, n.Args, depth, deny, allow, tail)
			}
		case *syntax.DeclClause:
			words := []string{n.Variant.Value}
			for _, a := range n.Args {
				words = append(words, nodeText(src, a))
			}
			w.add(strings.Join(words, " "), deny, allow, false, tail)
		case *syntax.LetClause:
			w.add("let", deny, allow, false, tail)
		case *syntax.Redirect:
			switch n.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
				t, lit := literal(src, n.Word)
				if !lit {
					t = ""
				}
				if !strings.HasPrefix(t, "/dev/") || strings.HasPrefix(t, "/dev/shm/") {
					w.redirects = append(w.redirects, t)
				}
			}
		}
		return true
	})
	return !w.failed
}

// word is one argument: its value when literal (quotes removed), else its
// source text.
type word struct {
	text string
	lit  bool
}

// call adds a simple command, resolving the wrappers it starts with.
func (w *walker) call(src string, args []*syntax.Word, depth int, deny, allow []string, tail bool) {
	words := make([]word, len(args))
	for i, a := range args {
		t, lit := literal(src, a)
		words[i] = word{t, lit}
	}
	w.words(words, depth, deny, allow, tail)
}

func (w *walker) words(words []word, depth int, deny, allow []string, tail bool) {
	full := render(words)
	name := words[0]
	if !name.lit || strings.ContainsAny(name.text, "*?[{") || name.text == "" {
		// $CMD arg, $(cmd) arg, r{m,x}: what runs cannot be known.
		w.add(full, deny, allow, true, tail)
		return
	}
	base := name.text
	if i := strings.LastIndexByte(base, '/'); i >= 0 && i < len(base)-1 {
		base = base[i+1:]
	}
	rest := words[1:]
	inner := func(rest []word, sudo bool) {
		if len(rest) == 0 {
			w.add(full, deny, allow, false, tail)
			return
		}
		a := allow
		if sudo {
			a = append(clone(allow), full)
		}
		w.words(rest, depth, append(clone(deny), full), a, tail)
	}
	switch base {
	case "timeout":
		rest = skipOptions(rest, "-s", "-k", "--signal", "--kill-after")
		if len(rest) > 0 {
			rest = rest[1:] // the duration
		}
		inner(rest, false)
	case "nice":
		inner(skipOptions(rest, "-n", "--adjustment"), false)
	case "nohup":
		inner(skipOptions(rest), false)
	case "time":
		inner(skipOptions(rest, "-f", "-o", "--format", "--output"), false)
	case "stdbuf":
		inner(skipOptions(rest, "-i", "-o", "-e", "--input", "--output", "--error"), false)
	case "command":
		inner(skipOptions(rest), false)
	case "exec":
		inner(skipOptions(rest, "-a"), false)
	case "env":
		for _, o := range rest {
			if o.text == "-S" || strings.HasPrefix(o.text, "--split-string") || strings.HasPrefix(o.text, "-S") {
				w.add(full, deny, allow, true, tail) // env -S splits a string: unknowable
				return
			}
		}
		inner(skipAssignments(skipOptions(rest, "-u", "-C", "--unset", "--chdir")), false)
	case "sudo", "doas":
		inner(skipAssignments(skipOptions(rest, "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group", "--host", "--prompt", "--chdir")), true)
	case "xargs":
		rest = skipOptions(rest, "-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--max-lines", "--delimiter", "--eof", "--max-chars", "--arg-file", "--replace")
		if len(rest) == 0 {
			w.add(full, deny, allow, false, tail) // xargs alone runs echo
			return
		}
		w.words(rest, depth, append(clone(deny), full), allow, true)
	case "bash", "sh", "zsh", "dash", "ksh", "ash", "mksh":
		script, ok, isC := shellScript(rest)
		if !isC {
			w.add(full, deny, allow, false, tail) // runs a script file or stdin: the command itself
			return
		}
		if !ok || !w.parse(script, depth+1, append(clone(deny), full), allow, tail) {
			w.add(full, deny, allow, true, tail)
		}
	case "eval":
		parts := make([]string, len(rest))
		for i, r := range rest {
			if !r.lit {
				w.add(full, deny, allow, true, tail) // eval "$x"
				return
			}
			parts[i] = r.text
		}
		if len(rest) == 0 {
			w.add(full, deny, allow, false, tail)
			return
		}
		if !w.parse(strings.Join(parts, " "), depth+1, append(clone(deny), full), allow, tail) {
			w.add(full, deny, allow, true, tail)
		}
	case "source", ".":
		w.add(full, deny, allow, true, tail) // runs a file's commands
	default:
		w.add(full, deny, allow, false, tail)
	}
}

// add records a simple command whose text is text.
func (w *walker) add(text string, deny, allow []string, unknown, tail bool) {
	p := part{deny: append(clone(deny), text), allow: append(clone(allow), text), unknown: unknown}
	if i := strings.IndexByte(text, ' '); strings.Contains(text[:max(i, 0)], "/") || i < 0 && strings.Contains(text, "/") {
		// /bin/rm is rm to a deny rule (never to an allow rule).
		name, args, _ := strings.Cut(text, " ")
		p.deny = append(p.deny, strings.TrimSpace(name[strings.LastIndexByte(name, '/')+1:]+" "+args))
	}
	if tail {
		p.allow[len(p.allow)-1] = text + unknownTail
		p.deny = append(p.deny, text+unknownTail)
	}
	w.parts = append(w.parts, p)
}

// shellScript finds the string `sh -c` runs: isC when -c (alone or among
// other letters, "-ec") is given; ok when that string is literal.
func shellScript(args []word) (script string, ok, isC bool) {
	for i, a := range args {
		if !strings.HasPrefix(a.text, "-") || a.text == "-" || a.text == "--" {
			return "", false, false
		}
		if !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "c") {
			// The first argument that is not an option is the script.
			for _, b := range args[i+1:] {
				if strings.HasPrefix(b.text, "-") && b.lit {
					continue
				}
				return b.text, b.lit, true
			}
			return "", false, true
		}
		if a.text == "-o" || a.text == "+o" || a.text == "-O" {
			return "", false, false
		}
	}
	return "", false, false
}

// skipOptions drops leading options; those in withValue take the next
// word as their value (unless given as --opt=value or attached).
func skipOptions(ws []word, withValue ...string) []word {
	for len(ws) > 0 {
		t := ws[0].text
		if t == "--" {
			return ws[1:]
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			if t == "-" {
				ws = ws[1:] // env -
				continue
			}
			return ws
		}
		ws = ws[1:]
		for _, o := range withValue {
			if t == o && len(ws) > 0 {
				ws = ws[1:]
				break
			}
		}
	}
	return ws
}

// skipAssignments drops leading NAME=value words (env, sudo).
func skipAssignments(ws []word) []word {
	for len(ws) > 0 {
		i := strings.IndexByte(ws[0].text, '=')
		if i <= 0 || !syntax.ValidName(ws[0].text[:i]) {
			break
		}
		ws = ws[1:]
	}
	return ws
}

// literal is a word's value with quotes removed, and whether it has no
// expansion: Lit, '...', and "..." of plain text. Otherwise it is the word
// as written.
func literal(src string, w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			return unescape(l.Value), true
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return nodeText(src, w), false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return nodeText(src, w), false
				}
				b.WriteString(l.Value)
			}
		default:
			return nodeText(src, w), false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes of an unquoted literal.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// render joins words with single spaces; a literal holding white space is
// single-quoted so that a rule cannot read one argument as several.
func render(ws []word) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w.lit && strings.ContainsAny(w.text, " \t\n") {
			b.WriteString("'" + strings.ReplaceAll(w.text, "'", `'\''`) + "'")
			continue
		}
		b.WriteString(w.text)
	}
	return b.String()
}

func nodeText(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	return src[s:e]
}

func clone(s []string) []string { return append([]string(nil), s...) }
