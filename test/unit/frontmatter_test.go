package unit_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lines joins its arguments with LF and ends with one, so test inputs read
// like the files they stand for.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestFrontmatterParse(t *testing.T) {
	type want struct {
		Keys     []string
		Scalars  map[string]string // Scalar(key) for each key listed; ok must be true
		Body     string
		BodyLine int
	}
	tests := []struct {
		name string
		in   string
		want want
	}{
		{
			name: "plain",
			in:   lines("---", "name: pdf", "description: Fill PDF forms.", "---", "# PDF", "", "Use it."),
			want: want{
				Keys:     []string{"name", "description"},
				Scalars:  map[string]string{"name": "pdf", "description": "Fill PDF forms."},
				Body:     "# PDF\n\nUse it.\n",
				BodyLine: 5,
			},
		},
		{
			name: "quoted strings single and double with escapes",
			in: lines("---",
				`name: 'it''s'`,
				`description: "tab\there \"quoted\" caf\u00e9 \\ end"`,
				`license: 'no \n escape in single quotes'`,
				"---"),
			want: want{
				Keys: []string{"name", "description", "license"},
				Scalars: map[string]string{
					"name":        "it's",
					"description": "tab\there \"quoted\" café \\ end",
					"license":     `no \n escape in single quotes`,
				},
				BodyLine: 6,
			},
		},
		{
			name: "block scalars keep and fold lines",
			in: lines("---",
				"description: |-",
				"  first line",
				"  second line",
				"compatibility: >",
				"  folded",
				"  together",
				"",
				"  new paragraph",
				"---",
				"body"),
			want: want{
				Keys: []string{"description", "compatibility"},
				Scalars: map[string]string{
					"description":   "first line\nsecond line",
					"compatibility": "folded together\nnew paragraph\n",
				},
				Body:     "body\n",
				BodyLine: 11,
			},
		},
		{
			name: "CRLF line endings",
			in:   "---\r\nname: pdf\r\ndescription: |-\r\n  a\r\n  b\r\n---\r\nline one\r\nline two\r\n",
			want: want{
				Keys:     []string{"name", "description"},
				Scalars:  map[string]string{"name": "pdf", "description": "a\nb"},
				Body:     "line one\nline two\n",
				BodyLine: 7,
			},
		},
		{
			// CR CR LF is what converting LF to CRLF twice leaves; every
			// reader means one line ending by it.
			name: "CRs before an LF end the line with it",
			in:   "---\r\r\nname: pdf\r\r\ndescription: |-\r\r\n  a\r\r\n  b\r\n---\r\r\nline one\r\r\nline\rtwo\r\r\r\n",
			want: want{
				Keys:     []string{"name", "description"},
				Scalars:  map[string]string{"name": "pdf", "description": "a\nb"},
				Body:     "line one\nline\rtwo\n",
				BodyLine: 7,
			},
		},
		{
			name: "UTF-8 BOM is skipped and does not count as a line",
			in:   "\ufeff" + lines("---", "name: pdf", "---", "body"),
			want: want{
				Keys:     []string{"name"},
				Scalars:  map[string]string{"name": "pdf"},
				Body:     "body\n",
				BodyLine: 4,
			},
		},
		{
			name: "trailing spaces on the delimiters are tolerated",
			in:   "--- \t\nname: pdf\n---  \nbody",
			want: want{
				Keys:     []string{"name"},
				Scalars:  map[string]string{"name": "pdf"},
				Body:     "body",
				BodyLine: 4,
			},
		},
		{
			name: "lines that merely start with --- inside a block scalar do not close",
			in: lines("---",
				"description: |",
				"  ----",
				"  --- x",
				"  ---",
				"name: after",
				"---",
				"body"),
			want: want{
				Keys: []string{"description", "name"},
				Scalars: map[string]string{
					"description": "----\n--- x\n---\n",
					"name":        "after",
				},
				Body:     "body\n",
				BodyLine: 8,
			},
		},
		{
			name: "numbers bools and dates read as written",
			in: lines("---",
				"version: 1.10",
				"count: 42",
				"hex: 0x1F",
				"enabled: true",
				"created: 2024-01-31",
				"empty:",
				"tilde: ~",
				"---"),
			want: want{
				Keys: []string{"version", "count", "hex", "enabled", "created", "empty", "tilde"},
				Scalars: map[string]string{
					"version": "1.10",
					"count":   "42",
					"hex":     "0x1F",
					"enabled": "true",
					"created": "2024-01-31",
					"empty":   "",
					"tilde":   "",
				},
				BodyLine: 10,
			},
		},
		{
			name: "closing delimiter is the last line without a newline",
			in:   "---\nname: pdf\n---",
			want: want{
				Keys:     []string{"name"},
				Scalars:  map[string]string{"name": "pdf"},
				BodyLine: 4,
			},
		},
		{
			name: "body keeps everything but CRLF, including a later --- line",
			in:   lines("---", "name: pdf", "---", "  indented\t", "---", "", "end  "),
			want: want{
				Keys:     []string{"name"},
				Scalars:  map[string]string{"name": "pdf"},
				Body:     "  indented\t\n---\n\nend  \n",
				BodyLine: 4,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := frontmatter.Parse("skills/pdf/SKILL.md", []byte(tt.in))
			require.NoError(t, err, "Parse")
			got := want{Keys: doc.Keys, Scalars: map[string]string{}, Body: doc.Body, BodyLine: doc.BodyLine}
			for k := range tt.want.Scalars {
				v, ok := doc.Scalar(k)
				assert.True(t, ok, "Scalar(%q): ok = false", k)
				got.Scalars[k] = v
			}
			assert.Empty(t, cmp.Diff(tt.want, got), "Parse(%q) mismatch (-want +got)", tt.in)
			assert.Equal(t, "skills/pdf/SKILL.md", doc.File, "File, want the name given to Parse")
			assert.Len(t, doc.Fields, len(doc.Keys), "len(Fields), len(Keys)")
			for _, k := range doc.Keys {
				assert.True(t, doc.Has(k), "Has(%q) = false for a listed key", k)
			}
		})
	}
}

