package frontmatter_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/stretchr/testify/require"
)

// crsBeforeLF is a line ending as Parse reads it: an LF and the CRs before it.
var crsBeforeLF = regexp.MustCompile(`\r*\n`)

// FuzzParse checks that Parse never panics, that every error is an *Error
// carrying one of the sentinels and a line that exists in the file, and that
// a parsed document is self-consistent.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"---\n---\n",
		"---\nname: pdf\ndescription: Fill forms.\n---\n# Body\n",
		"\ufeff---\r\nname: pdf\r\n---\r\nbody\r\n",
		"---\r\r\na: b\r\r\n---\r\r\nx\r\r\n",
		"---\ndescription: |-\n  ----\n  --- x\nname: a\n---\n",
		"---\na: &x [1, 2]\nb: *x\nc: *nope\n---\n",
		"---\nname: a\nname: b\n---\n",
		"---\n- a\n---\n",
		"---\nk: [a, b\n---\n",
		"---\nk: \"\\q\"\n---\n",
		"---\n? [a]\n: b\n---\n",
		"---\na: b\n--- c\n---\n",
		"---\na: \x00\xff\n---\n",
		"---\nmetadata:\n  updated: 2024-01-01\n  n: {a: 1}\n---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := frontmatter.Parse("f.md", data)
		// Lines as the parser counts them: a BOM is not a line, LF ends one.
		lineCount := strings.Count(strings.TrimPrefix(string(data), "\ufeff"), "\n") + 1
		if err != nil {
			var fe *frontmatter.Error
			require.ErrorAs(t, err, &fe, "error %v is %T, want *frontmatter.Error", err, err)
			known := false
			for _, s := range []error{frontmatter.ErrNoFrontmatter, frontmatter.ErrUnclosed, frontmatter.ErrNotMapping, frontmatter.ErrYAML} {
				known = known || errors.Is(err, s)
			}
			require.True(t, known, "error %v carries no Parse sentinel", err)
			require.Equal(t, "f.md", fe.File, "error %v at %s:%d; file has %d lines", err, fe.File, fe.Line, lineCount)
			require.GreaterOrEqual(t, fe.Line, 1, "error %v at %s:%d; file has %d lines", err, fe.File, fe.Line, lineCount)
			require.LessOrEqual(t, fe.Line, lineCount, "error %v at %s:%d; file has %d lines", err, fe.File, fe.Line, lineCount)
			require.Nil(t, doc, "document returned with error %v", err)
			return
		}
		require.Len(t, doc.Keys, len(doc.Fields), "%d keys but %d fields", len(doc.Keys), len(doc.Fields))
		for _, k := range doc.Keys {
			require.NotNil(t, doc.Fields[k], "key %q has no value node", k)
			doc.Scalar(k)
			doc.Bool(k)
			var v any
			_ = doc.Decode(k, &v)
		}
		require.GreaterOrEqual(t, doc.BodyLine, 3, "BodyLine %d outside 3..%d", doc.BodyLine, lineCount+1)
		require.LessOrEqual(t, doc.BodyLine, lineCount+1, "BodyLine %d outside 3..%d", doc.BodyLine, lineCount+1)
		require.NotContains(t, doc.Body, "\r\n", "Body %q keeps a CRLF", doc.Body)
		require.True(t, strings.HasSuffix(crsBeforeLF.ReplaceAllString(string(data), "\n"), doc.Body), "Body %q is not the end of the file", doc.Body)
	})
}
