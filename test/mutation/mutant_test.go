package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMutate(t *testing.T) {
	const src = "a\nfind me\nb\nfind me\nonce\n"
	for _, tc := range []struct {
		name, src, find, replace string
		want                     string
		wantStale                string
	}{
		{name: "once", src: src, find: "once", replace: "twice", want: "a\nfind me\nb\nfind me\ntwice\n"},
		{name: "absent", src: src, find: "nowhere", replace: "x", wantStale: "find text matches 0 times, want 1"},
		{name: "twice", src: src, find: "find me", replace: "x", wantStale: "find text matches 2 times (lines 2, 4), want 1"},
		{name: "overlapping", src: "x\naaa\n", find: "aa", replace: "b", wantStale: "find text matches 2 times (lines 2, 2), want 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mutate(tc.src, tc.find, tc.replace)
			if tc.wantStale != "" {
				se, ok := errors.AsType[*staleError](err)
				require.True(t, ok, "mutate error = %v, want stale %q", err, tc.wantStale)
				require.Equal(t, tc.wantStale, se.reason, "mutate error = %v, want stale %q", err, tc.wantStale)
				return
			}
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(tc.want, got), "mutate (-want +got)")
		})
	}
}

// TestWriteMutantLeavesTreeAlone: the mutant and overlay go to the temp dir;
// the working tree is only read.
func TestWriteMutantLeavesTreeAlone(t *testing.T) {
	root, tmp := t.TempDir(), t.TempDir()
	orig := filepath.Join(root, "pkg", "f.go")
	require.NoError(t, os.MkdirAll(filepath.Dir(orig), 0o755))
	require.NoError(t, os.WriteFile(orig, []byte("package pkg\n\nconst X = 1\n"), 0o644))
	before := snapshot(t, root)

	m, err := writeMutant(root, tmp, &entry{ID: "M1", File: "pkg/f.go", Find: "X = 1", Replace: "X = 2"})
	require.NoError(t, err)

	assert.Empty(t, cmp.Diff(before, snapshot(t, root)), "working tree changed (-before +after)")
	assert.Equal(t, "package pkg\n\nconst X = 2\n", readFile(t, m.path), "mutant")
	var overlay struct{ Replace map[string]string }
	require.NoError(t, json.Unmarshal([]byte(readFile(t, m.overlay)), &overlay))
	assert.Empty(t, cmp.Diff(map[string]string{orig: filepath.Join(tmp, "f.go")}, overlay.Replace), "overlay (-want +got)")
}

func TestWriteMutantMissingFileIsStale(t *testing.T) {
	_, err := writeMutant(t.TempDir(), t.TempDir(), &entry{ID: "M1", File: "gone.go", Find: "x", Replace: "y"})
	se, ok := errors.AsType[*staleError](err)
	assert.True(t, ok, "writeMutant error = %v, want stale: gone.go does not exist", err)
	assert.Equal(t, "gone.go does not exist", se.reason, "writeMutant error = %v, want stale: gone.go does not exist", err)
}

func TestPathRewriter(t *testing.T) {
	m := mutant{path: "/tmp/helios-mutate-1/M5/calc.go"}
	rw := m.pathRewriter("/work/main", "calc/calc.go")
	for in, want := range map[string]string{
		"/tmp/helios-mutate-1/M5/calc.go:9:13: undefined: c":      "calc/calc.go:9:13: undefined: c",
		"../../tmp/helios-mutate-1/M5/calc.go:9:13: undefined: c": "calc/calc.go:9:13: undefined: c",
		"other.go:1:1: x": "other.go:1:1: x",
	} {
		assert.Equal(t, want, rw.Replace(in), "Replace(%q)", in)
	}
}

// snapshot maps every file under dir to its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = readFile(t, path)
		return nil
	})
	require.NoError(t, err)
	return files
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}