func TestFrontmatterErrors(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		wantErr    error
		wantLine   int
		wantReason string // substring of Reason
	}{
		{"empty file", "", frontmatter.ErrNoFrontmatter, 1, "empty"},
		{"markdown without frontmatter", lines("# Title", "---", "a: b", "---"), frontmatter.ErrNoFrontmatter, 1, `"# Title"`},
		{"four dashes open nothing", lines("----", "a: b", "----"), frontmatter.ErrNoFrontmatter, 1, ""},
		{"text after the opening dashes", lines("--- a: b", "---"), frontmatter.ErrNoFrontmatter, 1, ""},
		{"leading blank line", lines("", "---", "a: b", "---"), frontmatter.ErrNoFrontmatter, 1, ""},

		{"opening line only", "---", frontmatter.ErrUnclosed, 1, ""},
		{"never closed", lines("---", "name: pdf", "description: x"), frontmatter.ErrUnclosed, 1, ""},
		{"four dashes in a block scalar do not close", lines("---", "description: |", "  ----", "body"), frontmatter.ErrUnclosed, 1, ""},
		{"dashes followed by text do not close", lines("---", "name: pdf", "--- x", "body"), frontmatter.ErrUnclosed, 1, ""},

		{"empty", lines("---", "---"), frontmatter.ErrNotMapping, 1, "frontmatter is empty"},
		{"blank and comments only", lines("---", "", "# just a comment", "---"), frontmatter.ErrNotMapping, 1, "frontmatter is empty"},
		{"scalar", lines("---", "just text", "---"), frontmatter.ErrNotMapping, 2, "scalar"},
		{"null", lines("---", "~", "---"), frontmatter.ErrNotMapping, 2, "null"},
		{"list", lines("---", "- name: pdf", "- description: x", "---"), frontmatter.ErrNotMapping, 2, "sequence"},
		{"list after a comment", lines("---", "# c", "- a", "---"), frontmatter.ErrNotMapping, 3, "sequence"},
		{"complex key", lines("---", "name: pdf", "? [a, b]", ": c", "---"), frontmatter.ErrNotMapping, 3, "key"},

		{"indented key", lines("---", "name: pdf", "  description: x", "---"), frontmatter.ErrYAML, 3, "mapping values are not allowed"},
		{"tab indentation", lines("---", "name: pdf", "metadata:", "\tauthor: me", "---"), frontmatter.ErrYAML, 4, "cannot start any token"},
		{"list item inside a mapping", lines("---", "name: pdf", "description: x", "- oops", "---"), frontmatter.ErrYAML, 4, "did not find expected key"},
		{"error on the first YAML line", lines("---", "@name: pdf", "---"), frontmatter.ErrYAML, 2, "cannot start any token"},
		{"unknown escape", lines("---", "name: pdf", `description: "\q"`, "---"), frontmatter.ErrYAML, 3, "escape"},
		{"duplicate key", lines("---", "name: a", "description: x", "name: b", "---"), frontmatter.ErrYAML, 4, `"name" already defined at line 2`},
		{"duplicate nested key", lines("---", "name: a", "metadata:", "  k: 1", "  k: 2", "---"), frontmatter.ErrYAML, 5, `"k" already defined at line 4`},
		{"control character", lines("---", "name: a", "description: x\x01y", "---"), frontmatter.ErrYAML, 3, "U+0001"},
		{"invalid UTF-8", lines("---", "name: a", "description: \xff", "---"), frontmatter.ErrYAML, 3, "UTF-8"},
		{"unknown alias", lines("---", "name: a", "description: *nope", "---"), frontmatter.ErrYAML, 3, "unknown anchor"},
		{"second YAML document", lines("---", "name: a", "--- b", "---"), frontmatter.ErrYAML, 3, "second YAML document"},
		{"BOM and CRLF do not shift lines", "\ufeff---\r\nname: a\r\n  bad: b\r\n---\r\n", frontmatter.ErrYAML, 3, ""},
		{"CR CR LF does not shift lines", "---\r\r\nname: a\r\r\ndescription: b\r\r\n  bad: c\r\r\n---\r\r\n", frontmatter.ErrYAML, 4, "mapping values are not allowed"},
		{"a lone CR is a YAML line", "---\r\r\nname: a\rdescription: b\r\r\n  bad: c\r\n---\r\n", frontmatter.ErrYAML, 3, "mapping values are not allowed"},
	}
	sentinels := []error{frontmatter.ErrNoFrontmatter, frontmatter.ErrUnclosed, frontmatter.ErrNotMapping, frontmatter.ErrYAML}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := frontmatter.Parse("skills/pdf/SKILL.md", []byte(tt.in))
			require.Error(t, err, "Parse(%q) = %+v, want error %v", tt.in, doc, tt.wantErr)
			assert.Nil(t, doc, "Parse returned a document with an error")
			var fe *frontmatter.Error
			require.ErrorAs(t, err, &fe, "error () is not a *frontmatter.Error")
			for _, s := range sentinels {
				assert.Equal(t, s == tt.wantErr, errors.Is(err, s), "errors.Is(%v, %v)", err, s)
			}
			assert.Equal(t, "skills/pdf/SKILL.md", fe.File, "error at %s:%d, want skills/pdf/SKILL.md:%d (%v)", fe.File, fe.Line, tt.wantLine, err)
			assert.Equal(t, tt.wantLine, fe.Line, "error at %s:%d, want skills/pdf/SKILL.md:%d (%v)", fe.File, fe.Line, tt.wantLine, err)
			assert.Contains(t, fe.Reason, tt.wantReason, "Reason = %q, want it to contain %q", fe.Reason, tt.wantReason)
		})
	}
}

