package frontmatter

import (
	"fmt"
	"strings"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

// fastForms are values written over one or several lines, each a template
// in which IND is the indentation of the lines that continue it (deeper
// than the key or item it belongs to) and OUT a shallower one: the forms
// the fast path takes and their near misses, which it must leave to yaml.
var fastForms = []string{
	// Block scalars: chomping, folding, more-indented and blank lines.
	"|\nINDa\nINDb\n", "|-\nINDa\nINDb\n", "|+\nINDa\nINDb\n\n", ">\nINDa\nINDb\n", ">-\nINDa\nINDb\n", ">+\nINDa\n\n",
	">\nINDa\n\nINDb\n", ">\nINDa\n\n\nINDb\n", ">\nINDa\nIND  b\nINDc\n", ">\nIND  a\nINDb\n", "|\nINDa\nIND  b\n\nINDc\n",
	"|\n\nINDa\n", ">\n\n\nINDa\nINDb\n", "|\nINDa # not a comment\nINDb: c\n", "|\nINDa  \nINDb\n", ">-\nINDa\n\n\n",
	"|\nIND\nINDa\n", "|\nINDa\nIND \nINDb\n", "|\nINDa\nIND   \n", "|\n IND\nINDa\n", "|2\nINDa\n", "|-2\nINDa\n", "| # c\nINDa\n",
	"| x\nINDa\n", "|\nOUTa\n", "|\n", "|\nINDa\nOUTb\n", "|\nIND a\nINDb\n", "|\nINDa\n IND b\n", ">\nINDa\n---\n", "|\nIND---\n",
	"|\nINDa", ">\nINDa\nINDb", "|+\nINDa\n\n\n", ">\nIND# a\n", ">\nINDa\nIND b\nINDc\n", ">+\nINDa\nIND\n", "|-\nINDa\nIND  \n",
	// Plain scalars over several lines.
	"a\nINDb\n", "a\nINDb\n\nINDc\n", "a\n\n\nINDb\n", "a\nINDb\nINDc\n", "a  \nINDb  \n", "a\nIND- b\n", "a\nINDb: c\n",
	"a\nINDb #c\n", "a\nIND#b\n", "a\nINDb:\n", "a\nIND\"b\"\n", "a\nOUTb\n", "a\nINDb\nOUTc\n", "1\nIND2\n", "true\nINDx\n",
	"a\nIND  b\n", "a b\nIND\nINDc\n", "a\nINDb", "é\nIND技能\n",
	// Quoted scalars over several lines, and escapes.
	"\"a\nINDb\"\n", "\"a\nIND\"\n", "\"a  \nIND  b\"\n", "\"a\n\nINDb\"\n", "\"a\\\nINDb\"\n", "'a\nINDb'\n", "'a''\nIND''b'\n",
	"\"a\nOUTb\"\n", "\"a\nINDb\" x\n", "'a\n\n\nINDb'\n", "\"a\nINDb\nINDc\"\n", "\"a\\tb\\nc\\\\d\\\"e\\/f\"\n", "\"a\\tb\\nc\\\\d\\\"e\"\n",
	"\"\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\a\\b\\v\\f\\r\\e\\ \\'\"\n", "\"\\uD800\"\n", "\"\\U00110000\"\n", "\"\\xe9\"\n",
	"\"\\xZZ\"\n", "\"\\u00\"\n", "\"\\q\"\n", "\"a\\\"\n", "\"a\\ \nINDb\"\n", "'a'''\n", "''''\n", "\"\"\n", "\"a\"b\n", "'a\nIND'\n",
	"\"a\n", "'a\n", "\"a \\\" b\nIND c \\n\"\n", "\"é \\u00e9\nIND技能\"\n",
	// Flow collections.
	"[]\n", "{}\n", "[a, b]\n", "[ a , b ]\n", "[\"a\", 'b', c d]\n", "[a, [b, c], {d: e}]\n", "{a: b, c: d}\n", "{\"a\":\"b\",\"c\":[1,2]}\n",
	"{\"a\": {\"b\": {\"c\": true}}}\n", "[1, 2.5, true, null, ~, 2024-01-01, 0x1F, .inf, -1]\n", "[é, 技能, \"😀\"]\n", "{é: 1, \"技能\": [x]}\n",
	"[a,]\n", "[a b c]\n", "[a: b]\n", "{a}\n", "{a: }\n", "{a:b}\n", "[a:b]\n", "[a#b]\n", "[a #b]\n", "[?a]\n", "[-a]\n", "[a-b, -1]\n",
	"[a, b] x\n", "[a, b]  \n", "[a\nINDb]\n", "{a: 1, a: 2}\n", "{\"a\": 1, a: 2}\n", "[[[[[[[[[a]]]]]]]]]\n", "[[[[[[[[a]]]]]]]]\n",
	"[a, , b]\n", "[,a]\n", "[a]]\n", "{a: [b}]\n", "['a''b', \"c\\\"d\"]\n", "[\"a\"  , 'b'  ]\n", "{ \"k\" : v }\n", "[é b, 'ü']\n",
	"[\"a\": b]\n", "{[a]: b}\n", "{\"a\":1 , \"b\" :2}\n", "[a , b ,c]\n", "{a: b c, d: 1.5}\n",
	// Flow collections over several lines, as JSON is often pasted.
	"{\nIND\"a\": 1,\nIND\"b\": [x, y],\nOUT}\n", "[\nINDa,\nINDb\nOUT]\n", "{\"a\":\nIND\"b\"}\n", "{\"a\"\nIND: b}\n", "[a,\n\nINDb]\n",
	"{\nIND\"a\": {\nIND  \"b\": 1,\nIND},\n}\n", "[\"a\nINDb\"]\n", "[a,\n---\n]\n", "[a, # c\nINDb]\n", "{a: b,\nc: d}\n", "[\n...\n]\n",
	"[a\nIND, b]\n", "[a\nINDb, c]\n", "{\nINDa: b\nIND}\n", "{\nINDa: b,\nOUT}  x\n", "[\nIND[a,\nINDb],\nIND{c: d}\nOUT]\n", "{a: [b,\n],}\n",
	"{\"a\": \"b\",}\n", "[a,,]\n", "[\n]\n", "{\n\n}\n",
	// A ':' inside a plain scalar of a flow collection.
	"[Bash(git:*), Read]\n", "[a:]\n", "[a:,b]\n", "{a:b: c}\n", "{a:1}\n", "[a: ]\n", "[http://x.y/z]\n", "{url: http://x}\n",
	"[a:b:c, d]\n", "{a: b:c}\n", "[a:\nINDb]\n", "[a:{b}]\n", "[a::b]\n",
	// Numbers and the other plain starts.
	"1\n", "1.0\n", "1.0.0\n", "0x1F\n", "0o17\n", "0b101\n", "1_000\n", "+1\n", ".5\n", ".inf\n", "~\n", "2024-01-01\n",
	"2024-01-01 10:00:00\n", "2024-1-1T10:00:00Z\n", "/usr/bin\n", "(a) b\n", "$HOME\n", "_x\n", "12 monkeys\n", "1e3\n", "0.1.2-beta\n",
	"-1\n", "-x\n", "<<\n", ".\n", "...\n",
}

// fastInContexts places each of fastForms as a top-level value, a nested
// mapping's value, an item of an indented and of an indentless sequence,
// and a value two levels down, with two and four spaces of indentation.
func fastInContexts() []string {
	var out []string
	for _, v := range fastForms {
		for _, step := range []string{"  ", "    "} {
			at := func(base string) string {
				return strings.NewReplacer("IND", base+step, "OUT", base).Replace(v)
			}
			out = append(out,
				"name: x\ndescription: "+at("")+"license: MIT\n",
				"description: "+at(""),
				"metadata:\n"+step+"a: b\n"+step+"k: "+at(step)+step+"z: y\nafter: x\n",
				"tags:\n"+step+"- a\n"+step+"- "+at(step)+step+"- z\nafter: x\n",
				"tags:\n- "+at("")+"- z\nafter: x\n",
				"m:\n"+step+"n:\n"+step+step+"k: "+at(step+step)+step+"o: p\n",
			)
		}
	}
	// The shapes of mappings and sequences themselves.
	out = append(out,
		"a:\n  b:\n    c: d\n  e: f\ng: h\n", "a:\n  b: c\n   d: e\n", "a:\n  b: c\n d: e\n", "a:\n  b: c\n  b: d\n", "a:\n  b:\n    c: d\n    c: e\n",
		"a:\n- b\n- c\nd: e\n", "a:\n  - b\n  - c\nd: e\n", "a:\n  - b\n - c\n", "a:\n  - b\n   - c\n", "a:\n- b\n  - c\n", "a:\n-\n", "a:\n- \n",
		"a:\n-b\n", "a:\n- - b\n", "a:\n- b: c\n", "a:\n  - b\n  c: d\n", "a:\n- b\n\n- c\n\nd: e\n", "a:\n  b: c\n\n  d: e\n\nf: g\n",
		"a:\n  true: x\n  null: y\n  No: z\n", "a:\nb: c\n", "a:\n", "a:\n\n", "a:\n  \n  b: c\n", "  \na: b\n", "a: b\n  \nc: d\n", "a: b\n \n",
		"a: b\n...\n", "a: b\n--- c\n", "a: b\n%YAML 1.2\n", "a: &x b\n", "a: *x\n", "a: !!str b\n", "? a\n: b\n", "a: b\n# c\n", "a:\n  # c\n  b: c\n",
		"a: b\nc:\n  d:\n    e:\n      f: [g, {h: i}]\n", "a:\n    b: c\n  d: e\n", "a:\n  - b\n  -  c\n", "a:\n  -   b\n  - c\n",
		// Sequences of mappings.
		"a:\n- b: c\n  d: e\n- f: g\nh: i\n", "a:\n  - b: c\n    d: [e]\n  - f: \"g\"\n", "a:\n- b:\n    c: d\n", "a:\n- b:\n  - c\n",
		"a:\n- b: c\n   d: e\n", "a:\n- b: c\n d: e\n", "a:\n- b: c\n  b: d\n", "a:\n- b: c\n- d\n", "a:\n-   b: c\n    d: e\n", "a:\n- b:c\n",
		"a:\n- b: c\n  d: |\n    e\n  f: g\n", "a:\n- b: c\n\n  d: e\n", "a:\n- b: c\n  - d\n", "a:\n- b: c\n    d\n", "a:\n- b: >\n   c\n   d\n",
		"a:\n- b: c\n  d:\n  - e\n  - f\n- g: h\n",
	)
	var deep strings.Builder
	for i := range 40 {
		fmt.Fprintf(&deep, "%sk%d:\n", strings.Repeat(" ", i), i)
	}
	deep.WriteString(strings.Repeat(" ", 40) + "leaf: v\n")
	var wide strings.Builder
	wide.WriteString("m:\n")
	for i := range 70 {
		fmt.Fprintf(&wide, "  k%d: v\n", i)
	}
	return append(out, deep.String(), wide.String())
}

// realFrontmatters are the frontmatters of the real-shaped corpus the
// benchmarks read, and an example of every form its generator writes in
// each place a form can stand (internal/skillsfloor).
func realFrontmatters() []string {
	out := skillsfloor.RealFormExamples(1)
	for _, f := range skillsfloor.RealSkills(300, 1) {
		text := strings.ReplaceAll(strings.TrimPrefix(string(f.Data), utf8BOM), "\r\n", "\n")
		if _, rest, ok := strings.Cut(text, "---\n"); ok {
			if fm, _, ok := strings.Cut(rest, "\n---\n"); ok {
				out = append(out, fm+"\n")
			}
		}
	}
	return out
}
