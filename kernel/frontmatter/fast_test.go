package frontmatter

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

// fastValues are values a SKILL.md line may carry: plain words the fast path
// takes, and everything it must leave to yaml (quotes, escapes, indicators,
// comments, numbers, dates, nulls, bools in their other spellings).
var fastValues = []string{
	"pdf", "Fill PDF forms. Use when asked to.", "it's fine", "C# and F#", "a:b", "http://x.example/y",
	"技能", "мой-навык", "\u00a0nbsp", "trailing   ", "Use when [x] or {y}", "x, y, z", "a - b", "a -- b",
	"true", "True", "TRUE", "false", "False", "FALSE", "yes", "No", "on", "Off", "y", "n",
	"null", "Null", "NULL", "~", "",
	"'single'", "'it''s'", "\"double\"", "\"esc\\\"aped\"", "\"tab\\tand\\nnewline\"", "\"\\u00e9\"", "'a' b",
	"a: b", "Use when: x", "x:", "a #c", "a#c", "#c", "a\t#c",
	"1", "1.0", "-1", "+1", "0x1F", "1_000", ".5", ".nan", ".inf", "-.inf", "2024-01-01", "2024-01-01T10:00:00Z", "1e3",
	"-x", "- a", "? x", ": x", "[a, b]", "{a: 1}", "&anchor x", "*alias", "!tag x", "!!str x", "|", "|-", ">", ">-",
	"%x", "@x", "`x`", "<<", "=x", "--- x", "...",
}

// fastGenerated builds frontmatter texts from fastValues in several shapes.
func fastGenerated() []string {
	var out []string
	for i, v := range fastValues {
		out = append(out,
			"name: pdf\ndescription: "+v+"\n",
			fmt.Sprintf("k-%d: %s\nlicense: MIT\n", i, v),
			"description:    "+v+"\nname: x\n",
			"a: x\n\nb: "+v+"\n",
			"a: "+v+"\n  continued\n",
			"a: "+v+" # comment\n",
			"# head\na: "+v+"\n",
			"a: "+v+"\na: again\n",
			"a:"+v+"\n",
			" a: "+v+"\n",
			"a : "+v+"\n",
			"\"a\": "+v+"\n",
			"a: "+v,
		)
	}
	for _, v := range fastValues {
		out = append(out,
			"metadata:\n  author: "+v+"\n  version: \"1.0\"\nname: x\n",
			"metadata:\n  "+v+": x\n",
			"metadata:\n    a: "+v+"\n    b: c\n",
			"metadata:\n  a: "+v+"\n   b: c\n",
			"metadata:\n  a: "+v+"\n\n  b: c\nz: y\n",
			"metadata:\n  a:\n    b: "+v+"\n",
			"metadata:\n  a: "+v+"\n  a: again\n",
			"metadata:\n\nname: "+v+"\n",
			"metadata: \n  a: "+v+"\n",
		)
	}
	out = append(out, "", "\n", "a: b\nmetadata:\n  x: y\n", "a: \"x\" # c\n", "a: 'x' y\n", "a: \"x\\\"\n", "a: \"\"\n", "a: ''\n",
		"metadata:\n  true: x\n  null: y\n  False: z\n", "a: \"x\"  \n", "a: 'it''s'\n", "a:\n- x\n", "  \na: b\n", "a: b\n  \nc: d\n", "metadata:\n  a: b\n  \n  c: d\n", "a: b\r\nc: d\r\n", "a: b\rc: d\n", "a: x\u2028y\n",
		"disable-model-invocation: true\nname: n\n", strings.Repeat("k", 200)+": v\n", "a_b-C9: v\n", "9a: v\n", "_a: v\n",
		"a: x\x00y\n", "a: \xff\n", "a: b\nc: \x7f\n", "a: é\x01\n", "a: \ufffd\n", "a: \u0085x\n", "a: \xe6\x8a\n", "a: \U0010FFFF\n", "a: \uFFFE\n")
	return out
}