func TestFrontmatterErrorMessage(t *testing.T) {
	_, err := frontmatter.Parse("path/SKILL.md", []byte(lines("---", "name: a", "  bad: b", "---")))
	want := "path/SKILL.md:3: frontmatter is not valid YAML: mapping values are not allowed in this context"
	assert.EqualError(t, err, want)
}

func TestFrontmatterScalarBoolHas(t *testing.T) {
	doc, err := frontmatter.Parse("SKILL.md", []byte(lines("---",
		"name: pdf",
		"flag: true",
		"off: False",
		"quoted: 'true'",
		"yes-word: yes",
		"count: 3",
		"pi: 3.14",
		"tools: [Read, Grep]",
		"meta: {a: b}",
		"anchored: &x shared",
		"aliased: *x",
		"nothing:",
		"---")))
	require.NoError(t, err, "Parse")
	type result struct {
		Scalar   string
		ScalarOK bool
		Bool     bool
		BoolOK   bool
		Has      bool
	}
	tests := []struct {
		key  string
		want result
	}{
		{"name", result{"pdf", true, false, false, true}},
		{"flag", result{"true", true, true, true, true}},
		{"off", result{"False", true, false, true, true}},
		{"quoted", result{"true", true, false, false, true}},
		{"yes-word", result{"yes", true, false, false, true}},
		{"count", result{"3", true, false, false, true}},
		{"pi", result{"3.14", true, false, false, true}},
		{"tools", result{"", false, false, false, true}},
		{"meta", result{"", false, false, false, true}},
		{"anchored", result{"shared", true, false, false, true}},
		{"aliased", result{"shared", true, false, false, true}},
		{"nothing", result{"", true, false, false, true}},
		{"missing", result{"", false, false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			var got result
			got.Scalar, got.ScalarOK = doc.Scalar(tt.key)
			got.Bool, got.BoolOK = doc.Bool(tt.key)
			got.Has = doc.Has(tt.key)
			assert.Empty(t, cmp.Diff(tt.want, got), "key %q (-want +got)", tt.key)
		})
	}
}

