package frontmatter

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		"disable-model-invocation: true\nname: n\n", strings.Repeat("k", 200)+": v\n", "a_b-C9: v\n", "9a: v\n", "_a: v\n")
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
// frontmatter, every fixture in the repository, and testdata/fuzz.
func FuzzFastPath(f *testing.F) {
	for _, s := range fastGenerated() {
		f.Add([]byte(s))
	}
	for _, s := range fastFixtures(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text := strings.ReplaceAll(string(data), "\r\n", "\n")
		if _, reason := badChar(text); reason != "" {
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

// The fast path must actually carry the common case, or it is dead weight:
// every fixture that holds only plain scalars takes it.
func TestFastPathTakesPlainFrontmatter(t *testing.T) {
	for _, text := range []string{
		"name: pdf\ndescription: Fill PDF forms. Use when asked to.\nlicense: Apache-2.0\n",
		"name: 技能\ndescription: 做事。\ndisable-model-invocation: true\n",
		"name: x\ndescription: \"Quoted: with a colon\"\nmetadata:\n  author: me\n  version: \"1.0\"\n",
	} {
		_, _, ok := parseFast(text)
		assert.True(t, ok, "parseFast(%q) deferred", text)
	}
	for _, text := range []string{"description: \"esc\\\"aped\"\n", "description: 'it''s'\n", "a: b # c\n", "a: |\n  x\n", "a: 1\n"} {
		_, _, ok := parseFast(text)
		assert.False(t, ok, "parseFast(%q) took it; yaml must decide", text)
	}
}