// fastFixtures returns the frontmatter text of every SKILL.md, skill.md and
// EXTENSION.md in the repository.
func fastFixtures(t testing.TB) []string {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		switch d.Name() {
		case "SKILL.md", "skill.md", "EXTENSION.md":
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(strings.TrimPrefix(string(data), utf8BOM), "\r\n", "\n")
		if _, rest, ok := strings.Cut(text, "---\n"); ok {
			if fm, _, ok := strings.Cut(rest, "\n---"); ok {
				out = append(out, fm+"\n")
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, out, "no skill fixtures found under %s", root)
	return out
}

// FuzzFastPath is the differential test of the fast path: whenever parseFast
// accepts a frontmatter text, yaml.v3 must accept it too and give the same
// keys and the same value nodes, field by field. Seeds: generated
// frontmatter, every form in every context (fastInContexts), the real-shaped
// corpus with every form its generator writes (realFrontmatters), every
// fixture in the repository, and testdata/fuzz.
func FuzzFastPath(f *testing.F) {
	for _, s := range slices.Concat(fastGenerated(), fastInContexts(), realFrontmatters()) {
		f.Add([]byte(s))
	}
	for _, s := range fastFixtures(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text := strings.ReplaceAll(string(data), "\r\n", "\n")
		line, reason := badChar(text)
		wantLine, wantReason := badCharRunes(text)
		require.Equal(t, wantReason, reason, "badChar(%q)", text)
		require.Equal(t, wantLine, line, "badChar(%q)", text)
		if reason != "" {
			return // refused before either path runs
		}
		fields, keys, ok := parseFast(text)
		if !ok {
			return
		}
		want, wantKeys, err := parseSlow("f.md", text, newLineMap(text))
		require.NoError(t, err, "the fast path accepted %q, which yaml refuses", text)
		require.Equal(t, wantKeys, keys, "keys of %q", text)
		for _, k := range keys {
			assert.Equal(t, *want[k], *fields[k], "value of %q in %q", k, text)
		}
	})
}

// badCharRunes is badChar written the plain way, a rune at a time: the
// reference its ASCII fast loop is held to.
func badCharRunes(text string) (int, string) {
	line := 1
	for i, r := range text {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"):
			return line, fmt.Sprintf("invalid UTF-8 byte 0x%02x", text[i])
		case r == '\n':
			line++
		case !yamlAllowed(r):
			return line, fmt.Sprintf("character %U is not allowed", r)
		}
	}
	return 0, ""
}

// Protects: the character check, which looks at eight bytes at a time
// while they are all printable ASCII, still finds every byte YAML refuses
// (controls, DEL) and counts every line, wherever in a word it stands:
// badChar gives what the plain rune-at-a-time check gives.
func TestBadCharAtEveryOffset(t *testing.T) {
	var refused []byte
	for c := range byte(0x80) {
		if !yamlAllowed(rune(c)) {
			refused = append(refused, c)
		}
	}
	require.Contains(t, refused, byte(0x7F))
	const plain = "name: a-skill\ndescription: Every byte is printable ASCII.\n"
	for i := range len(plain) {
		for _, c := range refused {
			text := plain[:i] + string(c) + plain[i:]
			wantLine, wantReason := badCharRunes(text)
			line, reason := badChar(text)
			assert.Equal(t, wantReason, reason, "badChar(%q)", text)
			assert.Equal(t, wantLine, line, "badChar(%q)", text)
		}
	}
}