func TestFrontmatterDecode(t *testing.T) {
	doc, err := frontmatter.Parse("skills/pdf/SKILL.md", []byte(lines("---",
		"name: pdf",
		"allowed-tools:",
		"  - Read",
		"  - Bash(git:*)",
		"metadata:",
		"  updated: 2024-03-05",
		"  author:",
		"    name: Ada",
		"    tags: [a, b]",
		"  version: 2.0",
		"---")))
	require.NoError(t, err, "Parse")

	t.Run("list", func(t *testing.T) {
		var tools []string
		require.NoError(t, doc.Decode("allowed-tools", &tools), "Decode")
		assert.Empty(t, cmp.Diff([]string{"Read", "Bash(git:*)"}, tools), "allowed-tools (-want +got)")
		_, ok := doc.Scalar("allowed-tools")
		assert.False(t, ok, "Scalar(allowed-tools) ok = true for a list")
	})

	t.Run("nested mapping with a date", func(t *testing.T) {
		type meta struct {
			Updated time.Time `yaml:"updated"`
			Author  struct {
				Name string   `yaml:"name"`
				Tags []string `yaml:"tags"`
			} `yaml:"author"`
			Version string `yaml:"version"`
		}
		var got meta
		require.NoError(t, doc.Decode("metadata", &got), "Decode")
		var want meta
		want.Updated = time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)
		want.Author.Name = "Ada"
		want.Author.Tags = []string{"a", "b"}
		want.Version = "2.0"
		assert.Empty(t, cmp.Diff(want, got), "metadata (-want +got)")
	})

	t.Run("raw map", func(t *testing.T) {
		var got map[string]any
		require.NoError(t, doc.Decode("metadata", &got), "Decode")
		want := map[string]any{
			"updated": time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC),
			"author":  map[string]any{"name": "Ada", "tags": []any{"a", "b"}},
			"version": 2.0,
		}
		assert.Empty(t, cmp.Diff(want, got), "metadata (-want +got)")
	})

	errTests := []struct {
		name     string
		key      string
		into     any
		wantErr  error
		wantLine int
		wantMsg  []string
	}{
		{"wrong type names file line and key", "allowed-tools", new(map[string]string), frontmatter.ErrType, 4,
			[]string{"skills/pdf/SKILL.md:4:", `"allowed-tools"`, "!!seq"}},
		{"nested wrong type points at the nested line", "metadata", new(struct {
			Author struct {
				Name int `yaml:"name"`
			} `yaml:"author"`
		}), frontmatter.ErrType, 9, []string{"skills/pdf/SKILL.md:9:", `"metadata"`, "Ada"}},
		{"missing key", "license", new(string), frontmatter.ErrMissingKey, 1,
			[]string{"skills/pdf/SKILL.md:1:", `"license"`}},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			err := doc.Decode(tt.key, tt.into)
			require.ErrorIs(t, err, tt.wantErr, "Decode(%q)", tt.key)
			var fe *frontmatter.Error
			assert.ErrorAs(t, err, &fe, "error %v: want a *frontmatter.Error on line %d", err, tt.wantLine)
			assert.Equal(t, tt.wantLine, fe.Line, "error %v: want a *frontmatter.Error on line %d", err, tt.wantLine)
			for _, m := range tt.wantMsg {
				assert.Contains(t, err.Error(), m, "error %q does not contain %q", err, m)
			}
		})
	}
}
