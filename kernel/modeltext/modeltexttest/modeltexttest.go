// Package modeltexttest checks rendered model text against golden files, so
// that a change of wording is a reviewed diff of testdata/golden/*.txt.
// Run the package's tests with -update to rewrite the files.
package modeltexttest

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.txt from the rendered model text")

// Check compares each text with testdata/golden/<name>.txt (the text and a
// final newline), or writes the files under -update. A golden file no text
// names fails the test: a text that went away must take its file with it.
func Check(t *testing.T, texts map[string]string) {
	t.Helper()
	dir := filepath.Join("testdata", "golden")
	if *update {
		require.NoError(t, os.RemoveAll(dir))
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	names := make([]string, 0, len(texts))
	for name := range texts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, name+".txt")
		got := texts[name] + "\n"
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		if !assert.NoError(t, err, "%s: no golden file (run the test with -update and review the diff)", name) {
			continue
		}
		assert.Equal(t, string(want), got, "%s: the rendered text differs from %s (run the test with -update and review the diff)", name, path)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	require.NoError(t, err)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		assert.Contains(t, texts, name, "%s: no text has this golden file any more (run the test with -update)", f)
	}
}