// The fast path must actually carry the common case, or it is dead weight:
// the forms published skills are written in take it — and, measured on the
// real-shaped corpus, nearly every file does (TestFastPathTakesTheRealShape).
// What it must not read goes to yaml: comments, anchors, tags, nulls, tabs,
// indentation indicators, a value on the line after its key, a line it
// cannot place, a repeated key, an escape yaml.v3 refuses.
func TestFastPathTakesPlainFrontmatter(t *testing.T) {
	for _, text := range []string{
		"name: pdf\ndescription: Fill PDF forms. Use when asked to.\nlicense: Apache-2.0\n",
		"name: 技能\ndescription: 做事。\ndisable-model-invocation: true\n",
		"name: x\ndescription: \"Quoted: with a colon\"\nmetadata:\n  author: me\n  version: \"1.0\"\n",
		"description: \"esc\\\"aped \\u00e9\"\nname: 'it''s'\n",
		"description: >-\n  Folded over\n  two lines.\nallowed-tools: [Read, Bash(git:*)]\n",
		"description: |\n  Literal.\n\n  - a list\ntags:\n- a\n- b\ngithub_stars: 1200\nversion: 1.0.0\n",
		"description: Plain over\n  two lines.\nmetadata: {\"openclaw\": {\"emoji\": \"🔧\", \"requires\": {\"bins\": [\"git\"]}}}\n",
		"description: 'Single quoted\n  over two lines'\nmetadata:\n  nested:\n    deeper: x\n  list:\n    - \"a\"\n    - b\n",
		"description: \"A line\\\n  \\ joined\"\nmetadata: {\n  \"a\": [1, 2],\n}\npermissions:\n  - read: x\n    write: y\n",
	} {
		_, _, ok := parseFast(text)
		assert.True(t, ok, "parseFast(%q) deferred", text)
	}
	for _, text := range []string{
		"a: b # c\n", "# c\na: b\n", "a: &x b\nc: *x\n", "a: !!str b\n", "a:\nb: c\n", "a: b\n\tc: d\n", "a: |2\n   x\n",
		"a: x\n  b: c\n", "a: [b, c d\n  # e\n  ]\n", "a: b\na: c\n", "a: \"\\/\"\n", "a:\n  - b\n c: d\n",
	} {
		_, _, ok := parseFast(text)
		assert.False(t, ok, "parseFast(%q) took it; yaml must decide", text)
	}
}

// Protects: the fast path carries what published skills are written in, not
// only hand-picked examples: of the real-shaped corpus (drawn from the
// measured shape of public skill repositories), at least 95% of the files
// take it.
func TestFastPathTakesTheRealShape(t *testing.T) {
	files := skillsfloor.RealSkills(1000, 2)
	fast := 0
	for _, f := range files {
		n, _ := HeadLen(f.Data, true)
		if _, _, ok := parseFast(yamlText(f.Data[:n])); ok {
			fast++
		}
	}
	assert.GreaterOrEqual(t, fast, 950, "%d of %d real-shaped files took the fast path", fast, len(files))
}

// Protects: a Parser reused from one file to the next (discovery keeps one a
// worker) gives each file exactly what a fresh Parse gives: nothing of an
// earlier file — a key, a nested entry, a node — leaks into a later one,
// whether the earlier one took the fast path, yaml's, or failed.
func TestParserReuseMatchesParse(t *testing.T) {
	var long strings.Builder // more nodes than a Parser keeps for the next file
	for i := range 300 {
		fmt.Fprintf(&long, "key-%d: value %d\nmeta-%d:\n  k: v\n", i, i, i)
	}
	texts := slices.Concat(fastGenerated(), fastInContexts(), realFrontmatters(), fastFixtures(t))
	texts = append(texts, long.String(), "name: after\ndescription: the long one\n")
	var p Parser
	for _, order := range [][]string{texts, reversed(texts)} {
		for _, text := range order {
			data := []byte("---\n" + text + "---\nbody\n")
			want, wantErr := Parse("f.md", data)
			got, err := p.Parse("f.md", data)
			if wantErr != nil {
				assert.Equal(t, wantErr, err, "error of %q", text)
				assert.Nil(t, got)
				continue
			}
			require.NoError(t, err, "%q", text)
			assert.Equal(t, want.Keys, got.Keys, "keys of %q", text)
			require.Len(t, got.Fields, len(want.Fields), "fields of %q", text)
			for k, v := range want.Fields {
				require.Contains(t, got.Fields, k, "%q", text)
				assert.Equal(t, *v, *got.Fields[k], "value of %q in %q", k, text)
			}
			assert.Equal(t, want.Body, got.Body)
			assert.Equal(t, want.BodyLine, got.BodyLine)
		}
	}
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
