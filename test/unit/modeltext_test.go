package unit_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every sentence the model reads has one home: the embedded .md and .md.tmpl
// files of kernel/... and mcpserver hold no sentence twice, so a wording fix
// cannot leave a stale copy behind (a front end that says the same thing
// renders the other package's text).
func TestModelTextSentencesHaveOneHome(t *testing.T) {
	seen := map[string]string{} // sentence -> file:line
	files := 0
	for _, root := range []string{"../../kernel", "../../sandbox", "../../mcpserver"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !(strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".md.tmpl")) {
				return nil
			}
			files++
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, s := range sentences(string(data)) {
				if prev, ok := seen[s]; ok {
					assert.Fail(t, "a sentence lives twice", "%q\nin %s and %s", s, prev, path)
					continue
				}
				seen[s] = path
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.Greater(t, files, 10, "model text files found; want the kernel's and the MCP server's")
}

// sentences splits text at sentence ends and line breaks and keeps the
// pieces long enough to be a sentence of prose, not a tag or a fragment.
func sentences(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		start := 0
		for i := 0; i < len(line); i++ {
			if (line[i] == '.' || line[i] == '?' || line[i] == '!') && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\n') {
				out = appendSentence(out, line[start:i+1])
				start = i + 1
			}
		}
		out = appendSentence(out, line[start:])
	}
	return out
}

func appendSentence(out []string, s string) []string {
	if s = strings.TrimSpace(s); len(s) >= 40 {
		out = append(out, s)
	}
	return out
}
